// Battleship's rules: fleet legality, shots, outcomes, salvo, the turn limit, ejections, views.
#include "games/battleship/state.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "core/rules.h"
#include "games/battleship/game.h"

namespace arbiter::battleship {
namespace {

// The standard fleet in rows 0, 2, 4, 6, 8 from column `col`: no two ships touch.
Fleet rows_fleet(int col = 0) {
  return {{5, {0, col}, Dir::h},
          {4, {2, col}, Dir::h},
          {3, {4, col}, Dir::h},
          {3, {6, col}, Dir::h},
          {2, {8, col}, Dir::h}};
}

State ready(const Config& c, const Fleet& f0, const Fleet& f1) {
  State s = State::start(c);
  EXPECT_FALSE(s.check_setup(0, f0));
  s.apply_setup(0, f0);
  EXPECT_FALSE(s.check_setup(1, f1));
  s.apply_setup(1, f1);
  return s;
}

// Fires one shot for p, expecting it to be legal.
void fire(State& s, Seat p, Cell c) {
  const Shots shots{c};
  auto foul = s.check(p, shots);
  ASSERT_FALSE(foul) << foul->code << ": " << foul->detail;
  s.apply(p, shots);
}

std::string foul_code(const std::optional<Foul>& f) {
  return f ? f->code : "none";
}

// Water cells of rows_fleet(0) on a 10x10 grid: rows 1, 3, 5, 7, 9.
Cell water(int i) {
  return {1 + 2 * (i / 10 % 5), i % 10};
}

TEST(Fleet, TheStandardFleetInRowsIsLegal) {
  EXPECT_FALSE(fleet_foul(Config{}, rows_fleet()));
  Config c;
  c.no_touch = true;
  EXPECT_FALSE(fleet_foul(c, rows_fleet(5)));
}

TEST(Fleet, ShipsMayComeInAnyOrder) {
  Fleet f = rows_fleet();
  std::reverse(f.begin(), f.end());
  EXPECT_FALSE(fleet_foul(Config{}, f));
}

TEST(Fleet, TheLengthsMustMatchTheConfigAsAMultiset) {
  Fleet f = rows_fleet();
  f.pop_back();
  auto foul = fleet_foul(Config{}, f);
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-fleet");
  EXPECT_EQ(foul->detail, "4 ships placed, the fleet has 5");

  f = rows_fleet();
  f[3].length = 2;  // 5 4 3 2 2 instead of 5 4 3 3 2
  foul = fleet_foul(Config{}, f);
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-fleet");
  EXPECT_EQ(foul->detail, "ship lengths [5, 4, 3, 2, 2] do not match the fleet [5, 4, 3, 3, 2]");
}

TEST(Fleet, EveryShipMustBeInsideTheGrid) {
  for (Ship bad : {Ship{5, {0, 6}, Dir::h}, Ship{5, {6, 9}, Dir::v}, Ship{5, {-1, 0}, Dir::h},
                   Ship{5, {0, -1}, Dir::v}, Ship{5, {10, 0}, Dir::h}}) {
    Fleet f = rows_fleet();
    f[0] = bad;
    auto foul = fleet_foul(Config{}, f);
    ASSERT_TRUE(foul);
    EXPECT_EQ(foul->code, "bad-fleet");
    EXPECT_NE(foul->detail.find("does not fit in the 10x10 grid"), std::string::npos)
        << foul->detail;
  }
}

TEST(Fleet, GridSizesComeFromTheConfig) {
  Config c;
  c.rows = 5;
  c.cols = 26;
  c.ships = {26, 5};
  EXPECT_FALSE(fleet_foul(c, {{26, {4, 0}, Dir::h}, {5, {0, 3}, Dir::h}}));
  auto foul = fleet_foul(c, {{26, {0, 0}, Dir::h}, {5, {1, 25}, Dir::v}});
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->detail, "the length-5 ship at row 1, col 25 (v) does not fit in the 5x26 grid");
  EXPECT_EQ(foul_code(fleet_foul(c, {{26, {0, 0}, Dir::h}, {5, {0, 25}, Dir::v}})), "bad-fleet")
      << "they overlap at (0, 25)";
}

TEST(Fleet, ShipsMayNotOverlap) {
  Fleet f = rows_fleet();
  f[4] = {2, {0, 4}, Dir::v};  // crosses the 5-ship at (0, 4)
  auto foul = fleet_foul(Config{}, f);
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-fleet");
  EXPECT_EQ(foul->detail,
            "the length-2 ship at row 0, col 4 (v) overlaps the length-5 ship at row 0, col 0 (h) "
            "at row 0, col 4");
}

TEST(Fleet, ShipsMayTouchUnlessNoTouch) {
  const Fleet side_by_side = {{5, {0, 0}, Dir::h},
                              {4, {1, 0}, Dir::h},
                              {3, {2, 0}, Dir::h},
                              {3, {3, 0}, Dir::h},
                              {2, {4, 0}, Dir::h}};
  EXPECT_FALSE(fleet_foul(Config{}, side_by_side));
  Config c;
  c.no_touch = true;
  auto foul = fleet_foul(c, side_by_side);
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-fleet");
  EXPECT_NE(foul->detail.find("may not touch"), std::string::npos) << foul->detail;

  // End to end in a row.
  Fleet f = rows_fleet();
  f[1] = {4, {0, 5}, Dir::h};
  EXPECT_FALSE(fleet_foul(Config{}, f));
  EXPECT_EQ(foul_code(fleet_foul(c, f)), "bad-fleet");
}

TEST(Fleet, NoTouchForbidsDiagonalsToo) {
  Config c;
  c.no_touch = true;
  // The 2-ship's (1, 5) is diagonal to the 5-ship's end at (0, 4).
  Fleet f = {{5, {0, 0}, Dir::h},
             {4, {3, 0}, Dir::h},
             {3, {5, 0}, Dir::h},
             {3, {7, 0}, Dir::h},
             {2, {1, 5}, Dir::h}};
  EXPECT_FALSE(fleet_foul(Config{}, f));
  auto foul = fleet_foul(c, f);
  ASSERT_TRUE(foul);
  EXPECT_EQ(foul->code, "bad-fleet");
  EXPECT_EQ(foul->detail,
            "the length-2 ship at row 1, col 5 (h) touches the length-5 ship at row 0, col 0 (h) "
            "(row 1, col 5 next to row 0, col 4) and ships may not touch");
  f[4].at.col = 6;  // one column further: a gap
  EXPECT_FALSE(fleet_foul(c, f));
}

TEST(Fleet, RandomFleetsAreLegal) {
  Config no_touch;
  no_touch.no_touch = true;
  Config tiny;
  tiny.rows = tiny.cols = 5;
  tiny.ships = {5, 5, 5, 5, 5};  // fills the grid: found by the search, not by sampling
  Config crowded = tiny;
  crowded.no_touch = true;
  crowded.ships = {5, 5, 5};
  Config wide;
  wide.rows = 5;
  wide.cols = 26;
  wide.ships = {26, 10, 1};
  for (const Config& c : {Config{}, no_touch, tiny, crowded, wide}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Rng rng(seed);
      auto fleet = random_fleet(c, rng);
      ASSERT_TRUE(fleet);
      EXPECT_FALSE(fleet_foul(c, *fleet)) << fleet_foul(c, *fleet)->detail;
      for (std::size_t i = 0; i < c.ships.size(); ++i) EXPECT_EQ((*fleet)[i].length, c.ships[i]);
    }
  }
}

