#include "games/q/spectator.h"

namespace arbiter::q {

Json spectator_line(const Json& line) {
  if (!line.is_object()) return line;
  Json out = line;
  const std::string type = string_or(line, "type");
  if (type == "match") {
    if (auto c = out.find("config"); c != out.end() && c->is_object()) c->erase("table");
    return out;
  }
  if (type != "call") return out;
  const std::string call = string_or(line, "call");
  if (call == "win") return out;
  if (call != "take_turn") {
    out.erase("args");
    out.erase("reply");
    return out;
  }
  if (auto args = out.find("args"); args != out.end()) {
    auto players = args->is_object() ? args->find("players") : args->end();
    if (players != args->end() && players->is_array() && !players->empty() &&
        (*players)[0].is_object()) {
      (*players)[0].erase("tile*");
    } else if (args != out.end()) {
      out.erase("args");  // not a view this codec writes: nothing of it is known to be public
    }
  }
  if (string_or(line, "verdict") != "ok") out.erase("reply");
  return out;
}

}  // namespace arbiter::q
