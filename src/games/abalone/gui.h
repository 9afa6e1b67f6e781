// The GUI protocol of docs/games/abalone.md §7: the text commands a viewer understands, built
// from the world (positions in the GUI's form, `~` for minus). Each command is returned without
// its terminating newline; the transport adds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "games/abalone/board.h"
#include "games/abalone/world.h"

namespace arbiter::abalone {

// talk(s) text is cut to this many bytes (§4, talk).
inline constexpr std::size_t kMaxSayLength = 200;

std::string gui_set_empty(Hex h);                   // `set B~2 e`. REQUIRES: on_board(h).
std::string gui_set_piece(Hex h, Team t, Dir dir);  // `set B~2 w4`. REQUIRES: on_board(h).
std::string gui_score(Team t, int score);           // `bscore 3`, `wscore 0`
std::string gui_turns(std::int64_t turns);          // `turns 12`
// `bsay <text>` / `wsay <text>` with the text made safe for a one-line command (sanitize_say).
std::string gui_say(Team t, std::string_view text);

// One line of printable ASCII: control characters (newlines, tabs, ...) become spaces, bytes
// outside ASCII become `?`, and the result is cut to kMaxSayLength bytes.
std::string sanitize_say(std::string_view text);

// What a viewer shows on hex h of w: `set` with `e` or the team letter and committed direction.
std::string gui_set(const World& w, Hex h);

// The commands that bring a viewer showing `before` to `after`: a `set` for every hex whose
// content (empty, or team and committed direction) differs, in all_hexes() order (A-4 .. I4),
// then `bscore` and `wscore` for the scores that changed. Nothing when they look the same.
std::vector<std::string> gui_changes(const World& before, const World& after);

// Everything a fresh viewer needs: a `set` for each of the 61 hexes in all_hexes() order, then
// `bscore` and `wscore`.
std::vector<std::string> gui_full(const World& w);

}  // namespace arbiter::abalone
