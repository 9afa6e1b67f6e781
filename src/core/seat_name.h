// The one rule for the names players go by, wherever a name is given: `arbiter play`,
// tournament entrants, TCP sign-up and the Q course harnesses. It is the course's JName
// (^[a-zA-Z0-9]+$, at most 20 characters), and it keeps names safe as file names (stderr logs).
#pragma once

#include <string>
#include <string_view>

namespace arbiter {

// The rule in words, for error messages.
inline constexpr std::string_view kSeatNameRule = "a name is 1 to 20 ASCII letters or digits";

constexpr bool valid_seat_name(std::string_view name) {
  if (name.empty() || name.size() > 20) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// `player name "my_bot": a name is 1 to 20 ASCII letters or digits` (the name shown as JSON
// would quote it, so that control characters stay on one line).
std::string seat_name_error(std::string_view name);

}  // namespace arbiter
