#include "arena/spectator.h"

#include <string>

namespace arbiter {

namespace {

Json withhold_all(const Json& line) {
  if (!line.is_object()) return line;
  Json out = line;
  const std::string type = string_or(line, "type");
  if (type == "call") {
    out.erase("args");
    out.erase("reply");
  } else if (type == "setup" || type == "message" || type == "notice") {
    out.erase("message");
  } else if (type == "match") {
    out.erase("teams");
    if (auto c = out.find("config"); c != out.end()) *c = nullptr;
  }
  return out;
}

}  // namespace

std::string detail_reason(const std::string& detail) {
  return detail.substr(0, detail.find(':'));
}

namespace {

void keep_only_the_reason(Json& line) {
  if (!line.is_object()) return;
  auto detail = line.find("detail");
  if (detail == line.end() || !detail->is_string()) return;
  *detail = detail_reason(detail->get<std::string>());
}

}  // namespace

Json spectator_line(const GameEntry* game, const Json& line) {
  try {
    Json shown = game != nullptr && game->spectate ? game->spectate(line) : withhold_all(line);
    keep_only_the_reason(shown);
    // The deal and every seat's house bot follow from the seed.
    if (shown.is_object() && string_or(shown, "type") == "match") shown.erase("seed");
    return shown;
  } catch (...) {
    return {{"type", line.is_object() ? string_or(line, "type") : std::string()}};
  }
}

}  // namespace arbiter
