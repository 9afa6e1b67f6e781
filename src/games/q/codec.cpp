// The JSON forms of docs/games/q.md §3: strict decoders with one-line errors, canonical encoders.
#include "games/q/codec.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace arbiter::q {
namespace {

// Coordinates beyond this cannot come from a real game (1080 tiles) and would let neighbour
// arithmetic overflow int32.
constexpr std::int64_t kCoordLimit = 1'000'000'000;

Expected<std::int32_t> to_coordinate(const Json& j, std::string_view what) {
  auto v = to_int(j, what);
  if (!v) return std::unexpected(v.error());
  if (*v < -kCoordLimit || *v > kCoordLimit)
    return fail(fmt::format("{}: {} is out of range", what, *v));
  return static_cast<std::int32_t>(*v);
}

Expected<std::int64_t> to_score(const Json& j, std::string_view what) {
  auto v = to_natural(j, what);
  if (!v) return std::unexpected(v.error());
  if (*v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return fail(fmt::format("{}: {} is too large", what, *v));
  return static_cast<std::int64_t>(*v);
}

// Prefixes an inner decoder's message with where it happened.
std::unexpected<Error> within(std::string_view where, const Error& e) {
  return fail(fmt::format("{}: {}", where, e.message));
}

// Decodes object j's field `key` with `decode`, which returns an Expected.
template <class F>
auto decode_field(const Json& j, std::string_view key, std::string_view what, F&& decode)
    -> decltype(decode(j)) {
  auto field = member(j, key, what);
  if (!field) return std::unexpected(field.error());
  return decode(**field);
}

Expected<Seated> decode_player(const Json& j) {
  constexpr std::string_view what = "JPlayer";
  if (auto ok = only_keys(j, {"score", "tile*", "name"}, what); !ok)
    return std::unexpected(ok.error());
  Seated seat;
  auto score =
      decode_field(j, "score", what, [](const Json& f) { return to_score(f, "JPlayer: score"); });
  if (!score) return std::unexpected(score.error());
  seat.score = *score;
  auto jtiles = member(j, "tile*", what);
  if (!jtiles) return std::unexpected(jtiles.error());
  auto tiles = decode_tiles(**jtiles);
  if (!tiles) return within("JPlayer: tile*", tiles.error());
  seat.hand = std::move(*tiles);
  if (auto it = j.find("name"); it != j.end()) {
    auto name = arbiter::to_string(*it, "JPlayer: name");
    if (!name) return std::unexpected(name.error());
    seat.name = std::move(*name);
  }
  return seat;
}

Json encode_player(std::int64_t score, const Tiles& hand, const std::optional<std::string>& name) {
  Json j = {{"score", score}, {"tile*", encode_tiles(hand)}};
  if (name) j["name"] = *name;
  return j;
}

}  // namespace

Json encode_tile(Tile t) {
  return {{"color", std::string(to_string(t.color))}, {"shape", std::string(to_string(t.shape))}};
}

Expected<Tile> decode_tile(const Json& j) {
  // The well-formed case first, without building a string (a course pile holds a thousand).
  if (j.is_object() && j.size() == 2) {
    const auto color = j.find("color");
    const auto shape = j.find("shape");
    if (color != j.end() && shape != j.end() && color->is_string() && shape->is_string()) {
      const auto c = color_from_string(color->get_ref<const std::string&>());
      const auto s = shape_from_string(shape->get_ref<const std::string&>());
      if (c && s) return Tile{*s, *c};
    }
  }
  constexpr std::string_view what = "JTile";
  if (auto ok = only_keys(j, {"color", "shape"}, what); !ok) return std::unexpected(ok.error());
  auto color = decode_field(j, "color", what,
                            [](const Json& f) { return arbiter::to_string(f, "JTile: color"); });
  if (!color) return std::unexpected(color.error());
  auto shape = decode_field(j, "shape", what,
                            [](const Json& f) { return arbiter::to_string(f, "JTile: shape"); });
  if (!shape) return std::unexpected(shape.error());
  auto c = color_from_string(*color);
  if (!c) return fail(fmt::format("JTile: unknown color {}", excerpt(Json(*color))));
  auto s = shape_from_string(*shape);
  if (!s) return fail(fmt::format("JTile: unknown shape {}", excerpt(Json(*shape))));
  return Tile{*s, *c};
}

Json encode_tiles(const Tiles& tiles) {
  Json j = Json::array();
  for (Tile t : tiles) j.push_back(encode_tile(t));
  return j;
}

Expected<Tiles> decode_tiles(const Json& j) {
  if (!j.is_array()) return fail(fmt::format("JTiles: expected an array, got {}", excerpt(j)));
  Tiles tiles;
  tiles.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto t = decode_tile(j[i]);
    if (!t) return within(fmt::format("JTiles {}", i), t.error());
    tiles.push_back(*t);
  }
  return tiles;
}

