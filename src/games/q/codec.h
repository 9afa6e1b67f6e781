// The JSON forms of docs/games/q.md §3 (JTile, JCoordinate, JMap, J1Placement, JPlacements,
// JAction, JPub, JState). Decoders accept exactly these shapes (JPlayer's "name" is optional) and
// return a one-line Error naming what is wrong; encoders produce the canonical form (JMap rows
// ascending, cells ascending by column).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "games/q/action.h"
#include "games/q/view.h"

namespace arbiter::q {

Json encode_tile(Tile t);
Expected<Tile> decode_tile(const Json& j);

Json encode_tiles(const Tiles& tiles);
Expected<Tiles> decode_tiles(const Json& j);

Json encode_coord(Coord c);
Expected<Coord> decode_coord(const Json& j);

Json encode_map(const Map& m);
Expected<Map> decode_map(const Json& j);  // rows distinct, columns distinct within a row

Json encode_placement(const Placement& p);
Expected<Placement> decode_placement(const Json& j);

Json encode_placements(const Placements& ps);
Expected<Placements> decode_placements(const Json& j);  // non-empty

Json encode_action(const Action& a);  // "pass" | "replace" | JPlacements
Expected<Action> decode_action(const Json& j);

Json encode_view(const View& v);  // JPub
Expected<View> decode_view(const Json& j);

Json encode_table(const Table& t);  // JState
Expected<Table> decode_table(const Json& j);

// The same forms appended as JSON text, byte for byte what dump() writes for the encoders above,
// without building a Json: the game log writes one on every call.
void write_tiles(std::string& out, const Tiles& tiles);
void write_action(std::string& out, const Action& a);
void write_view(std::string& out, const View& v);

// The same writers for the views, hands and answers of one match's game log, in order: the map
// only grows during a match, so its text is kept, row by row. When a map is the last one plus
// exactly the placements of the answers written since, only the rows they touch are written
// again; any other map is read whole.
// REQUIRES: every view comes from the same match, each map containing the one before.
class LogWriter {
 public:
  void write_json(std::string& out, const View& v);
  void write_json(std::string& out, const Tiles& tiles) { write_tiles(out, tiles); }
  void write_json(std::string& out, const Action& a);

 private:
  struct RowText {
    std::int32_t row = 0;
    std::vector<std::pair<std::int32_t, Tile>> cells;  // (column, tile), ascending columns
    std::string text;  // "[row,[column,JTile],...]" once written
    bool stale = true;
  };
  void update_map(const Map& map);
  // Adds a tile to rows_; false if its cell is taken there.
  bool add(Coord c, Tile t);

  std::size_t map_size_ = 0;
  std::vector<RowText> rows_;  // the rows of the map of map_size_ tiles, ascending
  std::string map_text_ = "[]";  // the same map as one JMap
  Placements pending_;  // the placements answered since the last view
};

}  // namespace arbiter::q