TEST(Fleet, RandomFleetsVary) {
  std::set<std::vector<int>> seen;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Rng rng(seed);
    std::vector<int> key;
    const Fleet fleet = random_fleet(Config{}, rng).value();
    for (const Ship& s : fleet) key.insert(key.end(), {s.at.row, s.at.col, s.dir == Dir::h});
    seen.insert(key);
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(Fleet, AnImpossibleFleetIsNotFound) {
  Config c;
  c.rows = c.cols = 5;
  c.no_touch = true;
  c.ships = {5, 5, 5, 1};
  Rng rng(1);
  EXPECT_FALSE(random_fleet(c, rng));
}

TEST(Setup, BothSeatsPlaceThenSeatZeroFires) {
  State s = State::start(Config{});
  EXPECT_EQ(s.turn_order(), (Seats{0, 1}));
  EXPECT_EQ(foul_code(s.check(0, {{0, 0}})), "not-set-up");
  s.apply_setup(0, rows_fleet());
  EXPECT_EQ(foul_code(s.check(0, {{0, 0}})), "not-set-up");
  EXPECT_EQ(foul_code(s.check_setup(0, rows_fleet())), "already-set-up");
  s.apply_setup(1, rows_fleet(5));
  EXPECT_EQ(s.to_move(), Seats{0});
  EXPECT_FALSE(s.check(0, {{0, 0}}));
  EXPECT_EQ(s.view(0).fleet, rows_fleet());
  EXPECT_EQ(s.view(1).fleet, rows_fleet(5));
}

TEST(Setup, AnIllegalFleetIsAFoul) {
  State s = State::start(Config{});
  Fleet f = rows_fleet();
  f[0].at.col = 7;
  EXPECT_EQ(foul_code(s.check_setup(1, f)), "bad-fleet");
}

TEST(Setup, AnEjectionDuringSetupGivesTheOtherSeatTheWin) {
  for (Seat out : {0, 1}) {
    State s = State::start(Config{});
    if (out == 1) s.apply_setup(0, rows_fleet());
    s.eject(out);
    EXPECT_TRUE(s.to_move().empty());
    // The referee still sets up the other seat.
    if (out == 0) {
      EXPECT_FALSE(s.check_setup(1, rows_fleet()));
      s.apply_setup(1, rows_fleet());
    }
    EXPECT_TRUE(s.to_move().empty());
    EXPECT_EQ(s.turn_order(), Seats{1 - out});
    const Standings st = s.standings();
    EXPECT_EQ(st.winners, Seats{1 - out});
    EXPECT_TRUE(st.losers.empty());
    EXPECT_EQ(st.scores, (std::vector<std::int64_t>{0, 0}));
  }
}

TEST(Setup, WhenBothAreOutNobodyWins) {
  State s = State::start(Config{});
  s.eject(0);
  EXPECT_EQ(foul_code(s.check_setup(0, rows_fleet())), "not-in-game");
  s.eject(1);
  EXPECT_TRUE(s.turn_order().empty());
  EXPECT_TRUE(s.standings().winners.empty());
  EXPECT_TRUE(s.standings().losers.empty());
}

TEST(Shots, TurnsAlternateFromSeatZero) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  EXPECT_EQ(foul_code(s.check(1, {{1, 1}})), "not-your-turn");
  fire(s, 0, {1, 1});
  EXPECT_EQ(s.to_move(), Seats{1});
  EXPECT_EQ(foul_code(s.check(0, {{1, 2}})), "not-your-turn");
  fire(s, 1, {1, 1});
  EXPECT_EQ(s.to_move(), Seats{0});
  EXPECT_EQ(s.view(0).turn, 2);
}