Json encode_coord(Coord c) {
  return {{"row", c.row}, {"column", c.column}};
}

Expected<Coord> decode_coord(const Json& j) {
  constexpr std::string_view what = "JCoordinate";
  if (auto ok = only_keys(j, {"row", "column"}, what); !ok) return std::unexpected(ok.error());
  auto row = decode_field(j, "row", what,
                          [](const Json& f) { return to_coordinate(f, "JCoordinate: row"); });
  if (!row) return std::unexpected(row.error());
  auto column = decode_field(j, "column", what,
                             [](const Json& f) { return to_coordinate(f, "JCoordinate: column"); });
  if (!column) return std::unexpected(column.error());
  return Coord{*row, *column};
}

Json encode_map(const Map& m) {
  Json rows = Json::array();
  Json* row = nullptr;
  std::int32_t current = 0;
  for (const auto& [c, t] : m.cells()) {
    if (!row || c.row != current) {
      current = c.row;
      rows.push_back(Json::array({c.row}));
      row = &rows.back();
    }
    row->push_back(Json::array({c.column, encode_tile(t)}));
  }
  return rows;
}

Expected<Map> decode_map(const Json& j) {
  if (!j.is_array())
    return fail(fmt::format("JMap: expected an array of rows, got {}", excerpt(j)));
  std::vector<std::pair<Coord, Tile>> cells;
  std::set<std::int32_t> rows;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Json& jrow = j[i];
    if (!jrow.is_array() || jrow.size() < 2)
      return fail(
          fmt::format("JMap entry {}: expected [row, cell, ...] with at least one cell, got {}", i,
                      excerpt(jrow)));
    auto r = to_coordinate(jrow[0], fmt::format("JMap entry {}: row index", i));
    if (!r) return std::unexpected(r.error());
    if (!rows.insert(*r).second) return fail(fmt::format("JMap: duplicate row {}", *r));
    std::set<std::int32_t> columns;
    for (std::size_t k = 1; k < jrow.size(); ++k) {
      const Json& cell = jrow[k];
      if (!cell.is_array() || cell.size() != 2)
        return fail(
            fmt::format("JMap row {}: expected a cell [column, JTile], got {}", *r, excerpt(cell)));
      auto c = to_coordinate(cell[0], fmt::format("JMap row {}: column index", *r));
      if (!c) return std::unexpected(c.error());
      auto t = decode_tile(cell[1]);
      if (!t) return within(fmt::format("JMap row {}, column {}", *r, *c), t.error());
      if (!columns.insert(*c).second)
        return fail(fmt::format("JMap row {}: duplicate column {}", *r, *c));
      cells.push_back({{*r, *c}, *t});
    }
  }
  return Map(cells);
}

Json encode_placement(const Placement& p) {
  return {{"coordinate", encode_coord(p.coord)}, {"1tile", encode_tile(p.tile)}};
}

Expected<Placement> decode_placement(const Json& j) {
  constexpr std::string_view what = "J1Placement";
  if (auto ok = only_keys(j, {"coordinate", "1tile"}, what); !ok)
    return std::unexpected(ok.error());
  auto c = decode_field(j, "coordinate", what, [&](const Json& f) -> Expected<Coord> {
    auto coord = decode_coord(f);
    if (!coord) return within(what, coord.error());
    return coord;
  });
  if (!c) return std::unexpected(c.error());
  auto t = decode_field(j, "1tile", what, [&](const Json& f) -> Expected<Tile> {
    auto tile = decode_tile(f);
    if (!tile) return within(what, tile.error());
    return tile;
  });
  if (!t) return std::unexpected(t.error());
  return Placement{*c, *t};
}

Json encode_placements(const Placements& ps) {
  Json j = Json::array();
  for (const Placement& p : ps) j.push_back(encode_placement(p));
  return j;
}

Expected<Placements> decode_placements(const Json& j) {
  if (!j.is_array()) return fail(fmt::format("JPlacements: expected an array, got {}", excerpt(j)));
  if (j.empty()) return fail("JPlacements: expected at least one placement, got []");
  Placements ps;
  ps.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto p = decode_placement(j[i]);
    if (!p) return within(fmt::format("JPlacements {}", i), p.error());
    ps.push_back(*p);
  }
  return ps;
}

Json encode_action(const Action& a) {
  if (std::holds_alternative<Pass>(a)) return "pass";
  if (std::holds_alternative<Replace>(a)) return "replace";
  return encode_placements(std::get<Placements>(a));
}

Expected<Action> decode_action(const Json& j) {
  if (j == "pass") return Pass{};
  if (j == "replace") return Replace{};
  if (!j.is_array())
    return fail(
        fmt::format("JAction: expected \"pass\", \"replace\" or JPlacements, got {}", excerpt(j)));
  auto ps = decode_placements(j);
  if (!ps) return within("JAction", ps.error());
  return Action{std::move(*ps)};
}

