// Full Battleship matches through the real referee (TurnReferee, as the registry runs them) with
// the house bots, checked against an independent re-derivation of the rules from the game log:
// every view is what the seat may know, every shot gets an honest answer, turns alternate from
// seat 0, salvos have one shot per ship afloat, the game ends when a fleet is sunk or at the turn
// limit, and the winners follow. Also: both seat orders win, no_touch and quiet (announce_sunk
// false) games, a non-default grid, the turn limit, and replays of logged matches.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/json.h"
#include "games/battleship/bots.h"
#include "games/battleship/game.h"
#include "referee/game_log.h"
#include "referee/replay.h"
#include "referee/turn_based.h"

namespace arbiter::battleship {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Players

// Forwards to a house bot and records what it was shown and what it answered.
class Observer final : public Player<Battleship> {
 public:
  explicit Observer(PlayerPtr<Battleship> inner) : inner_(std::move(inner)) {}

  std::string name() override { return inner_->name(); }
  Fleet setup(const View& view) override {
    Fleet fleet = inner_->setup(view);
    setups.emplace_back(view, fleet);
    return fleet;
  }
  Shots take_turn(const View& view) override {
    Shots shots = inner_->take_turn(view);
    turns.emplace_back(view, shots);
    return shots;
  }
  void win(bool won) override {
    inner_->win(won);
    told.push_back(won);
  }

  std::vector<std::pair<View, Fleet>> setups;
  std::vector<std::pair<View, Shots>> turns;
  std::vector<bool> told;

 private:
  PlayerPtr<Battleship> inner_;
};

// A house bot that misbehaves at its `at`-th turn (from 1): fires off the grid, or throws.
class Misbehaver final : public Player<Battleship> {
 public:
  enum class How { off_grid, repeat, raise };
  Misbehaver(PlayerPtr<Battleship> inner, int at, How how)
      : inner_(std::move(inner)), at_(at), how_(how) {}

  std::string name() override { return inner_->name(); }
  Fleet setup(const View& view) override { return inner_->setup(view); }
  Shots take_turn(const View& view) override {
    Shots shots = inner_->take_turn(view);
    if (++turns_ != at_) return shots;
    switch (how_) {
      case How::off_grid:
        shots.front() = {view.config.rows, 0};
        break;
      case How::repeat:
        shots.front() = view.outgoing.front().cell;
        break;
      case How::raise:
        throw std::runtime_error("the bot fell over");
    }
    return shots;
  }
  void win(bool won) override { inner_->win(won); }

