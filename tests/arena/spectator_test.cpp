// Each game's spectator projection (GameEntry::spectate, the games' spectator.h) on every golden
// log: what a seat keeps to itself never reaches a spectator, what is public does, and no line,
// however damaged, makes a projection throw.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "arena/registry.h"
#include "core/rng.h"

namespace arbiter {
namespace {

namespace fs = std::filesystem;

std::vector<Json> read_log(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  auto lines = parse_json_values(text.str());
  EXPECT_TRUE(lines.has_value()) << p;
  return lines ? *lines : std::vector<Json>{};
}

// Every golden log of `game`, projected line by line.
std::vector<std::pair<std::vector<Json>, std::vector<Json>>> projected(const std::string& game) {
  const GameEntry* entry = find_game(game);
  EXPECT_NE(entry, nullptr);
  EXPECT_TRUE(entry->spectate) << game << " has no spectator projection";
  std::vector<std::pair<std::vector<Json>, std::vector<Json>>> out;
  for (const auto& f : fs::directory_iterator(ARBITER_GOLDEN_DIR)) {
    const std::string name = f.path().filename().string();
    if (!name.starts_with(game + "_") || f.path().extension() != ".jsonl") continue;
    auto full = read_log(f.path());
    std::vector<Json> shown;
    for (const Json& line : full) shown.push_back(entry->spectate(line));
    out.emplace_back(std::move(full), std::move(shown));
  }
  EXPECT_GE(out.size(), 4u) << game;
  return out;
}

bool contains_key(const Json& j, const std::string& key) {
  if (j.is_object()) {
    if (j.contains(key)) return true;
    for (const auto& [k, v] : j.items())
      if (contains_key(v, key)) return true;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (contains_key(v, key)) return true;
  }
  return false;
}

TEST(Spectator, QShowsTheMapScoresAndPlacementsButNoHand) {
  for (const auto& [full, shown] : projected("q")) {
    ASSERT_EQ(full.size(), shown.size());
    for (std::size_t i = 0; i < full.size(); ++i) {
      const Json& f = full[i];
      const Json& s = shown[i];
      if (f["type"] == "match") {
        EXPECT_FALSE(contains_key(s["config"], "table"));
      }
      if (f["type"] != "call") {
        EXPECT_EQ(f, s);
        continue;
      }
      const std::string call = f["call"];
      if (call == "setup" || call == "new_tiles") {
        EXPECT_FALSE(s.contains("args")) << s;
      } else if (call == "take_turn") {
        ASSERT_TRUE(s.contains("args")) << s;
        EXPECT_EQ(s["args"]["map"], f["args"]["map"]);
        EXPECT_FALSE(s["args"]["players"][0].contains("tile*")) << s;
        EXPECT_EQ(s["args"]["players"][0]["score"], f["args"]["players"][0]["score"]);
        EXPECT_EQ(s["args"]["tile*"], f["args"]["tile*"]);  // the pile's size is public
        EXPECT_EQ(s.contains("reply"), f.contains("reply") && f["verdict"] == "ok") << s;
      }
      EXPECT_EQ(s["verdict"], f["verdict"]);
      EXPECT_EQ(s["seat"], f["seat"]);
    }
  }
}

TEST(Spectator, BattleshipShowsEveryShotButNoFleet) {
  for (const auto& [full, shown] : projected("battleship")) {
    for (std::size_t i = 0; i < full.size(); ++i) {
      const Json& f = full[i];
      const Json& s = shown[i];
      EXPECT_FALSE(contains_key(s, "fleet")) << s;
      EXPECT_FALSE(contains_key(s, "incoming")) << s;
      if (f["type"] == "call" && f["call"] == "setup") {
        EXPECT_FALSE(s.contains("reply")) << s;
      }
      if (f["type"] == "call" && f["call"] == "take_turn") {
        EXPECT_EQ(s["args"]["outgoing"], f["args"]["outgoing"]);
        EXPECT_EQ(s["reply"], f["reply"]);
      }
    }
  }
}

TEST(Spectator, SpeedScrabbleShowsBoardShapesButNoLetter) {
  const std::regex letter("[A-Z]");
  std::size_t masked = 0;
  for (const auto& [full, shown] : projected("speed_scrabble")) {
    for (std::size_t i = 0; i < full.size(); ++i) {
      const Json& s = shown[i];
      if (!s.contains("message")) {
        EXPECT_EQ(full[i], s);
        continue;
      }
      Json params = s["message"];
      params.erase(0);
      EXPECT_FALSE(std::regex_search(dump(params), letter)) << s;
      EXPECT_EQ(dump(s).size(), dump(full[i]).size());  // the same shape, letter for '?'
      if (dump(s) != dump(full[i])) ++masked;
    }
  }
  EXPECT_GT(masked, 0u);
}

TEST(Spectator, DominosaShowsThePuzzleButNoSubmission) {
  for (const auto& [full, shown] : projected("dominosa")) {
    for (std::size_t i = 0; i < full.size(); ++i) {
      if (full[i]["type"] == "message") {
        EXPECT_EQ(shown[i]["message"], Json::array({full[i]["message"][0]})) << shown[i];
      } else {
        EXPECT_EQ(shown[i], full[i]);
      }
    }
  }
}

TEST(Spectator, AbaloneShowsTheWholeWorldButNoProgram) {
  for (const auto& [full, shown] : projected("abalone")) {
    for (std::size_t i = 0; i < full.size(); ++i) {
      EXPECT_FALSE(contains_key(shown[i], "source"));
      if (!contains_key(full[i], "source")) {
        EXPECT_EQ(shown[i], full[i]);
      }
    }
  }
}

// Random damage of real lines (keys dropped, values replaced by other types): never a throw.
TEST(Spectator, NoLineMakesAProjectionThrow) {
  Rng rng(7);
  const std::vector<Json> odd = {nullptr, 1, "x", Json::array(), Json::object(), Json::array({1, "A"}),
                                 Json{{"players", 3}}, Json{{"players", Json::array({5})}}};
  for (const auto& game : registered_games()) {
    for (const auto& [full, shown] : projected(game.name)) {
      for (const Json& line : full) {
        for (int k = 0; k < 4; ++k) {
          Json bad = line;
          if (bad.is_object() && !bad.empty()) {
            auto it = bad.begin();
            std::advance(it, rng.below(bad.size()));
            if (it.key() == "type") continue;
            it.value() = odd[rng.below(odd.size())];
            if (it.value().is_object() && !it.value().empty()) it.value()["players"] = odd[rng.below(odd.size())];
          }
          EXPECT_NO_THROW(game.spectate(bad)) << game.name << ": " << bad;
        }
      }
      for (const Json& o : odd) EXPECT_NO_THROW(game.spectate(o));
    }
  }
}

}  // namespace
}  // namespace arbiter
