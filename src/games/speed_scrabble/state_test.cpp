// Tests for Speed Scrabble's rules (docs/games/speed_scrabble.md §1) and codec (§3), with a
// dictionary of every two-letter word so that a staircase of any tiles is a valid board.
#include "games/speed_scrabble/state.h"

#include <chrono>

#include <gtest/gtest.h>

#include "games/speed_scrabble/game.h"

namespace arbiter::speed_scrabble {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const Dictionary> pairs() {
  static const auto d = [] {
    std::vector<std::string> words;
    for (char a = 'a'; a <= 'z'; ++a)
      for (char b = 'a'; b <= 'z'; ++b) words.push_back({a, b});
    return std::make_shared<const Dictionary>(Dictionary::of(words, "pairs"));
  }();
  return d;
}

Board staircase(std::string_view tiles) {
  const int k = static_cast<int>(tiles.size());
  Board b(k / 2 + 1, std::string((k + 1) / 2, '.'));
  for (int i = 0; i < k; ++i) b[(i + 1) / 2][i / 2] = tiles[i];
  return b;
}

State dealt(int players = 2, Json overrides = Json::object(), std::uint64_t seed = 1) {
  overrides["players"] = players;
  auto c = decode_config(overrides);
  EXPECT_TRUE(c) << c.error().message;
  c->words = pairs();
  Rng rng(seed);
  return State::start(*c, rng);
}

std::vector<Notice> to(const Reaction<Notice>& r, Seat p) {
  std::vector<Notice> out;
  for (const auto& [seat, n] : r.notices)
    if (seat == p) out.push_back(n);
  return out;
}

TEST(Deal, EverySeatGetsItsOwnHandFromTheBag) {
  const State s = dealt(8);
  ASSERT_EQ(s.dealt().size(), 8u);
  std::string all;
  for (const Tiles& t : s.dealt()) {
    EXPECT_EQ(t.size(), 15u);
    all += t;
  }
  // Every letter comes from the Bananagrams bag, no more often than the bag holds it.
  const LetterCounts bag = count_letters(bag_letters("bananagrams"));
  const LetterCounts used = count_letters(all);
  for (int i = 0; i < 26; ++i) EXPECT_LE(used[i], bag[i]) << static_cast<char>('A' + i);
  EXPECT_EQ(bag_letters("bananagrams").size(), 144u);
  EXPECT_EQ(bag_letters("scrabble").size(), 98u);
  EXPECT_EQ(s.view(3).tiles, s.dealt()[3].substr(0, 7));
  EXPECT_NE(dealt(2, {}, 1).dealt(), dealt(2, {}, 2).dealt());
  EXPECT_EQ(dealt(2, {}, 1).dealt(), dealt(2, {}, 1).dealt());
}

TEST(Receive, AValidBoardUnlocksTheNextTileForEveryone) {
  State s = dealt(3);
  const auto r = s.receive(1, staircase(s.dealt()[1].substr(0, 7)), 5ms);
  EXPECT_FALSE(r.foul);
  ASSERT_EQ(to(r, 1).size(), 2u);
  EXPECT_EQ(to(r, 1)[0].verdict, "accepted");
  for (Seat p : {0, 1, 2}) {
    const auto n = to(r, p);
    ASSERT_FALSE(n.empty());
    EXPECT_EQ(n.back().kind, Notice::Kind::new_tiles);
    EXPECT_EQ(n.back().tiles, s.dealt()[p].substr(7, 1));  // each seat its own 8th tile
  }
  EXPECT_EQ(s.distributor()->available(), 8);
  EXPECT_EQ(s.timeline()[1], (std::vector<Milestone>{{7, 5ms}}));
}

TEST(Receive, TheSameBoardAgainChangesNothingAndAStaleOneIsNotHeldAgainstThePlayer) {
  State s = dealt();
  s.receive(0, staircase(s.dealt()[0].substr(0, 7)), 1ms);
  // Seat 1's 7-board arrives after tile 8 was unlocked: stale, not invalid.
  const auto late = s.receive(1, staircase(s.dealt()[1].substr(0, 7)), 2ms);
  ASSERT_EQ(late.notices.size(), 1u);
  EXPECT_EQ(late.notices[0].second.verdict.rfind("stale", 0), 0u);
  EXPECT_TRUE(s.timeline()[1].empty());
  // Resubmitting seat 0's 7-board is stale too and unlocks nothing more.
  s.receive(0, staircase(s.dealt()[0].substr(0, 7)), 3ms);
  EXPECT_EQ(s.distributor()->available(), 8);
}

TEST(Receive, BoardsAreCheckedAgainstTheTilesReallyDealt) {
  State s = dealt();
  Tiles fake = s.dealt()[0].substr(0, 7);
  fake[0] = fake[0] == 'Z' ? 'Y' : 'Z';  // a tile the player invents
  const auto r = s.receive(0, staircase(fake), 1ms);
  ASSERT_EQ(r.notices.size(), 1u);
  EXPECT_EQ(r.notices[0].second.verdict.rfind("letters:", 0), 0u);
  // Another seat's tiles are not yours either.
  if (s.dealt()[1].substr(0, 7) != s.dealt()[0].substr(0, 7)) {
    const auto other = s.receive(0, staircase(s.dealt()[1].substr(0, 7)), 2ms);
    EXPECT_EQ(other.notices[0].second.verdict.rfind("letters:", 0), 0u);
  }
  // More letters than held.
  const auto more = s.receive(0, staircase(s.dealt()[0].substr(0, 9)), 3ms);
  EXPECT_EQ(more.notices[0].second.verdict.rfind("letters:", 0), 0u);
  EXPECT_EQ(s.distributor()->available(), 7);
}

TEST(Receive, TooManyInvalidBoardsIsAFoul) {
  State s = dealt(2, {{"max_invalid", 3}});
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(s.receive(0, Board{"QQ", "Q."}, 1ms).foul);
  const auto r = s.receive(0, Board{"QQ", "Q."}, 1ms);
  ASSERT_TRUE(r.foul);
  EXPECT_EQ(r.foul->code, "too-many-invalid");
}

TEST(End, TheFirstFullBoardWins) {
  State s = dealt(2, {{"hand", 9}, {"start", 7}});
  Duration at = 1ms;
  for (int k = 7; k <= 9; ++k) {
    s.receive(1, staircase(s.dealt()[1].substr(0, k)), at);
    at += 1ms;
  }
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.ending(), "won");
  const Standings st = s.standings();
  EXPECT_EQ(st.winners, Seats{1});
  EXPECT_EQ(st.losers, Seats{0});
  EXPECT_EQ(st.scores, (std::vector<std::int64_t>{0, 9}));
}

