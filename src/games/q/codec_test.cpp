// Tests for the Q JSON codec: round trips, canonical encodings and rejection of malformed input.
#include "games/q/codec.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/rng.h"

#include "games/q/test_tiles.h"

namespace arbiter::q {
namespace {

using namespace test_tiles;

Json J(const char* text) {
  return Json::parse(text);
}

// The error message of a failed decode, or "" if it succeeded.
template <class T>
std::string error_of(const Expected<T>& r) {
  return r ? "" : r.error().message;
}

::testing::AssertionResult Contains(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << haystack << "\" lacks \"" << needle << "\"";
}

// --- tiles and coordinates ------------------------------------------------------------------

TEST(Codec, TileRoundTripsForEveryKind) {
  for (Tile t : all_kinds()) {
    auto back = decode_tile(encode_tile(t));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(encode_tile(kGreenEightStar), J(R"({"color": "green", "shape": "8star"})"));
}

TEST(Codec, TileRejectsMalformedShapes) {
  EXPECT_EQ(error_of(decode_tile(J(R"({"color": "red", "shape": "hexagon"})"))),
            "JTile: unknown shape \"hexagon\"");
  EXPECT_TRUE(Contains(error_of(decode_tile(J(R"({"color": "pink", "shape": "star"})"))),
                       "unknown color \"pink\""));
  EXPECT_TRUE(
      Contains(error_of(decode_tile(J(R"({"shape": "star"})"))), "missing field \"color\""));
  EXPECT_TRUE(Contains(error_of(decode_tile(J(R"({"color": "red"})"))), "missing field \"shape\""));
  EXPECT_TRUE(Contains(error_of(decode_tile(J(R"({"color": "red", "shape": "star", "x": 1})"))),
                       "unknown field \"x\""));
  EXPECT_TRUE(
      Contains(error_of(decode_tile(J(R"({"color": 3, "shape": "star"})"))), "expected a string"));
  EXPECT_TRUE(Contains(error_of(decode_tile(J(R"(["red", "star"])"))), "expected an object"));
  EXPECT_FALSE(decode_tile(J(R"({"color": "Red", "shape": "star"})")));
}

TEST(Codec, TilesRoundTripAndRejectNonArrays) {
  const Tiles tiles = {kRedStar, kBlueSquare, kRedStar};
  EXPECT_EQ(decode_tiles(encode_tiles(tiles)), tiles);
  EXPECT_EQ(decode_tiles(J("[]")), Tiles{});
  EXPECT_TRUE(Contains(error_of(decode_tiles(J(R"({"color": "red", "shape": "star"})"))),
                       "expected an array"));
  EXPECT_TRUE(
      Contains(error_of(decode_tiles(J(R"([{"color": "red", "shape": "star"}, 7])"))), "JTiles 1"));
}

TEST(Codec, CoordRoundTrips) {
  EXPECT_EQ(encode_coord({-3, 7}), J(R"({"row": -3, "column": 7})"));
  EXPECT_EQ(decode_coord(J(R"({"column": 7, "row": -3})")), (Coord{-3, 7}));
}

TEST(Codec, CoordRejectsMalformedShapes) {
  EXPECT_TRUE(Contains(error_of(decode_coord(J(R"({"row": 1})"))), "missing field \"column\""));
  EXPECT_TRUE(
      Contains(error_of(decode_coord(J(R"({"row": 1.5, "column": 0})"))), "expected an integer"));
  EXPECT_TRUE(
      Contains(error_of(decode_coord(J(R"({"row": "1", "column": 0})"))), "expected an integer"));
  EXPECT_TRUE(Contains(error_of(decode_coord(J(R"({"row": 1, "column": 0, "z": 0})"))),
                       "unknown field \"z\""));
  EXPECT_TRUE(
      Contains(error_of(decode_coord(J(R"({"row": 99999999999, "column": 0})"))), "out of range"));
  EXPECT_FALSE(decode_coord(J("[1, 2]")));
}

// --- maps -----------------------------------------------------------------------------------

TEST(Codec, MapEncodesRowsAndCellsAscending) {
  Map m;
  m.place({1, 5}, kRedStar);
  m.place({-2, 0}, kBlueSquare);
  m.place({1, -1}, kGreenEightStar);
  EXPECT_EQ(encode_map(m), J(R"([
      [-2, [0, {"color": "blue", "shape": "square"}]],
      [1, [-1, {"color": "green", "shape": "8star"}], [5, {"color": "red", "shape": "star"}]]])"));
  EXPECT_EQ(encode_map(Map{}), J("[]"));
}

TEST(Codec, MapDecodesAnyOrderAndRoundTrips) {
  const Json unsorted = J(R"([
      [1, [5, {"color": "red", "shape": "star"}], [-1, {"color": "green", "shape": "8star"}]],
      [-2, [0, {"color": "blue", "shape": "square"}]]])");
  auto m = decode_map(unsorted);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->size(), 3u);
  EXPECT_EQ(m->at({1, -1}), kGreenEightStar);
  EXPECT_EQ(decode_map(encode_map(*m)), *m);
  EXPECT_EQ(encode_map(*m)[0][0], -2);
  EXPECT_EQ(decode_map(J("[]")), Map{});
}

TEST(Codec, MapRejectsMalformedShapes) {
  const char* tile = R"({"color": "red", "shape": "star"})";
  auto map_error = [&](const std::string& text) { return error_of(decode_map(Json::parse(text))); };
  EXPECT_TRUE(Contains(map_error("{}"), "JMap: expected an array"));
  EXPECT_TRUE(Contains(map_error("[[0]]"), "at least one cell"));
  EXPECT_TRUE(Contains(map_error("[0]"), "JMap entry 0"));
  EXPECT_TRUE(Contains(map_error(std::string("[[0, [0, ") + tile + "]], [0, [1, " + tile + "]]]"),
                       "duplicate row 0"));
  EXPECT_TRUE(Contains(map_error(std::string("[[2, [0, ") + tile + "], [0, " + tile + "]]]"),
                       "JMap row 2: duplicate column 0"));
  EXPECT_TRUE(Contains(map_error(std::string("[[2, [0, ") + tile + ", 1]]]"), "JMap row 2"));
  EXPECT_TRUE(Contains(map_error(R"([[2, [0, {"color": "red", "shape": "hexagon"}]]])"),
                       "JMap row 2, column 0: JTile: unknown shape \"hexagon\""));
  EXPECT_TRUE(Contains(map_error(std::string("[[\"a\", [0, ") + tile + "]]]"), "row index"));
  EXPECT_TRUE(Contains(map_error(std::string("[[0, [0.5, ") + tile + "]]]"), "column index"));
}

// --- placements and actions -----------------------------------------------------------------

TEST(Codec, PlacementRoundTrips) {
  const Placement p{{2, -3}, kBlueSquare};
  const Json j = J(R"({"coordinate": {"row": 2, "column": -3},
                       "1tile": {"color": "blue", "shape": "square"}})");
  EXPECT_EQ(encode_placement(p), j);
  EXPECT_EQ(decode_placement(j), p);
  const Placements ps = {p, {{2, -2}, kRedStar}};
  EXPECT_EQ(decode_placements(encode_placements(ps)), ps);
}