 private:
  PlayerPtr<Battleship> inner_;
  int at_;
  How how_;
  int turns_ = 0;
};

BotSpec bot(std::string_view text) {
  auto spec = parse_bot(text);
  if (!spec) throw std::invalid_argument(spec.error().message);
  return *spec;
}

struct Match {
  MatchResult result;
  std::vector<Json> log;
  std::array<std::shared_ptr<Observer>, 2> seats;
};

// Plays one match as the registry does: house bots seeded with seat_seed, the referee on its
// default (threaded) isolation, logging into memory (unless `logged` is false: logging every
// view costs more than the bots). `wrap` may replace a seat's player.
template <class Wrap>
Match play(const Config& config, std::uint64_t seed, std::array<std::string_view, 2> bots,
           Wrap wrap, bool logged = true) {
  GameLog log(nullptr, /*keep=*/true);
  RefereeOptions options;
  options.per_call = 60s;  // generous: sanitizer builds are slow, and no bot here hangs
  if (logged) options.log = &log;
  Match m;
  std::vector<std::string> names{"s0", "s1"};
  std::vector<PlayerPtr<Battleship>> players;
  for (Seat s : {0, 1}) {
    auto house = make_bot<Battleship>(names[s], bot(bots[s]), seeds::seat(seed, s));
    m.seats[s] = std::make_shared<Observer>(wrap(s, house));
    players.push_back(m.seats[s]);
  }
  TurnReferee<Battleship> referee(config, seed, names, players, options);
  m.result = referee.run();
  m.log = log.lines();
  return m;
}

Match play(const Config& config, std::uint64_t seed, std::array<std::string_view, 2> bots,
           bool logged = true) {
  return play(
      config, seed, bots, [](Seat, PlayerPtr<Battleship> p) { return p; }, logged);
}

Config with(auto change) {
  Config c;
  change(c);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The rules, re-derived from docs/games/battleship.md §1 (not from State)

std::vector<Cell> cells(const Ship& s) {
  std::vector<Cell> out;
  for (int i = 0; i < s.length; ++i)
    out.push_back(s.dir == Dir::h ? Cell{s.at.row, s.at.col + i} : Cell{s.at.row + i, s.at.col});
  return out;
}

bool sunk(const Ship& s, const std::set<Cell>& fired) {
  const auto cs = cells(s);
  return std::all_of(cs.begin(), cs.end(), [&](Cell c) { return fired.contains(c); });
}

int afloat(const Fleet& fleet, const std::set<Cell>& fired) {
  return static_cast<int>(
      std::count_if(fleet.begin(), fleet.end(), [&](const Ship& s) { return !sunk(s, fired); }));
}

int cells_of_fleet(const Config& config) {
  int n = 0;
  for (int length : config.ships) n += length;
  return n;
}

// Why `fleet` breaks the placement rules of `config` (docs/games/battleship.md §1), or "".
std::string placement_problem(const Config& config, const Fleet& fleet) {
  std::vector<int> lengths, wanted = config.ships;
  for (const Ship& s : fleet) lengths.push_back(s.length);
  std::sort(lengths.begin(), lengths.end());
  std::sort(wanted.begin(), wanted.end());
  if (lengths != wanted) return "ship lengths differ from the config's";
  std::map<Cell, int> owner;
  for (int i = 0; i < static_cast<int>(fleet.size()); ++i) {
    for (Cell c : cells(fleet[i])) {
      if (c.row < 0 || c.row >= config.rows || c.col < 0 || c.col >= config.cols)
        return "a ship leaves the grid";
      if (!owner.emplace(c, i).second) return "ships overlap";
    }
  }
  if (config.no_touch) {
    for (const auto& [c, i] : owner)
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
          auto it = owner.find({c.row + dr, c.col + dc});
          if (it != owner.end() && it->second != i) return "ships touch under no_touch";
        }
  }
  return "";
}

struct Totals {
  int turns = 0;         // take_turn calls answered
  int shots = 0;         // shots fired
  int short_salvos = 0;  // salvo turns with fewer shots than ships in the fleet
  int sunk_told = 0;     // "sunk" answers seen in a shooter's own view
  bool ended_by_sinking = false;
  bool draw = false;
};

// Checks a finished match that nobody was ejected from against the rules, from its log and what
// its observed players saw; returns totals for the caller's own assertions.
Totals check_game(const Config& config, const Match& m) {
  Totals t;
  EXPECT_TRUE(m.result.ejections.empty()) << m.result.ejections.front().detail;
  EXPECT_FALSE(m.result.aborted);
  if (!m.result.ejections.empty() || m.log.size() < 2) return t;
  EXPECT_EQ(m.log.front()["type"], "match");
  EXPECT_EQ(m.log.back(), encode_result(m.result));

  std::array<Fleet, 2> fleet;
  std::array<std::vector<ShotResult>, 2> fired;  // by shooter, with the full (owner's) outcome
  std::array<std::set<Cell>, 2> fired_set;
  std::array<int, 2> turns{0, 0}, calls{0, 0};
  std::map<Seat, std::vector<bool>> told;
  bool over = false;
  Seat next = 0;
  for (std::size_t i = 1; i + 1 < m.log.size(); ++i) {
    const Json& rec = m.log[i];
    SCOPED_TRACE(testing::Message() << "log line " << i + 1 << ": " << excerpt(rec, 300));
    EXPECT_EQ(rec["type"], "call");
    EXPECT_EQ(rec["verdict"], "ok");
    const Seat p = rec["seat"].get<Seat>();
    const Seat o = 1 - p;
    const std::string call = rec["call"];
    if (call == "setup") {
      EXPECT_EQ(i, static_cast<std::size_t>(p + 1)) << "setup comes first, in seat order";
      auto f = Battleship::decode_setup(rec["reply"]);
      EXPECT_TRUE(f.has_value());
      if (!f) return t;
      fleet[p] = *f;
      EXPECT_EQ(placement_problem(config, fleet[p]), "") << "seat " << p;
      EXPECT_EQ(m.seats[p]->setups.size(), 1u);
      if (!m.seats[p]->setups.empty()) {
        EXPECT_EQ(m.seats[p]->setups[0].second, fleet[p]);
      }
      continue;
    }
    if (call == "win") {
      EXPECT_TRUE(over) << "win before the game is over";
      told[p].push_back(rec["args"].get<bool>());
      continue;
    }
    EXPECT_EQ(call, "take_turn");
    EXPECT_FALSE(over) << "a turn after the game is over";
    EXPECT_EQ(p, next) << "turns alternate from seat 0";
    auto view = Battleship::decode_view(rec["args"]);
    auto shots = Battleship::decode_action(rec["reply"]);
    EXPECT_TRUE(view && shots);
    if (!view || !shots) return t;
    // The log holds exactly what the player saw and answered.
    const auto& seen = m.seats[p]->turns;
    EXPECT_LT(calls[p], static_cast<int>(seen.size()));
    if (calls[p] < static_cast<int>(seen.size())) {
      EXPECT_EQ(seen[calls[p]].first, *view);
      EXPECT_EQ(seen[calls[p]].second, *shots);
    }
    ++calls[p];
    // The view: all the seat may know, and only that.
    EXPECT_EQ(view->turn, turns[0] + turns[1]);
    EXPECT_EQ(view->you, p);
    EXPECT_EQ(view->config, config);
    EXPECT_EQ(view->fleet, fleet[p]);
    EXPECT_EQ(view->incoming, fired[o]) << "the opponent's shots with their full outcomes";
    std::vector<ShotResult> outgoing = fired[p];
    if (!config.announce_sunk)
      for (ShotResult& r : outgoing)
        if (r.result == Outcome::sunk) r = {r.cell, Outcome::hit, 0};
    EXPECT_EQ(view->outgoing, outgoing);
    for (const ShotResult& r : view->outgoing) t.sunk_told += r.result == Outcome::sunk;
    // The shots: as many as due, on the grid, never fired at before, none twice.
    const int unfired = config.rows * config.cols - static_cast<int>(fired[p].size());
    const int own_afloat = afloat(fleet[p], fired_set[o]);
    EXPECT_GE(own_afloat, 1);
    const int due = config.salvo ? std::min(own_afloat, unfired) : 1;
    EXPECT_EQ(static_cast<int>(shots->size()), due)
        << "seat " << p << " with " << own_afloat << " ships afloat";
    if (config.salvo && static_cast<int>(shots->size()) < static_cast<int>(config.ships.size()))
      ++t.short_salvos;
    for (Cell c : *shots) {
      EXPECT_TRUE(c.row >= 0 && c.row < config.rows && c.col >= 0 && c.col < config.cols);
      EXPECT_FALSE(fired_set[p].contains(c)) << "row " << c.row << " col " << c.col;
      // The honest answer, with the salvo's earlier shots counted.
      ShotResult r{c, Outcome::miss, 0};
      fired_set[p].insert(c);
      for (const Ship& s : fleet[o]) {
        const auto cs = cells(s);
        if (std::find(cs.begin(), cs.end(), c) == cs.end()) continue;
        r = sunk(s, fired_set[p]) ? ShotResult{c, Outcome::sunk, s.length}
                                  : ShotResult{c, Outcome::hit, 0};
      }
      fired[p].push_back(r);
    }
    t.shots += static_cast<int>(shots->size());
    ++turns[p];
    ++t.turns;
    next = o;
    if (afloat(fleet[o], fired_set[p]) == 0) {
      over = true;
      t.ended_by_sinking = true;
    } else if (turns[0] >= config.max_turns && turns[1] >= config.max_turns) {
      over = true;
    }
  }
  EXPECT_TRUE(over) << "the log ends before the game does";
  for (Seat p : {0, 1}) EXPECT_EQ(calls[p], static_cast<int>(m.seats[p]->turns.size()));

  // Scores are hits landed; a sunk fleet loses, otherwise more hits win and equal hits draw.
  std::array<std::int64_t, 2> hits{0, 0};
  for (Seat p : {0, 1})
    for (const ShotResult& r : fired[p]) hits[p] += r.result != Outcome::miss;
  EXPECT_EQ(m.result.scores, (std::vector<std::int64_t>{hits[0], hits[1]}));
  Seats winners;
  if (t.ended_by_sinking) {
    winners = {1 - next};  // `next` is the seat whose fleet went down
    EXPECT_EQ(hits[1 - next], cells_of_fleet(config));
  } else if (hits[0] == hits[1]) {
    winners = {0, 1};
    t.draw = true;
  } else {
    winners = {hits[0] > hits[1] ? 0 : 1};
  }
  EXPECT_EQ(m.result.winners, winners);
  for (Seat p : {0, 1}) {
    const bool won = std::find(winners.begin(), winners.end(), p) != winners.end();
    EXPECT_EQ(told[p], std::vector<bool>{won}) << "seat " << p;
    EXPECT_EQ(m.seats[p]->told, std::vector<bool>{won}) << "seat " << p;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------

TEST(battleship_match, DefaultGamesFollowTheRules) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const Totals t = check_game(Config{}, play(Config{}, seed, {"density", "hunt+evasive"}));
    EXPECT_TRUE(t.ended_by_sinking);
    EXPECT_EQ(t.shots, t.turns);
    EXPECT_GT(t.sunk_told, 0);
  }
}

TEST(battleship_match, SalvoGamesFireOneShotPerShipAfloat) {
  const Config config = with([](Config& c) { c.salvo = true; });
  int short_salvos = 0;
  const std::array<std::array<std::string_view, 2>, 3> pairs{
      {{"density", "hunt"}, {"hunt+evasive", "random"}, {"random", "density+evasive"}}};
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (const auto& bots : pairs) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << bots[0] << " vs " << bots[1]);
      const Match m = play(config, seed, bots);
      const Totals t = check_game(config, m);
      EXPECT_TRUE(t.ended_by_sinking);
      ASSERT_EQ(m.result.winners.size(), 1u);
      EXPECT_GT(t.shots, t.turns) << "salvos of several shots";
      short_salvos += t.short_salvos;
      // Directly from the observed players too: each salvo has one shot per own ship afloat.
      for (Seat p : {0, 1}) {
        for (const auto& [view, shots] : m.seats[p]->turns) {
          std::set<Cell> hit;
          for (const ShotResult& r : view.incoming) hit.insert(r.cell);
          EXPECT_EQ(static_cast<int>(shots.size()), afloat(view.fleet, hit));
        }
      }
    }
  }
  EXPECT_GT(short_salvos, 0) << "salvos shrink as ships are sunk";
}

