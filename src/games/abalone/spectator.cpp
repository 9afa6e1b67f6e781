#include "games/abalone/spectator.h"

namespace arbiter::abalone {

Json spectator_line(const Json& line) {
  if (!line.is_object() || string_or(line, "type") != "match") return line;
  Json out = line;
  if (auto teams = out.find("teams"); teams != out.end() && teams->is_array()) {
    for (auto& team : *teams)
      if (team.is_object()) team.erase("source");
  }
  return out;
}

}  // namespace arbiter::abalone