TEST(Codec, PlacementsRejectMalformedShapes) {
  EXPECT_TRUE(Contains(error_of(decode_placements(J("[]"))), "at least one placement"));
  EXPECT_TRUE(Contains(error_of(decode_placements(J("{}"))), "expected an array"));
  EXPECT_TRUE(
      Contains(error_of(decode_placements(J(R"([{"coordinate": {"row": 0, "column": 1}}])"))),
               "missing field \"1tile\""));
  EXPECT_TRUE(Contains(error_of(decode_placement(J(R"({"coordinate": {"row": 0, "column": 1},
      "tile": {"color": "red", "shape": "star"}})"))),
                       "unknown field \"tile\""));
}

TEST(Codec, ActionRoundTrips) {
  EXPECT_EQ(encode_action(Pass{}), J(R"("pass")"));
  EXPECT_EQ(encode_action(Replace{}), J(R"("replace")"));
  EXPECT_EQ(decode_action(J(R"("pass")")), Action(Pass{}));
  EXPECT_EQ(decode_action(J(R"("replace")")), Action(Replace{}));
  const Placements ps = {{{0, 1}, kRedStar}};
  EXPECT_EQ(decode_action(encode_action(ps)), Action(ps));
}

TEST(Codec, ActionRejectsMalformedShapes) {
  EXPECT_FALSE(decode_action(J(R"("PASS")")));
  EXPECT_FALSE(decode_action(J(R"("void")")));
  EXPECT_FALSE(decode_action(J("[]")));
  EXPECT_FALSE(decode_action(J("7")));
  EXPECT_FALSE(decode_action(J(R"({"coordinate": {"row": 0, "column": 1},
                                   "1tile": {"color": "red", "shape": "star"}})")));
}

// --- JPub and JState ------------------------------------------------------------------------

const char* kPub = R"({
  "map": [[0, [0, {"color": "red", "shape": "star"}]]],
  "players": [{"score": 9999999, "tile*": [{"color": "blue", "shape": "square"}]}, 3, 0],
  "tile*": 17})";