TEST(battleship_match, BothSeatOrdersWinAndSeatZeroFiresFirst) {
  // density against hunt, each from both seats, over the same seeds.
  constexpr std::uint64_t kSeeds = 200;
  std::map<std::pair<std::string_view, Seat>, int> wins;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    for (const std::array<std::string_view, 2> bots :
         {std::array<std::string_view, 2>{"density", "hunt"},
          std::array<std::string_view, 2>{"hunt", "density"}}) {
      const bool logged = seed <= 3;
      const Match m = play(Config{}, seed, bots, logged);
      ASSERT_TRUE(m.result.ejections.empty()) << "seed " << seed;
      ASSERT_EQ(m.result.winners.size(), 1u) << "seed " << seed;
      const Seat w = m.result.winners[0];
      ++wins[{bots[w], w}];
      EXPECT_EQ(m.result.scores[w], 17);
      // Seat 0 fires first and the seats alternate: seat 0 is shown turns 0, 2, 4, ... and
      // seat 1 turns 1, 3, 5, ...
      for (Seat p : {0, 1}) {
        const auto& turns = m.seats[p]->turns;
        ASSERT_FALSE(turns.empty()) << "seed " << seed;
        for (std::size_t k = 0; k < turns.size(); ++k)
          ASSERT_EQ(turns[k].first.turn, static_cast<int>(2 * k) + p)
              << "seed " << seed << ", seat " << p << ", its turn " << k;
      }
      // The winner fired last: seat 0 wins having fired once more than seat 1.
      const auto n0 = m.seats[0]->turns.size(), n1 = m.seats[1]->turns.size();
      EXPECT_EQ(n0, w == 0 ? n1 + 1 : n1) << "seed " << seed;
      if (logged) check_game(Config{}, m);
    }
  }
  for (std::string_view b : {"density", "hunt"})
    for (Seat s : {0, 1}) EXPECT_GT((wins[{b, s}]), 0) << b << " never won from seat " << s;
  // 2 * kSeeds games, one winner each.
  int total = 0;
  for (const auto& [key, n] : wins) total += n;
  EXPECT_EQ(total, 2 * static_cast<int>(kSeeds));
  // density is the stronger bot (docs/games/battleship.md §4: ~42-45 shots against hunt's ~61-66).
  const int density_wins = wins[{"density", 0}] + wins[{"density", 1}];
  const int hunt_wins = wins[{"hunt", 0}] + wins[{"hunt", 1}];
  EXPECT_GT(density_wins, hunt_wins);
}

