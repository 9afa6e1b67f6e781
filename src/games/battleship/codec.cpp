// Battleship's JSON forms (docs/games/battleship.md §3): strict decoders, canonical encoders.
#include "games/battleship/codec.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "games/battleship/state.h"

namespace arbiter::battleship {
namespace {

// Coordinates beyond this are malformed rather than off the grid: they could not be stored.
constexpr std::int64_t kCoordLimit = 1'000'000'000;

std::unexpected<Error> within(std::string_view where, const Error& e) {
  return fail(fmt::format("{}: {}", where, e.message));
}

Expected<std::string> string_field(const Json& j, std::string_view key, std::string_view what) {
  auto field = member(j, key, what);
  if (!field) return std::unexpected(field.error());
  return arbiter::to_string(**field, fmt::format("{}: {}", what, key));
}

// Decodes every element of array j with `decode`.
template <class T, class F>
Expected<std::vector<T>> decode_list(const Json& j, std::string_view what, F decode) {
  if (!j.is_array()) return fail(fmt::format("{}: expected a list, got {}", what, excerpt(j)));
  std::vector<T> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto v = decode(j[i]);
    if (!v) return within(fmt::format("{} [{}]", what, i), v.error());
    out.push_back(std::move(*v));
  }
  return out;
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::miss:
      return "miss";
    case Outcome::hit:
      return "hit";
    case Outcome::sunk:
      return "sunk";
  }
  return "miss";
}

}  // namespace

Json encode_config(const Config& c) {
  return {{"rows", c.rows},
          {"cols", c.cols},
          {"ships", c.ships},
          {"no_touch", c.no_touch},
          {"announce_sunk", c.announce_sunk},
          {"salvo", c.salvo},
          {"max_turns", c.max_turns}};
}

Expected<Config> decode_config(const Json& j) {
  constexpr std::string_view what = "Battleship config";
  if (auto ok = only_keys(
          j, {"rows", "cols", "ships", "no_touch", "announce_sunk", "salvo", "max_turns"}, what);
      !ok)
    return std::unexpected(ok.error());
  Config c;
  for (auto [key, slot] : {std::pair{"rows", &c.rows}, std::pair{"cols", &c.cols}}) {
    if (!j.contains(key)) continue;
    auto v = int_field(j, key, kMinGrid, kMaxGrid, what);
    if (!v) return std::unexpected(v.error());
    *slot = *v;
  }
  if (j.contains("max_turns")) {
    auto v = int_field(j, "max_turns", 1, kMaxTurnsLimit, what);
    if (!v) return std::unexpected(v.error());
    c.max_turns = *v;
  }
  for (auto [key, slot] :
       {std::pair{"no_touch", &c.no_touch}, std::pair{"announce_sunk", &c.announce_sunk},
        std::pair{"salvo", &c.salvo}}) {
    if (!j.contains(key)) continue;
    auto v = to_bool(j[key], fmt::format("{}: {}", what, key));
    if (!v) return std::unexpected(v.error());
    *slot = *v;
  }
  const int longest = std::max(c.rows, c.cols);
  if (j.contains("ships")) {
    const Json& ships = j["ships"];
    if (!ships.is_array() || ships.empty())
      return fail(fmt::format("{}: ships: expected a non-empty list of lengths, got {}", what,
                              excerpt(ships)));
    c.ships.clear();
    for (std::size_t i = 0; i < ships.size(); ++i) {
      const std::string where = fmt::format("{}: ships [{}]", what, i);
      auto v = to_int(ships[i], where);
      if (!v) return std::unexpected(v.error());
      if (*v < 1 || *v > longest)
        return fail(fmt::format("{} must be 1 to {} on a {}x{} grid, got {}", where, longest,
                                c.rows, c.cols, *v));
      c.ships.push_back(static_cast<int>(*v));
    }
  }
  for (int length : c.ships)
    if (length > longest)
      return fail(fmt::format("{}: a ship of length {} does not fit on a {}x{} grid", what, length,
                              c.rows, c.cols));
  // Room for the fleet: its cells within the grid; with no_touch, each ship with the row of
  // cells below it and the column to its right (the gaps) within the grid grown by one.
  long cells = 0, padded = 0;
  for (int length : c.ships) {
    cells += length;
    padded += 2L * (length + 1);
  }
  if (cells > static_cast<long>(c.rows) * c.cols)
    return fail(fmt::format("{}: the fleet's {} cells do not fit on a {}x{} grid", what, cells,
                            c.rows, c.cols));
  if (c.no_touch && padded > static_cast<long>(c.rows + 1) * (c.cols + 1))
    return fail(fmt::format("{}: the fleet cannot be placed on a {}x{} grid without touching", what,
                            c.rows, c.cols));
  return c;
}

Json encode_cell(Cell c) {
  return {{"row", c.row}, {"col", c.col}};
}

Expected<Cell> decode_cell(const Json& j) {
  constexpr std::string_view what = "Shot";
  if (auto ok = only_keys(j, {"row", "col"}, what); !ok) return std::unexpected(ok.error());
  auto row = int_field(j, "row", -kCoordLimit, kCoordLimit, what);
  if (!row) return std::unexpected(row.error());
  auto col = int_field(j, "col", -kCoordLimit, kCoordLimit, what);
  if (!col) return std::unexpected(col.error());
  return Cell{*row, *col};
}

Json encode_ship(const Ship& s) {
  return {{"length", s.length},
          {"row", s.at.row},
          {"col", s.at.col},
          {"dir", s.dir == Dir::h ? "h" : "v"}};
}

