// Battleship's JSON forms: exact round trips, defaults, and one-line rejections.
#include "games/battleship/codec.h"

#include <gtest/gtest.h>

#include "games/battleship/game.h"

namespace arbiter::battleship {
namespace {

Json parse(std::string_view text) {
  auto j = parse_json(text);
  EXPECT_TRUE(j) << text;
  return j ? *j : Json();
}

// The error decoding `text` with `decode`, or "" when it decodes.
template <class F>
std::string error_of(F decode, std::string_view text) {
  auto v = decode(parse(text));
  return v ? "" : v.error().message;
}

TEST(Codec, ConfigRoundTripsWithEveryField) {
  Config c;
  c.rows = 7;
  c.cols = 26;
  c.ships = {1, 26, 2};
  c.no_touch = true;
  c.announce_sunk = false;
  c.salvo = true;
  c.max_turns = 9;
  const Json j = encode_config(c);
  EXPECT_EQ(dump(j), R"({"announce_sunk":false,"cols":26,"max_turns":9,"no_touch":true,"rows":7,)"
                     R"("salvo":true,"ships":[1,26,2]})");
  auto back = decode_config(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, c);
  back = decode_config(encode_config(Config{}));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, Config{});
}

TEST(Codec, OmittedConfigFieldsTakeTheirDefaults) {
  auto c = decode_config(parse("{}"));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, Config{});
  c = decode_config(parse(R"({"salvo": true, "rows": 12})"));
  ASSERT_TRUE(c);
  Config expected;
  expected.salvo = true;
  expected.rows = 12;
  EXPECT_EQ(*c, expected);
}

TEST(Codec, BadConfigsAreRejected) {
  auto e = [](std::string_view text) { return error_of(decode_config, text); };
  EXPECT_EQ(e("[]"), "Battleship config: expected an object, got []");
  EXPECT_EQ(e(R"({"colour": 1})"), R"(Battleship config: unknown field "colour")");
  EXPECT_EQ(e(R"({"rows": 4})"), "Battleship config: rows must be 5 to 26, got 4");
  EXPECT_EQ(e(R"({"cols": 27})"), "Battleship config: cols must be 5 to 26, got 27");
  EXPECT_EQ(e(R"({"rows": "10"})"), R"(Battleship config: rows: expected an integer, got "10")");
  EXPECT_EQ(e(R"({"rows": 10.0})"), "Battleship config: rows: expected an integer, got 10.0");
  EXPECT_EQ(e(R"({"salvo": 1})"), "Battleship config: salvo: expected true or false, got 1");
  EXPECT_EQ(e(R"({"no_touch": null})"),
            "Battleship config: no_touch: expected true or false, got null");
  EXPECT_EQ(e(R"({"announce_sunk": "yes"})"),
            R"(Battleship config: announce_sunk: expected true or false, got "yes")");
  EXPECT_EQ(e(R"({"max_turns": 0})"), "Battleship config: max_turns must be 1 to 100000, got 0");
  EXPECT_EQ(e(R"({"ships": []})"),
            "Battleship config: ships: expected a non-empty list of lengths, got []");
  EXPECT_EQ(e(R"({"ships": 5})"),
            "Battleship config: ships: expected a non-empty list of lengths, got 5");
  EXPECT_EQ(e(R"({"ships": [5, 0]})"),
            "Battleship config: ships [1] must be 1 to 10 on a 10x10 grid, got 0");
  EXPECT_EQ(e(R"({"rows": 5, "cols": 6, "ships": [7]})"),
            "Battleship config: ships [0] must be 1 to 6 on a 5x6 grid, got 7");
  EXPECT_EQ(e(R"({"rows": 5, "cols": 5, "ships": [5, 5, 5, 5, 5, 1]})"),
            "Battleship config: the fleet's 26 cells do not fit on a 5x5 grid");
  EXPECT_EQ(e(R"({"rows": 5, "cols": 5, "ships": [5, 5, 5, 5, 5]})"), "");
  EXPECT_EQ(e(R"({"rows": 5, "cols": 5, "ships": [5, 5, 5], "no_touch": true})"), "");
  EXPECT_EQ(e(R"({"rows": 5, "cols": 5, "ships": [5, 5, 5, 1], "no_touch": true})"),
            "Battleship config: the fleet cannot be placed on a 5x5 grid without touching");
}