Json encode_view(const View& v) {
  Json players = Json::array({encode_player(v.score, v.hand, std::nullopt)});
  for (std::int64_t s : v.others) players.push_back(s);
  return {{"map", encode_map(v.map)}, {"players", std::move(players)}, {"tile*", v.pile}};
}

Expected<View> decode_view(const Json& j) {
  constexpr std::string_view what = "JPub";
  if (auto ok = only_keys(j, {"map", "players", "tile*"}, what); !ok)
    return std::unexpected(ok.error());
  View v;
  auto jmap = member(j, "map", what);
  if (!jmap) return std::unexpected(jmap.error());
  auto map = decode_map(**jmap);
  if (!map) return within(what, map.error());
  v.map = std::move(*map);

  auto jplayers = member(j, "players", what);
  if (!jplayers) return std::unexpected(jplayers.error());
  const Json& players = **jplayers;
  if (!players.is_array() || players.empty())
    return fail(
        fmt::format("JPub: players: expected [JPlayer, Natural, ...], got {}", excerpt(players)));
  auto me = decode_player(players[0]);
  if (!me) return within("JPub: players 0", me.error());
  v.hand = std::move(me->hand);
  v.score = me->score;
  for (std::size_t i = 1; i < players.size(); ++i) {
    auto s = to_score(players[i], fmt::format("JPub: players {}", i));
    if (!s) return std::unexpected(s.error());
    v.others.push_back(*s);
  }

  auto pile =
      decode_field(j, "tile*", what, [](const Json& f) { return to_natural(f, "JPub: tile*"); });
  if (!pile) return std::unexpected(pile.error());
  v.pile = *pile;
  return v;
}

Json encode_table(const Table& t) {
  Json players = Json::array();
  for (const Seated& s : t.players) players.push_back(encode_player(s.score, s.hand, s.name));
  return {
      {"map", encode_map(t.map)}, {"players", std::move(players)}, {"tile*", encode_tiles(t.pile)}};
}

Expected<Table> decode_table(const Json& j) {
  constexpr std::string_view what = "JState";
  if (auto ok = only_keys(j, {"map", "players", "tile*"}, what); !ok)
    return std::unexpected(ok.error());
  Table t;
  auto jmap = member(j, "map", what);
  if (!jmap) return std::unexpected(jmap.error());
  auto map = decode_map(**jmap);
  if (!map) return within(what, map.error());
  t.map = std::move(*map);

  auto jplayers = member(j, "players", what);
  if (!jplayers) return std::unexpected(jplayers.error());
  const Json& players = **jplayers;
  if (!players.is_array() || players.empty())
    return fail(fmt::format("JState: players: expected [JPlayer, ...], got {}", excerpt(players)));
  for (std::size_t i = 0; i < players.size(); ++i) {
    auto p = decode_player(players[i]);
    if (!p) return within(fmt::format("JState: players {}", i), p.error());
    t.players.push_back(std::move(*p));
  }

  auto jpile = member(j, "tile*", what);
  if (!jpile) return std::unexpected(jpile.error());
  auto pile = decode_tiles(**jpile);
  if (!pile) return within("JState: tile*", pile.error());
  t.pile = std::move(*pile);
  return t;
}

namespace {

// The 36 tiles' texts, made once by the Json encoder itself so the two forms cannot drift.
using TileTexts = std::array<std::string, kShapes * kColors>;
const TileTexts& tile_texts() {
  static const TileTexts texts = [] {
    TileTexts all;
    for (Tile kind : all_kinds())
      all[static_cast<int>(kind.shape) * kColors + static_cast<int>(kind.color)] =
          dump(encode_tile(kind));
    return all;
  }();
  return texts;
}

std::string_view tile_text(const TileTexts& texts, Tile t) {
  return texts[static_cast<int>(t.shape) * kColors + static_cast<int>(t.color)];
}

std::string_view tile_text(Tile t) {
  return tile_text(tile_texts(), t);
}

void write_coord(std::string& out, Coord c) {
  out += "{\"column\":";
  append_json_int(out, c.column);
  out += ",\"row\":";
  append_json_int(out, c.row);
  out += '}';
}

}  // namespace

void write_tiles(std::string& out, const Tiles& tiles) {
  out += '[';
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    if (i > 0) out += ',';
    out += tile_text(tiles[i]);
  }
  out += ']';
}

void write_action(std::string& out, const Action& a) {
  if (std::holds_alternative<Pass>(a)) {
    out += "\"pass\"";
  } else if (std::holds_alternative<Replace>(a)) {
    out += "\"replace\"";
  } else {
    const Placements& ps = std::get<Placements>(a);
    out += '[';
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (i > 0) out += ',';
      out += "{\"1tile\":";
      out += tile_text(ps[i].tile);
      out += ",\"coordinate\":";
      write_coord(out, ps[i].coord);
      out += '}';
    }
    out += ']';
  }
}