TEST(Shots, OneShotPerTurnWithoutSalvo) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  auto foul = s.check(0, {});
  EXPECT_EQ(foul_code(foul), "wrong-shot-count");
  EXPECT_EQ(foul->detail, "0 shots; one shot per turn");
  EXPECT_EQ(foul_code(s.check(0, {{0, 0}, {0, 1}})), "wrong-shot-count");
}

TEST(Shots, OffTheGridIsAFoul) {
  Config c;
  c.rows = 6;
  c.cols = 8;
  c.ships = {2};
  State s = ready(c, {{2, {0, 0}, Dir::h}}, {{2, {0, 0}, Dir::v}});
  for (Cell off : {Cell{-1, 0}, Cell{0, -1}, Cell{6, 0}, Cell{0, 8}}) {
    auto foul = s.check(0, {off});
    EXPECT_EQ(foul_code(foul), "off-grid");
    EXPECT_NE(foul->detail.find("outside the 6x8 grid"), std::string::npos) << foul->detail;
  }
  EXPECT_FALSE(s.check(0, {{5, 7}}));
}

TEST(Shots, FiringAtACellTwiceIsAFoul) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  fire(s, 0, {3, 3});
  fire(s, 1, {4, 4});
  auto foul = s.check(0, {{3, 3}});
  EXPECT_EQ(foul_code(foul), "repeat-shot");
  EXPECT_EQ(foul->detail, "row 3, col 3 was fired at before");
  EXPECT_FALSE(s.check(0, {{4, 4}})) << "the opponent's shots do not count";
}

