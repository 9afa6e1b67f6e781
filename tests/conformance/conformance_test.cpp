// The conformance suite every registered game must pass: seeded random playouts (with careless
// and hostile actions, ejections included) reach a terminal state with sane standings; the codec
// round-trips every view, setup answer, action and hand seen; a seat's view is byte-identical
// across states that differ only in what that seat cannot see; the same seed plays the same game.
// The registered turn-based games also play full matches through their registry entries in
// process, over stdio and over TCP (transport_suite.h).
#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "arena/registry.h"
#include "conformance/rules_suite.h"
#include "conformance/transport_suite.h"
#include "core/rules.h"
#include "games/abalone/game.h"
#include "games/battleship/game.h"
#include "games/dominosa/game.h"
#include "games/dominosa/solver.h"
#include "games/q/game.h"
#include "games/speed_scrabble/game.h"
#include "referee/game_log.h"

namespace arbiter {
namespace {

using namespace conformance;

// Every registered game, once, by the way it is played (checked below against the registry):
// adding a game is its include above and one entry here. A real-time game also gives the suite
// its config (realtime_config below); a lockstep game has tests of its own below.
// Games with a setup answer (SetsUp) also provide G::sample_setup(view, rng): an answer a
// careless or hostile player might give.
using TurnBasedGames = ::testing::Types<q::Q, battleship::Battleship>;
using RealtimeGames = ::testing::Types<speed_scrabble::SpeedScrabble, dominosa::DominosaRace>;
const std::set<std::string> kLockstepNames = {"abalone"};

template <class... G>
std::set<std::string> names_of(::testing::Types<G...>*) {
  return {std::string(G::kName)...};
}

// The turn-based suite (conformance/rules_suite.h) for the registered turn-based games.
INSTANTIATE_TYPED_TEST_SUITE_P(Conformance, Conformance, TurnBasedGames);
// And their registry entries (turn_based_entry) in process, over stdio and over TCP.
INSTANTIATE_TYPED_TEST_SUITE_P(TransportConformance, TransportConformance, TurnBasedGames);

TEST(ConformanceCoverage, EveryRegisteredGameIsCovered) {
  std::set<std::string> registered, covered = names_of(static_cast<TurnBasedGames*>(nullptr));
  for (const auto& g : registered_games()) registered.insert(g.name);
  for (const auto& name : names_of(static_cast<RealtimeGames*>(nullptr))) covered.insert(name);
  covered.insert(kLockstepNames.begin(), kLockstepNames.end());
  EXPECT_EQ(registered, covered);
}

// `arbiter games` lists every house bot: each one the game takes, each named in its syntax line.
TEST(ConformanceCoverage, EveryHouseBotIsListedAndTaken) {
  for (const auto& g : registered_games()) {
    EXPECT_FALSE(g.house_bots.empty()) << g.name;
    for (const auto& bot : g.house_bots) {
      EXPECT_TRUE(g.check_bot(bot)) << g.name << ": " << bot;
      const std::string base = bot.substr(0, bot.find_first_of("+="));
      EXPECT_NE(g.bots.find(base), std::string::npos)
          << g.name << ": " << base << " not in " << g.bots;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Real-time games: random messages from random seats at increasing times, junk included, reach
// the end (or keep the game consistent), every notice and setup round-trips through the codec,
// a seat's setup shows only its own tiles, and the same seed deals the same game.

template <class G>
class RealtimeConformance : public ::testing::Test {};
TYPED_TEST_SUITE(RealtimeConformance, RealtimeGames);

// A game's config for the suite, with its dictionary (or whatever it needs) in place.
template <class G>
typename G::Config realtime_config(int players);
template <>
speed_scrabble::Config realtime_config<speed_scrabble::SpeedScrabble>(int players) {
  static const auto words = [] {
    std::vector<std::string> w;
    for (char a = 'a'; a <= 'z'; ++a)
      for (char b = 'a'; b <= 'z'; ++b) w.push_back({a, b});
    return std::make_shared<const speed_scrabble::Dictionary>(speed_scrabble::Dictionary::of(w));
  }();
  speed_scrabble::Config c;
  c.players = players;
  c.words = words;
  c.max_invalid = 5;
  return c;
}
template <>
dominosa::RaceConfig realtime_config<dominosa::DominosaRace>(int players) {
  dominosa::RaceConfig c;
  c.players = players;
  c.n = 5;
  c.level = dominosa::Level::trivial;
  c.max_invalid = 5;
  return c;
}
// A solution a careless or hostile player might send: the right one now and then, else random
// letters or junk.
dominosa::Solution sample_message(const dominosa::RaceState& s, Seat, Rng& rng) {
  if (rng.below(8) == 0) return *dominosa::solve(s.puzzle()).first;
  std::string out(rng.below(4) == 0 ? rng.below(50) : s.puzzle().cells(), 'L');
  for (char& c : out) c = "LRTBX"[rng.below(5)];
  return out;
}
// A message a careless or hostile player might send: here, a board of its own tiles so far
// (valid as a staircase), or of someone else's, or junk letters.
speed_scrabble::Board sample_message(const speed_scrabble::State& s, Seat p, Rng& rng) {
  const int held = s.distributor()->available();
  const auto& tiles = s.dealt()[rng.below(3) == 0 ? rng.below(s.dealt().size()) : p];
  std::string use = tiles.substr(0, std::min<std::size_t>(held, tiles.size()));
  if (rng.below(4) == 0) use = std::string(1 + rng.below(4), 'Q');
  const int k = static_cast<int>(use.size());
  speed_scrabble::Board b(k / 2 + 1, std::string((k + 1) / 2, '.'));
  for (int i = 0; i < k; ++i) b[(i + 1) / 2][i / 2] = use[i];
  return b;
}

TYPED_TEST(RealtimeConformance, RandomArrivalsKeepTheGameSane) {
  using G = TypeParam;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    const int players = G::kMinSeats + static_cast<int>(rng.below(G::kMaxSeats - G::kMinSeats + 1));
    Rng deal(seed);
    auto state = G::start(realtime_config<G>(players), deal);
    for (Seat p : state.seats()) {
      auto back = G::decode_setup(G::encode_setup(state.view(p)));
      ASSERT_TRUE(back) << back.error().message;
      EXPECT_TRUE(*back == state.view(p));
    }
    Duration at{};
    for (int step = 0; step < 2000 && !state.over(); ++step) {
      at += std::chrono::milliseconds(rng.below(50));
      state.tick(at);
      if (state.over()) break;
      const Seats seats = state.seats();
      const Seat p = seats[rng.below(seats.size())];
      const auto message = sample_message(state, p, rng);
      auto decoded = G::decode_message(G::encode(message));
      ASSERT_TRUE(decoded && *decoded == message);
      auto reaction = state.receive(p, message, at);
      for (const auto& [seat, notice] : reaction.notices) {
        auto n = G::decode_notice(G::encode(notice));
        ASSERT_TRUE(n && *n == notice) << G::encode(notice).dump();
      }
      if (reaction.foul) state.eject(p);
      if (rng.below(500) == 0 && state.seats().size() > 1) state.eject(state.seats().back());
    }
    if (!state.over()) state.tick(at + std::chrono::hours(1));
    ASSERT_TRUE(state.over()) << "seed " << seed;
    const Standings st = state.standings();
    EXPECT_LE(st.winners.size(), 1u);
    for (Seat w : st.winners) {
      const Seats in = state.seats();
      EXPECT_NE(std::find(in.begin(), in.end(), w), in.end());
    }
  }
}

TEST(RealtimeConformance, ASeatIsToldOnlyItsOwnTilesAndTheSameSeedDealsTheSameGame) {
  using G = speed_scrabble::SpeedScrabble;
  Rng a(7), b(7), c(8);
  auto one = G::start(realtime_config<G>(4), a);
  auto two = G::start(realtime_config<G>(4), b);
  auto other = G::start(realtime_config<G>(4), c);
  EXPECT_EQ(one.dealt(), two.dealt());
  EXPECT_NE(one.dealt(), other.dealt());
  for (Seat p = 0; p < 4; ++p) {
    EXPECT_EQ(G::encode_setup(one.view(p)), G::encode_setup(two.view(p)));
    EXPECT_EQ(one.view(p).tiles, one.dealt()[p].substr(0, one.config().start));
  }
}


// ---------------------------------------------------------------------------------------------
// Lockstep games (Concurrent Abalone): random worlds keep the rules whatever the teams do, the
// §8 codec round-trips and rejects junk, and the registry entry plays the same seed the same
// way, replays it, notices a tampered log and turns bad input into errors.

TEST(LockstepConformance, RandomWorldPlayoutsKeepTheRules) {
  using namespace abalone;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    Config config;
    config.winning_score = 1 + static_cast<int>(rng.below(6));
    config.max_pieces = 1 + static_cast<int>(rng.below(14));
    World w = World::start(config);
    for (int step = 0; step < 4000 && !w.over(); ++step) {
      const auto& pieces = w.pieces();
      if (pieces.empty()) break;
      const Pid pid = pieces[rng.below(pieces.size())].pid;
      switch (rng.below(20)) {
        case 0:
          w.spawn(pid, rng);
          break;
        case 1:
          if (rng.below(20) == 0) w.kill(pid);  // a bot that ended
          break;
        case 2:
          w.resolve(step % 2 == 0 ? Team::black : Team::white);
          break;
        default: {
          const std::int64_t dir = static_cast<std::int64_t>(rng.below(9)) - 1;  // junk too
          EXPECT_EQ(w.commit(pid, dir), dir >= 0 && dir <= 6);
          break;
        }
      }
      std::set<std::pair<int, int>> hexes;
      for (Team t : kTeams) {
        EXPECT_LE(w.piece_count(t), config.max_pieces) << "seed " << seed;
        EXPECT_LE(w.score(t), config.winning_score);
      }
      for (const Piece& p : w.pieces()) {
        EXPECT_TRUE(on_board(p.hex)) << "seed " << seed;
        EXPECT_TRUE(hexes.insert({p.hex.r, p.hex.d}).second) << "two pieces share a hex";
        EXPECT_EQ(w.at(p.hex), p.pid);
      }
    }
    if (!w.over()) w.at_game_end();
    ASSERT_TRUE(w.over());
    const Standings st = w.standings();
    EXPECT_EQ(st.winners.size() + st.losers.size(), 2u);
    EXPECT_EQ(dump(encode_world(w)), dump(encode_world(w)));
  }
}

TEST(LockstepConformance, CommitmentsRoundTripAndJunkIsRejected) {
  using namespace abalone;
  Rng rng(5);
  for (int i = 0; i < 200; ++i) {
    std::vector<Commitment> cs(rng.below(20));
    for (auto& c : cs)
      c = {1 + static_cast<Pid>(rng.below(1000)), static_cast<Dir>(rng.below(7))};
    auto back = decode_commitments(encode_commitments(cs));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, cs);
  }
  for (const char* junk :
       {"null", "{}", "[1]", "[{\"pid\": 1}]", "[{\"pid\": 1, \"dir\": 7}]",
        "[{\"pid\": 0, \"dir\": 1}]", "[{\"pid\": 1, \"dir\": 1, \"x\": 2}]",
        "[{\"pid\": \"1\", \"dir\": 1}]", "[{\"pid\": 1.5, \"dir\": 1}]"}) {
    auto parsed = parse_json(junk);
    ASSERT_TRUE(parsed) << junk;
    auto decoded = decode_commitments(*parsed);
    EXPECT_FALSE(decoded) << junk;
    if (!decoded) {
      EXPECT_FALSE(decoded.error().message.empty());
    }
  }
  const World w = World::start(Config{});
  EXPECT_FALSE(check_commitments(w, Team::black, {{1, 3}}));
  EXPECT_EQ(check_commitments(w, Team::black, {{2, 3}})->code, "not-own-piece");
  EXPECT_EQ(check_commitments(w, Team::black, {{99, 3}})->code, "not-own-piece");
  EXPECT_EQ(check_commitments(w, Team::black, {{1, 3}, {1, 4}})->code, "repeated-piece");
}

std::vector<Json> played_log(const PlaySpec& base, std::uint64_t seed) {
  PlaySpec spec = base;
  spec.seed = seed;
  GameLog log(nullptr, true);
  spec.options.log = &log;
  auto outcome = find_game("abalone")->play(spec);
  EXPECT_TRUE(outcome) << (outcome ? "" : outcome.error().message);
  return log.lines();
}

TEST(LockstepConformance, TheSameSeedPlaysTheSameGameAndReplaysIt) {
  const GameEntry* game = find_game("abalone");
  ASSERT_NE(game, nullptr);
  PlaySpec spec;
  spec.roster = {{"b", "simple"}, {"w", "simple"}};
  spec.config = {{"game_length", 600}};
  for (std::uint64_t seed : {1u, 2u, 77u}) {
    const auto one = played_log(spec, seed);
    const auto two = played_log(spec, seed);
    ASSERT_GT(one.size(), 10u);
    EXPECT_EQ(first_difference(one, two), std::nullopt) << "seed " << seed;
    auto replayed = game->replay(one);
    ASSERT_TRUE(replayed) << replayed.error().message;
    EXPECT_TRUE(replayed->identical) << replayed->difference;
    EXPECT_NE(first_difference(one, played_log(spec, seed + 1000)), std::nullopt);

    // A log whose recorded events were tampered with no longer replays identically.
    auto tampered = one;
    for (auto& line : tampered)
      if (string_or(line, "type") == "spawn") {
        line["hex"] = "E0";
        break;
      }
    auto check = game->replay(tampered);
    ASSERT_TRUE(check);
    EXPECT_FALSE(check->identical);
    EXPECT_FALSE(check->difference.empty());
  }
}

TEST(LockstepConformance, BadInputIsAClearErrorNotAMatch) {
  const GameEntry* game = find_game("abalone");
  ASSERT_NE(game, nullptr);
  auto error_of = [&](std::vector<Seating> roster, Json config) {
    PlaySpec spec;
    spec.roster = std::move(roster);
    spec.config = std::move(config);
    auto outcome = game->play(spec);
    return outcome ? std::string() : outcome.error().message;
  };
  const std::vector<Seating> two = {{"b", "simple"}, {"w", "simple"}};
  EXPECT_NE(error_of({{"b", "simple"}}, nullptr).find("2 teams"), std::string::npos);
  EXPECT_NE(error_of({{"b", "simple"}, {"w", "nonesuch"}}, nullptr).find("nonesuch"),
            std::string::npos);
  EXPECT_NE(error_of({{"b", "simple"}, {"w", "/no/such/team.lua"}}, nullptr)
                .find("/no/such/team.lua: No such file or directory"),
            std::string::npos);
  EXPECT_NE(error_of({{"b", "simple"}, {"b", "simple"}}, nullptr).find("twice"), std::string::npos);
  EXPECT_NE(error_of(two, {{"step_budget", 0}}).find("step_budget"), std::string::npos);
  EXPECT_NE(error_of(two, {{"winning_score", "six"}}).find("winning_score"), std::string::npos);
  EXPECT_NE(error_of(two, {{"colour", "red"}}).find("colour"), std::string::npos);
  EXPECT_NE(error_of(two, Json::array()).find("object"), std::string::npos);
  const std::vector<Json> not_a_log = {{{"type", "match"}, {"game", "abalone"}}};
  EXPECT_FALSE(game->replay(not_a_log));
}

template <class... G>
int suite_main_of(::testing::Types<G...>*, int argc, char** argv) {
  return suite_main<G...>(argc, argv);
}

}  // namespace
}  // namespace arbiter

// The test binary is also the stdio seats' program (--serve-bot): see transport_suite.h.
int main(int argc, char** argv) {
  return arbiter::suite_main_of(static_cast<arbiter::TurnBasedGames*>(nullptr), argc, argv);
}
