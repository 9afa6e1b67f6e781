#include "games/battleship/spectator.h"

namespace arbiter::battleship {

Json spectator_line(const Json& line) {
  if (!line.is_object() || string_or(line, "type") != "call") return line;
  Json out = line;
  const std::string call = string_or(line, "call");
  if (call == "win") return out;
  if (call != "take_turn") {
    out.erase("args");
    out.erase("reply");
    return out;
  }
  Json args = field_or_null(line, "args");
  out.erase("args");
  if (args.is_object()) {
    Json shown = Json::object();
    for (const char* key : {"config", "turn", "you", "outgoing"})
      if (auto it = args.find(key); it != args.end()) shown[key] = *it;
    out["args"] = std::move(shown);
  }
  return out;
}

}  // namespace arbiter::battleship