TEST(Shots, MissHitAndSunkWithTheLength) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  fire(s, 0, {1, 0});
  fire(s, 1, {9, 9});
  fire(s, 0, {8, 0});
  fire(s, 1, {9, 8});
  fire(s, 0, {8, 1});
  const std::vector<ShotResult> expected = {
      {{1, 0}, Outcome::miss, 0}, {{8, 0}, Outcome::hit, 0}, {{8, 1}, Outcome::sunk, 2}};
  EXPECT_EQ(s.view(0).outgoing, expected);
  EXPECT_EQ(s.view(1).incoming, expected);
  EXPECT_EQ(s.ships_afloat(1), 4);
  EXPECT_EQ(s.hits_landed(0), 2);
  EXPECT_EQ(s.view(0).incoming,
            (std::vector<ShotResult>{{{9, 9}, Outcome::miss, 0}, {{9, 8}, Outcome::miss, 0}}));
}

TEST(Shots, WithoutAnnouncementsTheShooterSeesAHit) {
  Config c;
  c.announce_sunk = false;
  State s = ready(c, rows_fleet(), rows_fleet());
  fire(s, 0, {8, 0});
  fire(s, 1, {9, 9});
  fire(s, 0, {8, 1});
  EXPECT_EQ(s.view(0).outgoing,
            (std::vector<ShotResult>{{{8, 0}, Outcome::hit, 0}, {{8, 1}, Outcome::hit, 0}}));
  // The owner knows.
  EXPECT_EQ(s.view(1).incoming.back(), (ShotResult{{8, 1}, Outcome::sunk, 2}));
  EXPECT_EQ(s.ships_afloat(1), 4);
}

TEST(Shots, ViewsNeverShowTheOpponentsFleet) {
  State s = ready(Config{}, rows_fleet(0), rows_fleet(5));
  const View v = s.view(0);
  EXPECT_EQ(v.you, 0);
  EXPECT_EQ(v.config, Config{});
  EXPECT_EQ(v.fleet, rows_fleet(0));
  EXPECT_EQ(s.view(1).you, 1);
  EXPECT_EQ(s.view(1).fleet, rows_fleet(5));
}

// Plays out a game where `winner` sinks the other's rows_fleet while the other only hits water.
State sink_all(Seat winner) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  std::vector<Cell> targets;
  for (const Ship& ship : rows_fleet())
    for (Cell c : ship_cells(ship)) targets.push_back(c);
  int miss = 0;
  if (winner == 1) fire(s, 0, water(miss++));
  for (std::size_t i = 0; i < targets.size(); ++i) {
    EXPECT_FALSE(s.over());
    fire(s, winner, targets[i]);
    if (i + 1 < targets.size()) fire(s, 1 - winner, water(miss++));
  }
  return s;
}

TEST(End, SinkingTheWholeFleetWinsForEitherSeat) {
  for (Seat winner : {0, 1}) {
    State s = sink_all(winner);
    EXPECT_TRUE(s.over());
    EXPECT_TRUE(s.to_move().empty());
    EXPECT_EQ(s.ships_afloat(1 - winner), 0);
    const Standings st = s.standings();
    EXPECT_EQ(st.winners, Seats{winner});
    EXPECT_EQ(st.losers, Seats{1 - winner});
    std::vector<std::int64_t> scores{0, 0};
    scores[winner] = 17;
    EXPECT_EQ(st.scores, scores);
    EXPECT_EQ(foul_code(s.check(1 - winner, {{9, 9}})), "not-your-turn");
  }
}

TEST(End, AfterMaxTurnsMoreHitsWin) {
  Config c;
  c.max_turns = 2;
  State s = ready(c, rows_fleet(), rows_fleet());
  fire(s, 0, {0, 0});  // hit
  fire(s, 1, {1, 0});
  fire(s, 0, {1, 1});
  EXPECT_FALSE(s.over()) << "seat 1 has one turn left";
  fire(s, 1, {1, 1});
  EXPECT_TRUE(s.over());
  const Standings st = s.standings();
  EXPECT_EQ(st.winners, Seats{0});
  EXPECT_EQ(st.losers, Seats{1});
  EXPECT_EQ(st.scores, (std::vector<std::int64_t>{1, 0}));
}