namespace {

// A JMap row is "[" row ",[" column "," JTile "]" ... "]"; the rows are joined by ",".
void open_row(std::string& out, std::int32_t row) {
  out += '[';
  append_json_int(out, row);
}

void append_cell(std::string& out, const TileTexts& texts, Coord c, Tile t) {
  out += ",[";
  append_json_int(out, c.column);
  out += ',';
  out += tile_text(texts, t);
  out += ']';
}

void write_map(std::string& out, const Map& map) {
  // Per cell: ",[" column "," JTile "]"; per row: "[" row "],": at most 11 characters a number.
  constexpr std::size_t kTileMax = 48, kCellMax = 2 + 11 + 1 + kTileMax + 1, kRowMax = 1 + 11 + 2;
  out.reserve(out.size() + 2 + map.size() * (kCellMax + kRowMax));
  out += '[';
  bool first_row = true;
  std::int32_t current = 0;
  const TileTexts& texts = tile_texts();
  map.visit_in_order([&](Coord c, Tile t) {
    if (first_row || c.row != current) {
      if (!first_row) out += "],";
      first_row = false;
      current = c.row;
      open_row(out, c.row);
    }
    append_cell(out, texts, c, t);
  });
  if (!first_row) out += ']';
  out += ']';
}

// JPub with the map's text given.
void write_view_with_map(std::string& out, std::string_view map_text, const View& v) {
  // One allocation for the whole view, with room for what a log line adds after it.
  out.reserve(out.size() + map_text.size() + 48 * v.hand.size() + 20 * v.others.size() + 256);
  out += "{\"map\":";
  out += map_text;
  out += ",\"players\":[{\"score\":";
  append_json_int(out, v.score);
  out += ",\"tile*\":";
  write_tiles(out, v.hand);
  out += '}';
  for (std::int64_t s : v.others) {
    out += ',';
    append_json_int(out, s);
  }
  out += "],\"tile*\":";
  append_json_uint(out, v.pile);
  out += '}';
}

}  // namespace

void write_view(std::string& out, const View& v) {
  std::string map_text;
  write_map(map_text, v.map);
  write_view_with_map(out, map_text, v);
}

void LogWriter::write_json(std::string& out, const View& v) {
  if (v.map.size() != map_size_) update_map(v.map);
  pending_.clear();
  write_view_with_map(out, map_text_, v);
}

void LogWriter::write_json(std::string& out, const Action& a) {
  write_action(out, a);
  if (const auto* ps = std::get_if<Placements>(&a))
    pending_.insert(pending_.end(), ps->begin(), ps->end());
}

bool LogWriter::add(Coord c, Tile t) {
  auto row = std::lower_bound(rows_.begin(), rows_.end(), c.row,
                              [](const RowText& r, std::int32_t n) { return r.row < n; });
  if (row == rows_.end() || row->row != c.row) row = rows_.insert(row, RowText{.row = c.row});
  auto cell = std::lower_bound(row->cells.begin(), row->cells.end(), c.column,
                               [](const auto& cell, std::int32_t n) { return cell.first < n; });
  if (cell != row->cells.end() && cell->first == c.column) return false;
  row->cells.insert(cell, {c.column, t});
  row->stale = true;
  return true;
}

void LogWriter::update_map(const Map& map) {
  // The map grew by exactly the pending placements when it has that many more tiles and holds
  // each of them, none on a cell that was taken (a rejected answer fails one of these).
  bool grown = map.size() == map_size_ + pending_.size();
  for (std::size_t i = 0; grown && i < pending_.size(); ++i)
    grown = map.at(pending_[i].coord) == pending_[i].tile && add(pending_[i].coord, pending_[i].tile);
  if (!grown) {
    rows_.clear();
    map.visit_in_order([&](Coord c, Tile t) {
      if (rows_.empty() || rows_.back().row != c.row) rows_.push_back(RowText{.row = c.row});
      rows_.back().cells.emplace_back(c.column, t);
    });
  }
  const TileTexts& texts = tile_texts();
  map_text_.clear();
  map_text_ += '[';
  for (RowText& r : rows_) {
    if (r.stale) {
      r.text.clear();
      open_row(r.text, r.row);
      for (const auto& [column, tile] : r.cells) append_cell(r.text, texts, {r.row, column}, tile);
      r.text += ']';
      r.stale = false;
    }
    if (map_text_.size() > 1) map_text_ += ',';
    map_text_ += r.text;
  }
  map_text_ += ']';
  map_size_ = map.size();
}

}  // namespace arbiter::q