TEST(Codec, ViewDecodesTheActivePlayerAndTheOthers) {
  auto v = decode_view(J(kPub));
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->map.at({0, 0}), kRedStar);
  EXPECT_EQ(v->hand, Tiles{kBlueSquare});
  EXPECT_EQ(v->score, 9999999);
  EXPECT_EQ(v->others, (std::vector<std::int64_t>{3, 0}));
  EXPECT_EQ(v->pile, 17u);
  EXPECT_EQ(encode_view(*v), J(kPub));
}

TEST(Codec, ViewAcceptsANameButDoesNotEncodeIt) {
  Json j = J(kPub);
  j["players"][0]["name"] = "alice";
  auto v = decode_view(j);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(encode_view(*v), J(kPub));
}

TEST(Codec, ViewRejectsMalformedShapes) {
  auto with = [](const char* pointer, Json value) {
    Json j = J(kPub);
    j[Json::json_pointer(pointer)] = std::move(value);
    return error_of(decode_view(j));
  };
  EXPECT_TRUE(Contains(with("/players", Json::array()), "players"));
  EXPECT_TRUE(Contains(with("/players/0/score", -1), "natural"));
  EXPECT_TRUE(Contains(with("/players/0/name", 5), "name"));
  EXPECT_TRUE(Contains(with("/players/1", "x"), "players 1"));
  EXPECT_TRUE(Contains(with("/players/0/tile*/0/shape", "hexagon"), "unknown shape"));
  EXPECT_TRUE(Contains(with("/tile*", Json::array()), "tile*"));
  EXPECT_TRUE(Contains(with("/extra", 1), "unknown field \"extra\""));
  Json j = J(kPub);
  j.erase("map");
  EXPECT_TRUE(Contains(error_of(decode_view(j)), "missing field \"map\""));
}

const char* kState = R"({
  "map": [[0, [0, {"color": "red", "shape": "star"}]]],
  "players": [{"score": 4, "tile*": [{"color": "blue", "shape": "square"}], "name": "Ann"},
              {"score": 0, "tile*": []}],
  "tile*": [{"color": "green", "shape": "8star"}, {"color": "red", "shape": "star"}]})";

TEST(Codec, TableRoundTripsWithOptionalNames) {
  auto t = decode_table(J(kState));
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->players.size(), 2u);
  EXPECT_EQ(t->players[0].name, "Ann");
  EXPECT_EQ(t->players[0].score, 4);
  EXPECT_EQ(t->players[0].hand, Tiles{kBlueSquare});
  EXPECT_EQ(t->players[1].name, std::nullopt);
  EXPECT_EQ(t->pile, (Tiles{kGreenEightStar, kRedStar}));
  EXPECT_EQ(encode_table(*t), J(kState));
  EXPECT_EQ(decode_table(encode_table(*t)), *t);
}

TEST(Codec, TableRejectsMalformedShapes) {
  auto with = [](const char* pointer, Json value) {
    Json j = J(kState);
    j[Json::json_pointer(pointer)] = std::move(value);
    return error_of(decode_table(j));
  };
  EXPECT_TRUE(Contains(with("/players", Json::array()), "players"));
  EXPECT_TRUE(Contains(with("/players/1", 0), "JState: players 1"));
  EXPECT_TRUE(Contains(with("/tile*", 3), "tile*"));
  EXPECT_TRUE(Contains(with("/tile*/1/color", "mauve"), "unknown color"));
  EXPECT_TRUE(Contains(with("/players/0/score", 1.5), "score"));
}

// --- text writers --------------------------------------------------------------------------

// The text writers must write exactly what dump() writes for the Json encoders: random views
// (maps with rows and columns of both signs, hands of any size, several seats) and actions.
TEST(Codec, TextWritersAgreeWithTheJsonEncoders) {
  Rng rng(2026);
  auto tile = [&] { return all_kinds()[rng.below(36)]; };
  auto coordinate = [&] { return static_cast<std::int32_t>(rng.below(41)) - 20; };
  for (int i = 0; i < 500; ++i) {
    View v;
    const auto cells = rng.below(120);
    for (std::uint64_t k = 0; k < cells; ++k) {
      const Coord c{coordinate(), coordinate()};
      if (!v.map.occupied(c)) v.map.place(c, tile());
    }
    for (auto k = rng.below(7); k > 0; --k) v.hand.push_back(tile());
    v.score = static_cast<std::int64_t>(rng.below(1000));
    for (auto k = rng.below(4); k > 0; --k) v.others.push_back(static_cast<std::int64_t>(rng.below(500)));
    v.pile = rng.below(1080);
    std::string text;
    write_view(text, v);
    ASSERT_EQ(text, dump(encode_view(v))) << "view " << i;

    std::string tiles;
    write_tiles(tiles, v.hand);
    ASSERT_EQ(tiles, dump(encode_tiles(v.hand)));

    Placements ps;
    for (auto k = rng.below(6) + 1; k > 0; --k) ps.push_back({{coordinate(), coordinate()}, tile()});
    for (const Action& a : {Action{Pass{}}, Action{Replace{}}, Action{ps}}) {
      std::string action;
      write_action(action, a);
      ASSERT_EQ(action, dump(encode_action(a)));
    }
  }
}

