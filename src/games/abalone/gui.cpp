// The GUI commands of docs/games/abalone.md §7, and the difference between two worlds as GUI
// commands.
#include "games/abalone/gui.h"

#include <fmt/format.h>

namespace arbiter::abalone {
namespace {

char team_letter(Team t) {
  return t == Team::black ? 'b' : 'w';
}

}  // namespace

std::string gui_set_empty(Hex h) {
  return fmt::format("set {} e", gui_hex_name(h));
}

std::string gui_set_piece(Hex h, Team t, Dir dir) {
  return fmt::format("set {} {}{}", gui_hex_name(h), team_letter(t), dir);
}

std::string gui_score(Team t, int score) {
  return fmt::format("{}score {}", team_letter(t), score);
}

std::string gui_turns(std::int64_t turns) {
  return fmt::format("turns {}", turns);
}

std::string gui_say(Team t, std::string_view text) {
  return fmt::format("{}say {}", team_letter(t), sanitize_say(text));
}

std::string sanitize_say(std::string_view text) {
  std::string out;
  for (char ch : text.substr(0, kMaxSayLength)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80)
      out += '?';
    else if (c < 0x20 || c == 0x7f)
      out += ' ';
    else
      out += ch;
  }
  return out;
}

std::string gui_set(const World& w, Hex h) {
  const auto pid = w.at(h);
  if (!pid) return gui_set_empty(h);
  const Piece& p = *w.find(*pid);
  return gui_set_piece(h, p.team, p.dir);
}

std::vector<std::string> gui_changes(const World& before, const World& after) {
  std::vector<std::string> out;
  for (Hex h : all_hexes()) {
    // Pieces are told apart by what the viewer draws, not by PID.
    const std::string was = gui_set(before, h), now = gui_set(after, h);
    if (was != now) out.push_back(now);
  }
  for (Team t : kTeams)
    if (before.score(t) != after.score(t)) out.push_back(gui_score(t, after.score(t)));
  return out;
}

std::vector<std::string> gui_full(const World& w) {
  std::vector<std::string> out;
  for (Hex h : all_hexes()) out.push_back(gui_set(w, h));
  for (Team t : kTeams) out.push_back(gui_score(t, w.score(t)));
  return out;
}

}  // namespace arbiter::abalone