TEST(battleship_match, NoTouchGamesComplete) {
  const Config config = with([](Config& c) { c.no_touch = true; });
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const Match m = play(config, seed, {seed % 2 ? "density+evasive" : "hunt", "density"});
    const Totals t = check_game(config, m);  // checks both fleets keep apart
    EXPECT_TRUE(t.ended_by_sinking);
  }
  const Config salvo = with([](Config& c) {
    c.no_touch = true;
    c.salvo = true;
  });
  EXPECT_TRUE(check_game(salvo, play(salvo, 9, {"hunt", "density"})).ended_by_sinking);
}

TEST(battleship_match, QuietGamesNeverAnnounceSinkings) {
  const Config config = with([](Config& c) { c.announce_sunk = false; });
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const Match m = play(config, seed, {"density", seed % 2 ? "hunt" : "random"});
    const Totals t = check_game(config, m);
    EXPECT_TRUE(t.ended_by_sinking);
    EXPECT_EQ(t.sunk_told, 0);
    // The owner is told when its ship goes down: "sunk" appears among incoming shots.
    int sunk_incoming = 0;
    for (Seat p : {0, 1})
      for (const auto& [view, shots] : m.seats[p]->turns)
        for (const ShotResult& r : view.incoming) sunk_incoming += r.result == Outcome::sunk;
    EXPECT_GT(sunk_incoming, 0);
  }
}

