#include "games/speed_scrabble/spectator.h"

namespace arbiter::speed_scrabble {

namespace {

void mask_letters(Json& j) {
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    for (char& c : s)
      if (c >= 'A' && c <= 'Z') c = '?';
  } else if (j.is_array() || j.is_object()) {
    for (auto& v : j) mask_letters(v);
  }
}

}  // namespace

Json spectator_line(const Json& line) {
  if (!line.is_object()) return line;
  const std::string type = string_or(line, "type");
  if (type != "setup" && type != "message" && type != "notice") return line;
  Json out = line;
  auto message = out.find("message");
  if (message == out.end()) return out;
  if (!message->is_array()) {
    out.erase("message");
    return out;
  }
  for (std::size_t i = 1; i < message->size(); ++i) mask_letters((*message)[i]);
  return out;
}

}  // namespace arbiter::speed_scrabble