TEST(Codec, FleetsRoundTrip) {
  const Fleet f = {{5, {0, 0}, Dir::h}, {1, {25, 25}, Dir::v}, {3, {-2, 40}, Dir::v}};
  const Json j = encode_fleet(f);
  EXPECT_EQ(dump(j.at(0)), R"({"col":0,"dir":"h","length":5,"row":0})");
  auto back = decode_fleet(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, f);
  EXPECT_EQ(*decode_fleet(Json::array()), Fleet{});
}

TEST(Codec, BadFleetsAreRejected) {
  auto e = [](std::string_view text) { return error_of(decode_fleet, text); };
  EXPECT_EQ(e("{}"), "Placement: expected a list, got {}");
  EXPECT_EQ(e(R"([{"length": 2, "row": 0, "col": 0}])"),
            R"(Placement [0]: ship: missing field "dir")");
  EXPECT_EQ(e(R"([{"length": 2, "row": 0, "col": 0, "dir": "d"}])"),
            R"(Placement [0]: ship: dir must be "h" or "v", got "d")");
  EXPECT_EQ(e(R"([{"length": 2, "row": 0, "col": 0, "dir": "h", "x": 1}])"),
            R"(Placement [0]: ship: unknown field "x")");
  EXPECT_EQ(e(R"([{"length": 0, "row": 0, "col": 0, "dir": "h"}])"),
            "Placement [0]: ship: length must be 1 to 26, got 0");
  EXPECT_EQ(e(R"([{"length": 2, "row": 1e3, "col": 0, "dir": "h"}])"),
            "Placement [0]: ship: row: expected an integer, got 1000.0");
  EXPECT_EQ(e(R"([{"length": 2, "row": 5000000000, "col": 0, "dir": "h"}])"),
            "Placement [0]: ship: row must be -1000000000 to 1000000000, got 5000000000");
}

TEST(Codec, AShotIsAnObjectAndASalvoAList) {
  const Shots one{{3, 4}};
  EXPECT_EQ(dump(encode_shots(one)), R"({"col":4,"row":3})");
  const Shots salvo{{0, 0}, {9, 9}};
  EXPECT_EQ(dump(encode_shots(salvo)), R"([{"col":0,"row":0},{"col":9,"row":9}])");
  for (const Shots& s : {one, salvo, Shots{}, Shots{{-1, 10}}}) {
    auto back = decode_shots(encode_shots(s));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, s);
  }
  // A one-shot list is a salvo of one, the same action.
  EXPECT_EQ(*decode_shots(parse(R"([{"row": 3, "col": 4}])")), one);
}

TEST(Codec, BadShotsAreRejected) {
  auto e = [](std::string_view text) { return error_of(decode_shots, text); };
  EXPECT_EQ(e("3"), "shots: expected a Shot or a list of Shots, got 3");
  EXPECT_EQ(e(R"({"row": 1})"), R"(Shot: missing field "col")");
  EXPECT_EQ(e(R"({"row": 1, "col": 2, "column": 3})"), R"(Shot: unknown field "column")");
  EXPECT_EQ(e(R"({"row": true, "col": 2})"), "Shot: row: expected an integer, got true");
  EXPECT_EQ(e(R"([{"row": 1, "col": 2}, "b2"])"),
            R"(salvo [1]: Shot: expected an object, got "b2")");
}