TEST(End, AfterMaxTurnsSeatOneCanWinOnHits) {
  Config c;
  c.max_turns = 1;
  State s = ready(c, rows_fleet(), rows_fleet());
  fire(s, 0, {1, 0});
  fire(s, 1, {0, 0});
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.standings().winners, Seats{1});
  EXPECT_EQ(s.standings().losers, Seats{0});
}

TEST(End, AfterMaxTurnsEqualHitsDraw) {
  Config c;
  c.max_turns = 2;
  State s = ready(c, rows_fleet(), rows_fleet());
  fire(s, 0, {0, 0});
  fire(s, 1, {2, 0});
  fire(s, 0, {1, 1});
  fire(s, 1, {1, 1});
  EXPECT_TRUE(s.over());
  const Standings st = s.standings();
  EXPECT_EQ(st.winners, (Seats{0, 1}));
  EXPECT_TRUE(st.losers.empty());
  EXPECT_EQ(st.scores, (std::vector<std::int64_t>{1, 1}));
}

TEST(End, AnEjectionDuringPlayGivesTheOtherSeatTheWin) {
  for (Seat out : {0, 1}) {
    State s = ready(Config{}, rows_fleet(), rows_fleet());
    fire(s, 0, {0, 0});
    fire(s, 1, {0, 0});
    fire(s, 0, {0, 1});
    s.eject(out);
    EXPECT_TRUE(s.to_move().empty());
    EXPECT_EQ(s.turn_order(), Seats{1 - out});
    const Standings st = s.standings();
    EXPECT_EQ(st.winners, Seats{1 - out});
    EXPECT_TRUE(st.losers.empty());
    EXPECT_EQ(st.scores, (std::vector<std::int64_t>{2, 1}));
  }
}

TEST(End, StandingsOnlyRankTheSeatsStillIn) {
  State s = sink_all(0);
  s.eject(0);  // its win call failed
  const Standings st = s.standings();
  EXPECT_EQ(st.winners, Seats{1}) << "the only seat still in";
  s.eject(1);
  EXPECT_TRUE(s.standings().winners.empty());
}

TEST(Salvo, OneShotPerShipAfloat) {
  Config c;
  c.salvo = true;
  State s = ready(c, rows_fleet(), rows_fleet());
  EXPECT_EQ(s.shots_due(0), 5);
  auto foul = s.check(0, {{1, 0}});
  EXPECT_EQ(foul_code(foul), "wrong-shot-count");
  EXPECT_EQ(foul->detail, "a salvo of 1 shots; 5 due (5 ships afloat)");
  EXPECT_EQ(foul_code(s.check(0, {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 0}})), "repeat-shot");
  EXPECT_EQ(s.check(0, {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 3}})->detail,
            "row 1, col 3 is fired at twice in one salvo");
  EXPECT_EQ(foul_code(s.check(0, {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {10, 0}})), "off-grid");
  // Seat 0 sinks the 2-ship within one salvo; the answers come in shot order.
  const Shots salvo{{8, 0}, {8, 1}, {0, 0}, {1, 1}, {1, 2}};
  ASSERT_FALSE(s.check(0, salvo));
  s.apply(0, salvo);
  EXPECT_EQ(s.view(0).outgoing[1], (ShotResult{{8, 1}, Outcome::sunk, 2}));
  EXPECT_EQ(s.shots_due(1), 4);
  // Seat 1 sinks seat 0's 2-ship and hits its 3-ship at row 6 twice.
  const Shots back{{8, 0}, {8, 1}, {6, 0}, {6, 1}};
  ASSERT_FALSE(s.check(1, back));
  s.apply(1, back);
  EXPECT_EQ(s.shots_due(0), 4);
  const Shots next{{6, 2}, {6, 1}, {6, 0}, {9, 9}};
  ASSERT_FALSE(s.check(0, next));
  s.apply(0, next);
  EXPECT_EQ(s.shots_due(1), 3);
  ASSERT_FALSE(s.check(1, {{6, 2}, {9, 9}, {9, 8}}));
  s.apply(1, {{6, 2}, {9, 9}, {9, 8}});
  EXPECT_EQ(s.shots_due(0), 3);
  EXPECT_EQ(s.ships_afloat(0), 3);
}

