#include "games/dominosa/spectator.h"

namespace arbiter::dominosa {

Json spectator_line(const Json& line) {
  if (!line.is_object() || string_or(line, "type") != "message") return line;
  Json out = line;
  const Json message = field_or_null(line, "message");
  out["message"] = Json::array();
  if (message.is_array() && !message.empty() && message[0].is_string())
    out["message"].push_back(message[0]);
  return out;
}

}  // namespace arbiter::dominosa
