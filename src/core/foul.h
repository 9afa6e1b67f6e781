// Foul: why an action a player asked for is against the rules. Player misbehaviour is data, not
// an exception: Rules::check returns std::optional<Foul>.
#pragma once

#include <string>

namespace arbiter {

struct Foul {
  std::string code;    // stable kebab-case id, e.g. "tile-not-owned"; documented per game
  std::string detail;  // human-readable specifics for logs and error messages
  friend bool operator==(const Foul&, const Foul&) = default;
};

}  // namespace arbiter