// A match's log writer reuses the map's text until the map grows: over a map growing by zero to
// three tiles a view, with hands and scores changing every time, it writes what dump() does.
TEST(Codec, LogWriterAgreesWithTheJsonEncoderOverAGrowingMap) {
  Rng rng(19);
  auto tile = [&] { return all_kinds()[rng.below(36)]; };
  LogWriter writer;
  View v;
  for (int i = 0; i < 400; ++i) {
    for (auto k = rng.below(4); k > 0; --k) {
      const Coord c{static_cast<std::int32_t>(rng.below(31)) - 15,
                    static_cast<std::int32_t>(rng.below(31)) - 15};
      if (!v.map.occupied(c)) v.map.place(c, tile());
    }
    v.hand.clear();
    for (auto k = rng.below(7); k > 0; --k) v.hand.push_back(tile());
    v.score = static_cast<std::int64_t>(rng.below(300));
    v.others = {static_cast<std::int64_t>(rng.below(300))};
    v.pile = rng.below(100);
    std::string text = "prefix";
    writer.write_json(text, v);
    ASSERT_EQ(text, "prefix" + dump(encode_view(v))) << "view " << i;
  }
  // A tile far outside the grid (kept apart by the map) lands in its row like any other.
  v.map.place({3, 1'000'000}, tile());
  v.map.place({-900'000, 2}, tile());
  std::string far_text;
  writer.write_json(far_text, v);
  EXPECT_EQ(far_text, dump(encode_view(v)));
  // A smaller map is a new match: written whole, nothing of the old one kept.
  View next;
  next.map.place({0, 0}, tile());
  next.map.place({0, 1}, tile());
  std::string next_text;
  writer.write_json(next_text, next);
  EXPECT_EQ(next_text, dump(encode_view(next)));
}

// Answers tell the writer which tiles a map gained. Over a game of accepted answers, rejected
// ones (their tiles never land), maps that grew by tiles no answer named, and answers naming a
// taken cell, it still writes what dump() does.
TEST(Codec, LogWriterFollowsAnswersAndIsNotFooledByThem) {
  Rng rng(23);
  auto tile = [&] { return all_kinds()[rng.below(36)]; };
  auto coordinate = [&] { return static_cast<std::int32_t>(rng.below(41)) - 20; };
  LogWriter writer;
  View v;
  v.map.place({0, 0}, tile());
  int accepted = 0;
  for (int i = 0; i < 600; ++i) {
    std::string text;
    writer.write_json(text, v);
    ASSERT_EQ(text, dump(encode_view(v))) << "view " << i;

    Placements ps;
    for (auto k = rng.below(4) + 1; k > 0; --k) {
      const Coord c{coordinate(), coordinate()};
      // Now and then a taken cell, named with the tile that is there.
      if (auto there = v.map.at(c); there && rng.below(8) == 0) ps.push_back({c, *there});
      if (v.map.occupied(c) || std::any_of(ps.begin(), ps.end(),
                                           [&](const Placement& p) { return p.coord == c; }))
        continue;
      ps.push_back({c, tile()});
    }
    std::string answer;
    writer.write_json(answer, Action{ps});
    switch (rng.below(4)) {
      case 0:  // rejected: nothing lands
        break;
      case 1:  // accepted, and one more tile no answer named
        for (const Placement& p : ps)
          if (!v.map.occupied(p.coord)) v.map.place(p.coord, p.tile);
        if (const Coord c{coordinate(), coordinate()}; !v.map.occupied(c)) v.map.place(c, tile());
        break;
      default:  // accepted
        for (const Placement& p : ps)
          if (!v.map.occupied(p.coord)) v.map.place(p.coord, p.tile);
        ++accepted;
    }
  }
  EXPECT_GT(accepted, 200);
}

}  // namespace
}  // namespace arbiter::q
