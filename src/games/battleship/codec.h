// The JSON forms of docs/games/battleship.md §3 (Config, Placement, Shot, ShotResult, View):
// strict decoders with one-line errors (unknown fields, wrong types and out-of-range numbers are
// rejected; omitted Config fields take their defaults) and canonical encoders, so that
// decode(encode(x)) == x. Whether a fleet or a shot is legal is the rules' business (state.h).
#pragma once

#include "core/json.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

// {"rows", "cols", "ships", "no_touch", "announce_sunk", "salvo", "max_turns"}; rows and cols
// 5..26, ships 1 or more lengths 1..max(rows, cols) that cover at most the grid (with no_touch,
// with room for the gaps), max_turns 1..100000.
Json encode_config(const Config& c);
Expected<Config> decode_config(const Json& j);

// {"row": r, "col": c}
Json encode_cell(Cell c);
Expected<Cell> decode_cell(const Json& j);

// {"length", "row", "col", "dir": "h" | "v"}; a Placement is a list of them.
Json encode_ship(const Ship& s);
Expected<Ship> decode_ship(const Json& j);
Json encode_fleet(const Fleet& f);
Expected<Fleet> decode_fleet(const Json& j);

// One shot is a Shot object; any other number (a salvo) a list of Shots. Decoding accepts a
// Shot or a list of any length (the rules judge the count).
Json encode_shots(const Shots& s);
Expected<Shots> decode_shots(const Json& j);

// {"row", "col", "result": "miss" | "hit" | "sunk", "length"} with "length" only for "sunk".
Json encode_shot_result(const ShotResult& r);
Expected<ShotResult> decode_shot_result(const Json& j);

// {"turn", "you", "config", "fleet", "incoming", "outgoing"}: the View of §3, "config" included.
Json encode_view(const View& v);
Expected<View> decode_view(const Json& j);

}  // namespace arbiter::battleship