TEST(Salvo, NeverMoreShotsThanCellsLeft) {
  Config c;
  c.rows = c.cols = 5;
  c.ships = {1, 1, 1, 1, 1, 1};
  c.salvo = true;
  const Fleet corner = {{1, {0, 0}, Dir::h}, {1, {0, 1}, Dir::h}, {1, {0, 2}, Dir::h},
                        {1, {0, 3}, Dir::h}, {1, {0, 4}, Dir::h}, {1, {1, 0}, Dir::h}};
  const Fleet last = {{1, {0, 0}, Dir::h}, {1, {0, 1}, Dir::h}, {1, {0, 2}, Dir::h},
                      {1, {0, 3}, Dir::h}, {1, {0, 4}, Dir::h}, {1, {4, 4}, Dir::h}};
  State s = ready(c, corner, last);
  // Seat 0 fires at every cell in row-major order but (4, 4), six a turn; seat 1 misses.
  std::vector<Cell> cells;
  for (int r = 0; r < 5; ++r)
    for (int col = 0; col < 5; ++col) cells.push_back({r, col});
  std::size_t next = 0;
  for (int turn = 0; turn < 4; ++turn) {
    EXPECT_EQ(s.shots_due(0), 6);
    const Shots salvo(cells.begin() + next, cells.begin() + next + 6);
    next += 6;
    ASSERT_FALSE(s.check(0, salvo));
    s.apply(0, salvo);
    ASSERT_EQ(s.shots_due(1), 1);
    fire(s, 1, {4, static_cast<int>(turn)});
  }
  EXPECT_EQ(s.shots_due(0), 1) << "six ships afloat, one cell left";
  fire(s, 0, {4, 4});
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.standings().winners, Seats{0});
}

TEST(Hidden, ScramblingMovesOnlyUntouchedShipsAndKeepsTheViewerBlind) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  fire(s, 0, {0, 0});  // touches the 5-ship
  fire(s, 1, {9, 9});
  fire(s, 0, {5, 5});  // water
  Rng rng(3);
  int changed = 0;
  for (int i = 0; i < 20; ++i) {
    const State t = s.scramble_hidden(0, rng);
    changed += !(t == s);
    EXPECT_EQ(t.view(0), s.view(0));
    EXPECT_EQ(t.view(1).fleet[0], rows_fleet()[0]) << "the hit ship stays";
    EXPECT_FALSE(fleet_foul(Config{}, t.view(1).fleet));
    for (const Ship& ship : t.view(1).fleet)
      for (Cell c : ship_cells(ship)) EXPECT_NE(c, (Cell{5, 5}));
    // Playing on from either gives the viewer the same answers.
    State a = s, b = t;
    fire(a, 1, {9, 8});
    fire(b, 1, {9, 8});
    fire(a, 0, {0, 1});
    fire(b, 0, {0, 1});
    EXPECT_EQ(a.view(0), b.view(0));
  }
  EXPECT_GT(changed, 15);
}

TEST(Hidden, NothingMovesOnceEveryShipIsTouched) {
  State s = ready(Config{}, rows_fleet(), rows_fleet());
  const Cell hits[] = {{0, 0}, {2, 0}, {4, 0}, {6, 0}, {8, 0}};
  for (Cell c : hits) {
    fire(s, 0, c);
    fire(s, 1, c);
  }
  Rng rng(1);
  EXPECT_TRUE(s.scramble_hidden(0, rng) == s);
  EXPECT_TRUE(s.scramble_hidden(1, rng) == s);
}

TEST(Game, TheBundleSatisfiesTheConcepts) {
  static_assert(Game<Battleship>);
  static_assert(SetsUp<Battleship>);
  Rng rng(1);
  const State s = Battleship::start(Battleship::default_config(2), rng);
  EXPECT_EQ(s.config(), Config{});
}

TEST(Game, SampledActionsAreMostlyLegal) {
  Config c;
  c.salvo = true;
  Rng rng(7);
  State s = State::start(c);
  for (Seat p : {0, 1}) s.apply_setup(p, Battleship::sample_fleet(c, rng));
  int legal = 0, steps = 0;
  while (!s.over() && steps < 1000) {
    const Seat p = s.to_move().front();
    const Shots a = Battleship::sample_action(s.view(p), rng);
    ++steps;
    if (s.check(p, a)) continue;
    ++legal;
    s.apply(p, a);
  }
  EXPECT_TRUE(s.over());
  EXPECT_GT(legal, steps * 9 / 10);
}

}  // namespace
}  // namespace arbiter::battleship