TEST(End, AStallGoesToTheLargestBoardTheEarliestBreakingTies) {
  State s = dealt(3, {{"stall_seconds", 1}});
  s.receive(2, staircase(s.dealt()[2].substr(0, 7)), 10ms);  // 8 unlocked
  s.receive(0, staircase(s.dealt()[0].substr(0, 8)), 20ms);  // 9 unlocked
  s.receive(1, staircase(s.dealt()[1].substr(0, 9)), 30ms);  // 10 unlocked
  EXPECT_EQ(s.deadline(), 30ms + 1s);
  s.tick(500ms);
  EXPECT_FALSE(s.over());
  s.tick(30ms + 1s);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.ending(), "stalled");
  EXPECT_EQ(s.standings().winners, Seats{1});
  EXPECT_EQ(s.standings().losers, (Seats{0, 2}));  // 8 beats 7

  State tie = dealt(2, {{"stall_seconds", 1}});
  tie.receive(1, staircase(tie.dealt()[1].substr(0, 7)), 10ms);
  tie.tick(2s);
  EXPECT_EQ(tie.standings().winners, Seats{1});
}

TEST(End, TheTimeLimitEndsAnyGame) {
  State s = dealt(2, {{"max_seconds", 2}, {"stall_seconds", 100}});
  EXPECT_EQ(s.deadline(), 2s);
  s.tick(2s);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.ending(), "time limit");
  EXPECT_TRUE(s.standings().winners.empty());
}

TEST(End, EjectionsLeaveTheOthersPlaying) {
  State s = dealt(3);
  s.eject(1);
  EXPECT_EQ(s.seats(), (Seats{0, 2}));
  EXPECT_FALSE(s.over());
  const auto r = s.receive(0, staircase(s.dealt()[0].substr(0, 7)), 1ms);
  for (const auto& [seat, n] : r.notices) EXPECT_NE(seat, 1);
  s.eject(0);
  s.eject(2);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.ending(), "everyone out");
}

TEST(Codec, RoundTripsAndRejectsGarbage) {
  State s = dealt();
  const View v = s.view(0);
  auto back = decode_setup(encode_setup(v));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->tiles, v.tiles);
  EXPECT_EQ(back->config, v.config);
  Notice n;
  n.tiles = "QU";
  EXPECT_EQ(encode(n), Json::parse(R"(["new-tiles", [["Q", "U"]]])"));
  EXPECT_EQ(*decode_notice(encode(n)), n);
  Notice verdict{Notice::Kind::verdict, "", 7, "word: not a word: QX (row 0)"};
  EXPECT_EQ(*decode_notice(encode(verdict)), verdict);
  const Board b{"CAT", ".T."};
  EXPECT_EQ(encode(b), Json::parse(R"(["submit", [["CAT", ".T."]]])"));
  EXPECT_EQ(*decode_message(encode(b)), b);
  for (const char* bad :
       {R"("submit")", R"(["submit"])", R"(["submit", []])", R"(["submit", [["ca"]]])",
        R"(["submit", [["CA", "C"]]])", R"(["sumbit", [["CA"]]])", R"(["submit", [[]]])", "null"})
    EXPECT_FALSE(decode_message(Json::parse(bad))) << bad;
}

TEST(Codec, ConfigChecks) {
  EXPECT_TRUE(decode_config(Json::object()));
  for (const char* bad :
       {R"({"players": 9})", R"({"players": 1})", R"({"hand": 20, "players": 8})",
        R"({"start": 10, "hand": 9})", R"({"bag": "boggle"})", R"({"stall_seconds": 0})",
        R"({"max_seconds": -1})", R"({"dictionary": ""})", R"({"colour": "red"})",
        R"({"hand": "15"})", R"([1])"}) {
    auto c = decode_config(Json::parse(bad));
    EXPECT_FALSE(c) << bad;
  }
  EXPECT_TRUE(decode_config(Json::parse(R"({"players": 8, "hand": 18})")));  // 144 tiles
  EXPECT_FALSE(decode_config(Json::parse(R"({"players": 8, "hand": 13, "bag": "scrabble"})")));
}

}  // namespace
}  // namespace arbiter::speed_scrabble