TEST(Codec, ShotResultsCarryALengthOnlyWhenSunk) {
  for (const ShotResult& r :
       {ShotResult{{1, 2}, Outcome::miss, 0}, ShotResult{{3, 4}, Outcome::hit, 0},
        ShotResult{{5, 6}, Outcome::sunk, 3}}) {
    auto back = decode_shot_result(encode_shot_result(r));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, r);
  }
  EXPECT_EQ(dump(encode_shot_result({{5, 6}, Outcome::sunk, 3})),
            R"({"col":6,"length":3,"result":"sunk","row":5})");
  EXPECT_EQ(dump(encode_shot_result({{5, 6}, Outcome::hit, 0})),
            R"({"col":6,"result":"hit","row":5})");
  auto e = [](std::string_view text) { return error_of(decode_shot_result, text); };
  EXPECT_EQ(e(R"({"row": 0, "col": 0, "result": "sunk"})"),
            R"(ShotResult: missing field "length")");
  EXPECT_EQ(e(R"({"row": 0, "col": 0, "result": "hit", "length": 2})"),
            R"(ShotResult: "length" goes only with "sunk", not "hit")");
  EXPECT_EQ(e(R"({"row": 0, "col": 0, "result": "splash"})"),
            R"(ShotResult: result must be "miss", "hit" or "sunk", got "splash")");
}

View sample_view() {
  View v;
  v.turn = 5;
  v.you = 1;
  v.config.salvo = true;
  v.config.ships = {4, 2};
  v.fleet = {{4, {0, 0}, Dir::v}, {2, {9, 8}, Dir::h}};
  v.incoming = {{{0, 0}, Outcome::hit, 0}, {{5, 5}, Outcome::miss, 0}};
  v.outgoing = {{{1, 1}, Outcome::sunk, 2}, {{2, 2}, Outcome::miss, 0}};
  return v;
}

TEST(Codec, ViewsRoundTrip) {
  const View v = sample_view();
  const Json j = encode_view(v);
  EXPECT_EQ(j.size(), 6u);
  EXPECT_TRUE(j.contains("config"));
  auto back = decode_view(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, v);
  auto empty = decode_view(encode_view(View{}));
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, View{});
}

TEST(Codec, BadViewsAreRejected) {
  Json j = encode_view(sample_view());
  j["you"] = 2;
  EXPECT_EQ(decode_view(j).error().message, "View: you must be 0 to 1, got 2");
  j = encode_view(sample_view());
  j.erase("config");
  EXPECT_EQ(decode_view(j).error().message, R"(View: missing field "config")");
  j = encode_view(sample_view());
  j["config"]["rows"] = 30;
  EXPECT_EQ(decode_view(j).error().message,
            "View: config: Battleship config: rows must be 5 to 26, got 30");
  j = encode_view(sample_view());
  j["outgoing"][1]["result"] = "wet";
  EXPECT_EQ(decode_view(j).error().message,
            R"(View: outgoing [1]: ShotResult: result must be "miss", "hit" or "sunk", got "wet")");
  j = encode_view(sample_view());
  j["opponent_fleet"] = Json::array();
  EXPECT_EQ(decode_view(j).error().message, R"(View: unknown field "opponent_fleet")");
}

TEST(Codec, SetupSendsOnlyTheConfig) {
  View v = sample_view();
  const Json args = Battleship::setup_args(v, "alice");
  EXPECT_EQ(dump(args), dump(Json::array({encode_config(v.config)})));
  auto back = Battleship::decode_setup_args(args);
  ASSERT_TRUE(back) << back.error().message;
  View expected;
  expected.config = v.config;
  EXPECT_EQ(*back, expected);
  EXPECT_FALSE(Battleship::decode_setup_args(parse("[]")));
  EXPECT_EQ(Battleship::decode_setup_args(parse(R"([{"rows": 3}])")).error().message,
            "Battleship config: rows must be 5 to 26, got 3");
}

TEST(Codec, TheGameBundleUsesTheseForms) {
  const Fleet f = {{2, {0, 0}, Dir::h}};
  EXPECT_EQ(Battleship::encode(f), encode_fleet(f));
  EXPECT_EQ(*Battleship::decode_setup(encode_fleet(f)), f);
  const Shots s{{1, 1}};
  EXPECT_EQ(Battleship::encode(s), encode_shots(s));
  EXPECT_EQ(*Battleship::decode_action(encode_shots(s)), s);
  EXPECT_EQ(Battleship::encode(Config{}), encode_config(Config{}));
}

}  // namespace
}  // namespace arbiter::battleship