Expected<Ship> decode_ship(const Json& j) {
  constexpr std::string_view what = "ship";
  if (auto ok = only_keys(j, {"length", "row", "col", "dir"}, what); !ok)
    return std::unexpected(ok.error());
  auto length = int_field(j, "length", 1, kMaxGrid, what);
  if (!length) return std::unexpected(length.error());
  auto row = int_field(j, "row", -kCoordLimit, kCoordLimit, what);
  if (!row) return std::unexpected(row.error());
  auto col = int_field(j, "col", -kCoordLimit, kCoordLimit, what);
  if (!col) return std::unexpected(col.error());
  auto dir = string_field(j, "dir", what);
  if (!dir) return std::unexpected(dir.error());
  if (*dir != "h" && *dir != "v")
    return fail(fmt::format("ship: dir must be \"h\" or \"v\", got {}", excerpt(Json(*dir))));
  return Ship{*length, {*row, *col}, *dir == "h" ? Dir::h : Dir::v};
}

Json encode_fleet(const Fleet& f) {
  Json j = Json::array();
  for (const Ship& s : f) j.push_back(encode_ship(s));
  return j;
}

Expected<Fleet> decode_fleet(const Json& j) {
  return decode_list<Ship>(j, "Placement", decode_ship);
}

Json encode_shots(const Shots& s) {
  if (s.size() == 1) return encode_cell(s.front());
  Json j = Json::array();
  for (Cell c : s) j.push_back(encode_cell(c));
  return j;
}

Expected<Shots> decode_shots(const Json& j) {
  if (j.is_object()) {
    auto c = decode_cell(j);
    if (!c) return std::unexpected(c.error());
    return Shots{*c};
  }
  if (!j.is_array())
    return fail(fmt::format("shots: expected a Shot or a list of Shots, got {}", excerpt(j)));
  return decode_list<Cell>(j, "salvo", decode_cell);
}

Json encode_shot_result(const ShotResult& r) {
  Json j = {{"row", r.cell.row}, {"col", r.cell.col}, {"result", outcome_name(r.result)}};
  if (r.result == Outcome::sunk) j["length"] = r.length;
  return j;
}

Expected<ShotResult> decode_shot_result(const Json& j) {
  constexpr std::string_view what = "ShotResult";
  if (auto ok = only_keys(j, {"row", "col", "result", "length"}, what); !ok)
    return std::unexpected(ok.error());
  auto row = int_field(j, "row", -kCoordLimit, kCoordLimit, what);
  if (!row) return std::unexpected(row.error());
  auto col = int_field(j, "col", -kCoordLimit, kCoordLimit, what);
  if (!col) return std::unexpected(col.error());
  auto result = string_field(j, "result", what);
  if (!result) return std::unexpected(result.error());
  ShotResult r{{*row, *col}, Outcome::miss, 0};
  if (*result == "hit") {
    r.result = Outcome::hit;
  } else if (*result == "sunk") {
    r.result = Outcome::sunk;
  } else if (*result != "miss") {
    return fail(fmt::format("ShotResult: result must be \"miss\", \"hit\" or \"sunk\", got {}",
                            excerpt(Json(*result))));
  }
  if (r.result == Outcome::sunk) {
    auto length = int_field(j, "length", 1, kMaxGrid, what);
    if (!length) return std::unexpected(length.error());
    r.length = *length;
  } else if (j.contains("length")) {
    return fail(fmt::format("ShotResult: \"length\" goes only with \"sunk\", not \"{}\"", *result));
  }
  return r;
}

Json encode_view(const View& v) {
  Json incoming = Json::array(), outgoing = Json::array();
  for (const ShotResult& r : v.incoming) incoming.push_back(encode_shot_result(r));
  for (const ShotResult& r : v.outgoing) outgoing.push_back(encode_shot_result(r));
  return {{"turn", v.turn},
          {"you", v.you},
          {"config", encode_config(v.config)},
          {"fleet", encode_fleet(v.fleet)},
          {"incoming", std::move(incoming)},
          {"outgoing", std::move(outgoing)}};
}

Expected<View> decode_view(const Json& j) {
  constexpr std::string_view what = "View";
  if (auto ok = only_keys(j, {"turn", "you", "config", "fleet", "incoming", "outgoing"}, what); !ok)
    return std::unexpected(ok.error());
  View v;
  auto turn = int_field(j, "turn", 0, 2L * kMaxTurnsLimit, what);
  if (!turn) return std::unexpected(turn.error());
  v.turn = *turn;
  auto you = int_field(j, "you", 0, 1, what);
  if (!you) return std::unexpected(you.error());
  v.you = *you;
  for (std::string_view key : {"config", "fleet", "incoming", "outgoing"})
    if (!j.contains(key)) return fail(fmt::format("View: missing field \"{}\"", key));
  auto config = decode_config(j["config"]);
  if (!config) return within("View: config", config.error());
  v.config = std::move(*config);
  auto fleet = decode_fleet(j["fleet"]);
  if (!fleet) return within("View: fleet", fleet.error());
  v.fleet = std::move(*fleet);
  auto incoming = decode_list<ShotResult>(j["incoming"], "View: incoming", decode_shot_result);
  if (!incoming) return std::unexpected(incoming.error());
  v.incoming = std::move(*incoming);
  auto outgoing = decode_list<ShotResult>(j["outgoing"], "View: outgoing", decode_shot_result);
  if (!outgoing) return std::unexpected(outgoing.error());
  v.outgoing = std::move(*outgoing);
  return v;
}

}  // namespace arbiter::battleship