TEST(battleship_match, ANonDefaultGridCompletes) {
  const Config config = with([](Config& c) {
    c.rows = 7;
    c.cols = 12;
    c.ships = {4, 3, 2};
  });
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    const Match m = play(config, seed, {"density", "hunt+evasive"});
    const Totals t = check_game(config, m);  // shots and fleets inside 7x12
    EXPECT_TRUE(t.ended_by_sinking);
    ASSERT_EQ(m.result.winners.size(), 1u);
    EXPECT_EQ(m.result.scores[m.result.winners[0]], 9);
    EXPECT_LT(t.turns, 2 * 84);
  }
  Config salvo = config;
  salvo.salvo = true;
  salvo.no_touch = true;
  salvo.announce_sunk = false;
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    EXPECT_TRUE(check_game(salvo, play(salvo, seed, {"random", "density"})).ended_by_sinking);
}

TEST(battleship_match, TheTurnLimitGivesTheWinnerByHitsOrADraw) {
  int draws = 0, decided = 0;
  for (int max_turns : {1, 2, 3, 6}) {
    const Config config = with([&](Config& c) { c.max_turns = max_turns; });
    for (std::uint64_t seed = 1; seed <= 15; ++seed) {
      SCOPED_TRACE(testing::Message() << "max_turns " << max_turns << ", seed " << seed);
      const Match m = play(config, seed, {"density", "hunt"});
      const Totals t = check_game(config, m);  // winners by hits, equal hits both
      EXPECT_FALSE(t.ended_by_sinking);
      EXPECT_EQ(t.turns, 2 * max_turns);
      if (t.draw) {
        ++draws;
        EXPECT_EQ(m.result.winners, (Seats{0, 1}));
        EXPECT_EQ(m.result.scores[0], m.result.scores[1]);
      } else {
        ++decided;
        ASSERT_EQ(m.result.winners.size(), 1u);
        const Seat w = m.result.winners[0];
        EXPECT_GT(m.result.scores[w], m.result.scores[1 - w]);
      }
    }
  }
  EXPECT_GT(draws, 0);
  EXPECT_GT(decided, 0);
  // Salvo with a limit: many shots per turn, still judged by hits.
  const Config salvo = with([](Config& c) {
    c.salvo = true;
    c.max_turns = 4;
  });
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    EXPECT_EQ(check_game(salvo, play(salvo, seed, {"hunt", "random"})).turns, 8);
}

