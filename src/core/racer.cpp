#include "core/racer.h"

#include <cstdlib>

#include <fmt/format.h>

namespace arbiter {

Expected<RacerSpec> parse_racer(std::string_view text) {
  RacerSpec spec;
  if (text == "solver") return spec;
  if (text == "slow") {
    spec.delay = std::chrono::seconds(1);
    return spec;
  }
  if (text.starts_with("slow=")) {
    const std::string number(text.substr(5));
    char* end = nullptr;
    const double seconds = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !(seconds >= 0) || seconds > 60)
      return fail(fmt::format("bot \"{}\": slow=SECONDS needs 0 to 60 seconds", text));
    spec.delay = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
    return spec;
  }
  return fail(fmt::format("bot \"{}\": unknown racer (solver, slow, slow=SECONDS)", text));
}

}  // namespace arbiter