TEST(battleship_match, AnEjectedSeatLosesAndTheOtherWins) {
  using How = Misbehaver::How;
  for (Seat bad : {0, 1}) {
    for (How how : {How::off_grid, How::repeat, How::raise}) {
      SCOPED_TRACE(testing::Message() << "seat " << bad << ", how " << static_cast<int>(how));
      const Match m = play(Config{}, 5, {"density", "hunt"}, [&](Seat s, PlayerPtr<Battleship> p) {
        return s == bad ? std::make_shared<Misbehaver>(p, 4, how) : p;
      });
      ASSERT_EQ(m.result.ejections.size(), 1u);
      const Ejection& e = m.result.ejections[0];
      EXPECT_EQ(e.seat, bad);
      EXPECT_EQ(e.call, "take_turn");
      EXPECT_EQ(e.why, how == How::raise ? Why::exception : Why::foul);
      if (how == How::off_grid) {
        EXPECT_TRUE(e.detail.starts_with("off-grid: ")) << e.detail;
      }
      if (how == How::repeat) {
        EXPECT_TRUE(e.detail.starts_with("repeat-shot: ")) << e.detail;
      }
      EXPECT_EQ(m.result.winners, Seats{1 - bad});
      // Observed turns are the ones answered: a throwing bot answers 3.
      EXPECT_EQ(m.seats[bad]->turns.size(), how == How::raise ? 3u : 4u);
      EXPECT_EQ(m.seats[1 - bad]->turns.size(), bad == 0 ? 3u : 4u);
      EXPECT_TRUE(m.seats[bad]->told.empty()) << "an ejected seat is not told the outcome";
      EXPECT_EQ(m.seats[1 - bad]->told, std::vector<bool>{true});
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Replay

std::vector<Json> through_text(const std::vector<Json>& log) {
  std::stringstream text;
  GameLog out(&text);
  for (const Json& line : log) out.write(line);
  auto back = read_game_log(text);
  EXPECT_TRUE(back.has_value());
  return back ? *back : std::vector<Json>{};
}

void expect_replays(const Match& m) {
  auto report = replay<Battleship>(through_text(m.log));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->identical) << report->difference;
  EXPECT_EQ(report->result.winners, m.result.winners);
  EXPECT_EQ(report->result.scores, m.result.scores);
  EXPECT_EQ(report->result.ejections, m.result.ejections);
  std::size_t calls = 0;
  for (const Json& line : m.log) calls += line["type"] == "call";
  EXPECT_EQ(report->calls, calls);
}

TEST(battleship_match, LoggedMatchesReplayIdentically) {
  expect_replays(play(Config{}, 11, {"density", "hunt+evasive"}));
  expect_replays(play(with([](Config& c) { c.salvo = true; }), 12, {"hunt", "density"}));
  expect_replays(play(with([](Config& c) {
                        c.rows = 7;
                        c.cols = 12;
                        c.ships = {4, 3, 2};
                        c.no_touch = true;
                        c.announce_sunk = false;
                      }),
                      13, {"random", "density+evasive"}));
  expect_replays(play(with([](Config& c) { c.max_turns = 3; }), 14, {"density", "hunt"}));
  // Matches with an ejection: a foul and an exception are recorded and replayed.
  for (auto how : {Misbehaver::How::off_grid, Misbehaver::How::raise}) {
    const Match m = play(Config{}, 15, {"density", "hunt"}, [&](Seat s, PlayerPtr<Battleship> p) {
      return s == 1 ? std::make_shared<Misbehaver>(p, 6, how) : p;
    });
    ASSERT_EQ(m.result.ejections.size(), 1u);
    expect_replays(m);
  }
}

TEST(battleship_match, TheSameSeedGivesTheSameLog) {
  const Match a = play(Config{}, 21, {"density", "hunt"});
  const Match b = play(Config{}, 21, {"density", "hunt"});
  EXPECT_EQ(first_difference(a.log, b.log), std::nullopt);
  const Match c = play(Config{}, 22, {"density", "hunt"});
  EXPECT_NE(first_difference(a.log, c.log), std::nullopt);
}

TEST(battleship_match, ATamperedLogDoesNotReplay) {
  const Match m = play(Config{}, 31, {"density", "hunt"});
  // A shot moved to another cell never fired at by that seat: still legal, but a different game.
  auto shot_moved = m.log;
  for (Json& line : shot_moved) {
    if (line["type"] != "call" || line["call"] != "take_turn" || line["seat"] != 1) continue;
    auto view = Battleship::decode_view(line["args"]);
    ASSERT_TRUE(view);
    std::set<Cell> fired;
    for (const ShotResult& r : view->outgoing) fired.insert(r.cell);
    const Json old = line["reply"];
    for (int r = 0; r < 10 && line["reply"] == old; ++r)
      for (int c = 0; c < 10 && line["reply"] == old; ++c)
        if (!fired.contains({r, c}) && Battleship::encode(Shots{{r, c}}) != old)
          line["reply"] = Battleship::encode(Shots{{r, c}});
    break;
  }
  auto report = replay<Battleship>(shot_moved);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->identical);
  EXPECT_FALSE(report->difference.empty());
  // A fleet moved: every later answer is judged differently.
  auto fleet_moved = m.log;
  for (Json& line : fleet_moved) {
    if (line["type"] != "call" || line["call"] != "setup" || line["seat"] != 0) continue;
    auto fleet = Battleship::decode_setup(line["reply"]);
    ASSERT_TRUE(fleet);
    Rng rng(99);
    Fleet other = place_uniform(Config{}, rng);
    ASSERT_NE(other, *fleet);
    line["reply"] = Battleship::encode(other);
  }
  report = replay<Battleship>(fleet_moved);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_FALSE(report->identical);
}

}  // namespace
}  // namespace arbiter::battleship
