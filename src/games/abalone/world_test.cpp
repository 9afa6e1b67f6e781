// Concurrent Abalone's pure world (docs/games/abalone.md): the board, §3's resolution, spawning,
// scoring, the end of the game, the bot API's queries, the JSON forms and the §7 GUI commands.
#include "games/abalone/world.h"

#include <set>

#include <gtest/gtest.h>

#include "games/abalone/board.h"
#include "games/abalone/gui.h"

namespace arbiter::abalone {
namespace {

using Strings = std::vector<std::string>;
using Pids = std::vector<Pid>;

Hex hex(std::string_view name) {
  auto h = parse_hex(name);
  EXPECT_TRUE(h) << name;
  return h.value_or(Hex{});
}

Piece b(Pid pid, std::string_view at, Dir dir = kNoDir) {
  return {pid, Team::black, hex(at), dir};
}
Piece w(Pid pid, std::string_view at, Dir dir = kNoDir) {
  return {pid, Team::white, hex(at), dir};
}

World make(std::vector<Piece> pieces, Config config = {}) {
  auto world = World::from_pieces(config, std::move(pieces));
  EXPECT_TRUE(world) << world.error().message;
  return world ? *world : World::start(config);
}

// Where pid is, by name; "dead" when it is not a live piece.
std::string where(const World& world, Pid pid) {
  const Piece* p = world.find(pid);
  return p ? hex_name(p->hex) : "dead";
}

Dir dir_of(const World& world, Pid pid) {
  return world.find(pid)->dir;
}

// ---- Board ----

TEST(AbaloneBoard, HasSixtyOneHexesInNameOrder) {
  int count = 0;
  for (int r = -10; r <= 10; ++r)
    for (int d = -10; d <= 10; ++d) count += on_board(r, d);
  EXPECT_EQ(count, 61);
  EXPECT_EQ(all_hexes().size(), 61u);
  EXPECT_EQ(hex_name(all_hexes().front()), "A-4");
  EXPECT_EQ(hex_name(all_hexes().back()), "I4");
  EXPECT_TRUE(std::ranges::is_sorted(all_hexes()));
  EXPECT_FALSE(on_board(4, -1));  // I-1: |r - d| = 5
  EXPECT_FALSE(on_board(-4, 1));  // A1
  EXPECT_TRUE(on_board(-4, 0));   // A0
  EXPECT_FALSE(on_board(INT64_MAX, INT64_MAX));
}

TEST(AbaloneBoard, NamesRoundTrip) {
  EXPECT_EQ(hex_name({-4, -4}), "A-4");
  EXPECT_EQ(hex_name({4, 4}), "I4");
  EXPECT_EQ(hex_name({0, 0}), "E0");
  EXPECT_EQ(hex_name({-3, -1}), "B-1");
  EXPECT_EQ(gui_hex_name({-3, -2}), "B~2");
  EXPECT_EQ(gui_hex_name({3, 1}), "H1");
  EXPECT_EQ(parse_hex("B~2"), (Hex{-3, -2}));
  EXPECT_EQ(parse_hex("B-2"), (Hex{-3, -2}));
  for (Hex h : all_hexes()) {
    EXPECT_EQ(parse_hex(hex_name(h)), h);
    EXPECT_EQ(parse_hex(gui_hex_name(h)), h);
  }
  for (std::string_view bad : {"", "E", "J0", "e0", "E+1", "E-0", "E~0", "E10", "E 1", "A4", "I-1",
                               "A-5", "E-", "E--1", "E1 "})
    EXPECT_FALSE(parse_hex(bad)) << bad;
}

TEST(AbaloneBoard, NeighboursFollowTheGuiNumbering) {
  const Hex e0{0, 0};
  EXPECT_EQ(neighbour(e0, 1), (Hex{0, 1}));
  EXPECT_EQ(neighbour(e0, 2), (Hex{1, 1}));
  EXPECT_EQ(neighbour(e0, 3), (Hex{1, 0}));
  EXPECT_EQ(neighbour(e0, 4), (Hex{0, -1}));
  EXPECT_EQ(neighbour(e0, 5), (Hex{-1, -1}));
  EXPECT_EQ(neighbour(e0, 6), (Hex{-1, 0}));
  for (Dir dir = 1; dir <= 6; ++dir) {
    EXPECT_EQ(neighbour(neighbour(e0, dir), opposite(dir)), e0);
    EXPECT_EQ(direction_to(e0, neighbour(e0, dir)), dir);
  }
  // §1: the other diagonal is not adjacent.
  EXPECT_EQ(direction_to(e0, {1, -1}), kNoDir);
  EXPECT_EQ(direction_to(e0, {-1, 1}), kNoDir);
  EXPECT_EQ(direction_to(e0, e0), kNoDir);
  auto on_board_neighbours = [](Hex h) {
    int n = 0;
    for (Dir dir = 1; dir <= 6; ++dir) n += on_board(neighbour(h, dir));
    return n;
  };
  EXPECT_EQ(on_board_neighbours(e0), 6);
  EXPECT_EQ(on_board_neighbours(hex("A-4")), 3);
  EXPECT_EQ(on_board_neighbours(hex("A-2")), 4);
}

// ---- Resolution ----

TEST(AbaloneResolve, SinglePieceMovesIntoAnEmptyHex) {
  World world = make({b(1, "E0", 1)});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E1");
  EXPECT_EQ(dir_of(world, 1), kNoDir);
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0], (ChainMove{1, {1}, hex("E0"), true, {}, std::nullopt}));
}

TEST(AbaloneResolve, NoPieceWalksOffTheBoard) {
  World world = make({b(1, "E4", 1), b(2, "A-4", 5)});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E4");
  EXPECT_EQ(where(world, 2), "A-4");
  ASSERT_EQ(res.chains.size(), 2u);
  EXPECT_FALSE(res.chains[0].legal);
  EXPECT_FALSE(res.chains[1].legal);
  EXPECT_EQ(dir_of(world, 1), kNoDir);
  EXPECT_EQ(dir_of(world, 2), kNoDir);
}

TEST(AbaloneResolve, OwnPieceBlocksUnlessPartOfTheChain) {
  World blocked = make({b(1, "E0", 1), b(2, "E1")});
  blocked.resolve(Team::black);
  EXPECT_EQ(where(blocked, 1), "E0");

  World chain = make({b(1, "E0", 1), b(2, "E1", 1)});
  const Resolution res = chain.resolve(Team::black);
  EXPECT_EQ(where(chain, 1), "E1");
  EXPECT_EQ(where(chain, 2), "E2");
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0].chain, (Pids{1, 2}));
  EXPECT_EQ(res.chains[0].head, hex("E1"));
}

TEST(AbaloneResolve, OnePieceCannotPushOne) {
  World world = make({b(1, "E0", 1), w(2, "E1")});
  world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E0");
  EXPECT_EQ(where(world, 2), "E1");
}

TEST(AbaloneResolve, ChainOfTwoPushesOne) {
  World world = make({b(1, "E0", 1), b(2, "E1", 1), w(3, "E2", 4)});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E1");
  EXPECT_EQ(where(world, 2), "E2");
  EXPECT_EQ(where(world, 3), "E3");
  EXPECT_EQ(dir_of(world, 3), 4);  // a pushed piece keeps its own commitment
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0].pushed, (Pids{3}));
  EXPECT_FALSE(res.chains[0].killed);
}

TEST(AbaloneResolve, ChainOfTwoCannotPushTwo) {
  World world = make({b(1, "E0", 1), b(2, "E1", 1), w(3, "E2"), w(4, "E3")});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E0");
  EXPECT_EQ(where(world, 2), "E1");
  EXPECT_EQ(where(world, 3), "E2");
  EXPECT_EQ(where(world, 4), "E3");
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_FALSE(res.chains[0].legal);
  EXPECT_TRUE(res.chains[0].pushed.empty());
}

TEST(AbaloneResolve, ChainOfThreePushesTwo) {
  // Along direction 2 (UR) for variety: C-2, D-1, E0 push F1, G2 to G2, H3.
  World world = make({b(1, "C-2", 2), b(2, "D-1", 2), b(3, "E0", 2), w(4, "F1"), w(5, "G2")});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "D-1");
  EXPECT_EQ(where(world, 2), "E0");
  EXPECT_EQ(where(world, 3), "F1");
  EXPECT_EQ(where(world, 4), "G2");
  EXPECT_EQ(where(world, 5), "H3");
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0].pushed, (Pids{4, 5}));
}

TEST(AbaloneResolve, ChainOfThreeCannotPushThree) {
  World world =
      make({b(1, "E-2", 1), b(2, "E-1", 1), b(3, "E0", 1), w(4, "E1"), w(5, "E2"), w(6, "E3")});
  world.resolve(Team::black);
  EXPECT_EQ(where(world, 3), "E0");
  EXPECT_EQ(where(world, 6), "E3");
}

TEST(AbaloneResolve, ChainOfFourStillPushesAtMostTwo) {
  World two =
      make({b(1, "E-3", 1), b(2, "E-2", 1), b(3, "E-1", 1), b(4, "E0", 1), w(5, "E1"), w(6, "E2")});
  two.resolve(Team::black);
  EXPECT_EQ(where(two, 4), "E1");
  EXPECT_EQ(where(two, 6), "E3");
  World three = make({b(1, "E-3", 1), b(2, "E-2", 1), b(3, "E-1", 1), b(4, "E0", 1), w(5, "E1"),
                      w(6, "E2"), w(7, "E3")});
  three.resolve(Team::black);
  EXPECT_EQ(where(three, 4), "E0");
}

TEST(AbaloneResolve, PushOffTheBoardKillsAndScores) {
  World world = make({b(1, "E2", 1), b(2, "E3", 1), w(3, "E4")});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E3");
  EXPECT_EQ(where(world, 2), "E4");
  EXPECT_EQ(where(world, 3), "dead");
  EXPECT_EQ(world.score(Team::black), 1);
  EXPECT_EQ(world.score(Team::white), 0);
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0].pushed, (Pids{3}));
  EXPECT_EQ(res.chains[0].killed, 3);
  EXPECT_EQ(res.killed(), (Pids{3}));
  EXPECT_EQ(world.piece_count(Team::white), 0);
}

TEST(AbaloneResolve, ThreePushingTwoKillsTheFarOne) {
  World world = make({b(1, "E0", 1), b(2, "E1", 1), b(3, "E2", 1), w(4, "E3"), w(5, "E4")});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 4), "E4");
  EXPECT_EQ(where(world, 5), "dead");
  EXPECT_EQ(where(world, 3), "E3");
  EXPECT_EQ(res.killed(), (Pids{5}));
  EXPECT_EQ(world.score(Team::black), 1);
}

TEST(AbaloneResolve, OwnPieceBehindTheEnemyBlocksThePush) {
  // H2 holds an own piece (even one committed the same way: it is not contiguous with the chain).
  World world = make({b(1, "E0", 1), b(2, "E1", 1), w(3, "E2"), b(4, "E3", 1)});
  const Resolution res = world.resolve(Team::black);
  EXPECT_EQ(where(world, 1), "E0");
  EXPECT_EQ(where(world, 3), "E2");
  ASSERT_EQ(res.chains.size(), 2u);
  EXPECT_FALSE(res.chains[0].legal);
  EXPECT_EQ(res.chains[1].chain, (Pids{4}));
  EXPECT_TRUE(res.chains[1].legal);
  EXPECT_EQ(where(world, 4), "E4");

  // H3 an own piece behind two enemies likewise.
  World three =
      make({b(1, "E-2", 1), b(2, "E-1", 1), b(3, "E0", 1), w(4, "E1"), w(5, "E2"), b(6, "E3")});
  three.resolve(Team::black);
  EXPECT_EQ(where(three, 3), "E0");
  EXPECT_EQ(where(three, 5), "E2");
}

TEST(AbaloneResolve, LowestPidGoesFirstAndThatMatters) {
  // E0 wants to go right into E1; E1 wants to go up-left. Whoever has the lower PID goes first.
  World e0_first = make({b(1, "E0", 1), b(2, "E1", 3)});
  const Resolution r1 = e0_first.resolve(Team::black);
  EXPECT_EQ(where(e0_first, 1), "E0");  // blocked by E1, which had not moved yet
  EXPECT_EQ(where(e0_first, 2), "F1");
  ASSERT_EQ(r1.chains.size(), 2u);
  EXPECT_EQ(r1.chains[0].chain, (Pids{1}));
  EXPECT_FALSE(r1.chains[0].legal);

  World e1_first = make({b(2, "E0", 1), b(1, "E1", 3)});
  const Resolution r2 = e1_first.resolve(Team::black);
  EXPECT_EQ(where(e1_first, 1), "F1");
  EXPECT_EQ(where(e1_first, 2), "E1");  // E1 was vacated first
  ASSERT_EQ(r2.chains.size(), 2u);
  EXPECT_TRUE(r2.chains[0].legal);
  EXPECT_TRUE(r2.chains[1].legal);
}

TEST(AbaloneResolve, ChainExtendsBothWaysFromTheLowestPid) {
  // PID 1 is the middle of the line; only the full chain of three can push two.
  World world = make({b(2, "E-1", 1), b(1, "E0", 1), b(3, "E1", 1), w(4, "E2"), w(5, "E3")});
  const Resolution res = world.resolve(Team::black);
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_EQ(res.chains[0].chain, (Pids{2, 1, 3}));
  EXPECT_TRUE(res.chains[0].legal);
  EXPECT_EQ(where(world, 2), "E0");
  EXPECT_EQ(where(world, 1), "E1");
  EXPECT_EQ(where(world, 3), "E2");
  EXPECT_EQ(where(world, 5), "E4");
}

TEST(AbaloneResolve, PiecesCommittedElsewhereAreNotInTheChain) {
  World world = make({b(2, "E-1", 3), b(1, "E0", 1), b(3, "E1", 1), w(4, "E2"), w(5, "E3")});
  const Resolution res = world.resolve(Team::black);
  ASSERT_EQ(res.chains.size(), 2u);
  EXPECT_EQ(res.chains[0].chain, (Pids{1, 3}));
  EXPECT_FALSE(res.chains[0].legal);  // two cannot push two
  EXPECT_EQ(res.chains[1].chain, (Pids{2}));
  EXPECT_TRUE(res.chains[1].legal);
  EXPECT_EQ(where(world, 2), "F-1");
  EXPECT_EQ(where(world, 1), "E0");
}

TEST(AbaloneResolve, ClearsOnlyTheResolvedTeamsCommitments) {
  World world = make({b(1, "E4", 1), b(2, "C0", 3), b(3, "C1", 6), w(4, "G0", 4), w(5, "G2", 1)});
  world.resolve(Team::black);
  for (const Piece& p : world.pieces())
    if (p.team == Team::black) {
      EXPECT_EQ(p.dir, kNoDir) << p.pid;
    }
  EXPECT_EQ(dir_of(world, 4), 4);
  EXPECT_EQ(dir_of(world, 5), 1);
  EXPECT_EQ(where(world, 4), "G0");

  const Resolution res = world.resolve(Team::white);
  EXPECT_EQ(res.team, Team::white);
  EXPECT_EQ(where(world, 4), "G-1");
  EXPECT_EQ(where(world, 5), "G3");
  for (const Piece& p : world.pieces()) EXPECT_EQ(p.dir, kNoDir) << p.pid;
}

TEST(AbaloneResolve, NothingCommittedIsAnEmptyResolution) {
  World world = World::start({});
  const World before = world;
  const Resolution res = world.resolve(Team::black);
  EXPECT_TRUE(res.chains.empty());
  EXPECT_EQ(world.pieces(), before.pieces());
}

TEST(AbaloneResolve, ReachingTheWinningScoreStopsAtOnce) {
  Config config;
  config.winning_score = 1;
  World world =
      make({b(1, "E2", 1), b(2, "E3", 1), w(3, "E4"), b(4, "A-3", 4), b(5, "A-2", 4), w(6, "A-4")},
           config);
  const Resolution res = world.resolve(Team::black);
  ASSERT_EQ(res.chains.size(), 1u);
  EXPECT_TRUE(world.over());
  EXPECT_EQ(world.result(), (Result{true, Team::black, EndReason::winning_score}));
  EXPECT_EQ(where(world, 6), "A-4");
  EXPECT_EQ(dir_of(world, 4), 4);  // never judged
  // Frozen.
  EXPECT_FALSE(world.commit(4, 0));
  EXPECT_FALSE(world.kill(4));
  EXPECT_TRUE(world.resolve(Team::black).chains.empty());
}

// ---- Commit ----

TEST(AbaloneCommit, RecordsClearsAndRefuses) {
  World world = World::start({});
  EXPECT_TRUE(world.commit(1, 2));
  EXPECT_EQ(world.mystat(1), (MyStat{-3, -1, 2}));
  EXPECT_TRUE(world.commit(1, 0));
  EXPECT_EQ(world.mystat(1).dir, kNoDir);
  EXPECT_FALSE(world.commit(1, 7));
  EXPECT_FALSE(world.commit(1, -1));
  EXPECT_FALSE(world.commit(99, 1));
  EXPECT_EQ(world.mystat(2), (MyStat{3, 1, 0}));
}

// ---- Spawning ----

TEST(AbaloneSpawn, StartPlacesOnePiecePerTeam) {
  const World world = World::start({});
  ASSERT_EQ(world.pieces().size(), 2u);
  EXPECT_EQ(world.pieces()[0], b(1, "B-1"));
  EXPECT_EQ(world.pieces()[1], w(2, "H1"));
  EXPECT_EQ(world.next_pid(), 3);
  EXPECT_EQ(world.teamstat(Team::black), (TeamStat{1, 0, 13}));
}

TEST(AbaloneSpawn, DrawsAnEmptyNeighbourFromTheSeed) {
  std::set<Hex> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    World world = World::start({});
    Rng rng(seed);
    const auto pid = world.spawn(1, rng);
    ASSERT_TRUE(pid);
    EXPECT_EQ(*pid, 3);
    const Piece& p = *world.find(*pid);
    EXPECT_EQ(p.team, Team::black);
    EXPECT_EQ(p.dir, kNoDir);
    // Golden: the index drawn among the empty neighbours in direction order 1..6.
    Rng expect(seed);
    EXPECT_EQ(p.hex, neighbour(hex("B-1"), static_cast<Dir>(expect.below(6)) + 1));
    seen.insert(p.hex);
  }
  EXPECT_EQ(seen.size(), 6u);

  // Occupied neighbours are skipped: with E1 (dir 1), F1 (2), F0 (3) taken, the choice is among
  // E-1, D-1, D0.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    World world = make({b(1, "E0"), b(2, "E1"), w(3, "F1"), b(4, "F0")});
    Rng rng(seed);
    const auto pid = world.spawn(1, rng);
    ASSERT_TRUE(pid);
    EXPECT_EQ(*pid, 5);
    const std::array<Hex, 3> free{hex("E-1"), hex("D-1"), hex("D0")};
    Rng expect(seed);
    EXPECT_EQ(world.find(*pid)->hex, free[expect.below(3)]);
  }
}

TEST(AbaloneSpawn, RefusedWithoutAnEmptyNeighbourAndDrawsNothing) {
  World world = make({b(1, "A-4"), b(2, "A-3"), w(3, "B-3"), b(4, "B-4")});
  Rng rng(7);
  EXPECT_FALSE(world.spawn(1, rng));
  Rng fresh(7);
  EXPECT_EQ(rng.next(), fresh.next());
  EXPECT_EQ(world.pieces().size(), 4u);
}

TEST(AbaloneSpawn, RefusedAfterTheTeamsFirstResolution) {
  World world = World::start({});
  Rng rng(1);
  world.resolve(Team::black);
  EXPECT_FALSE(world.may_spawn(Team::black));
  EXPECT_FALSE(world.spawn(1, rng));
  EXPECT_EQ(world.teamstat(Team::black), (TeamStat{1, 0, 0}));
  EXPECT_TRUE(world.may_spawn(Team::white));
  EXPECT_EQ(world.spawn(2, rng), 3);
  EXPECT_EQ(world.teamstat(Team::white), (TeamStat{2, 0, 12}));
}

TEST(AbaloneSpawn, RefusedAtMaxPiecesAndForDeadSpawners) {
  Config config;
  config.max_pieces = 3;
  World world = World::start(config);
  Rng rng(3);
  EXPECT_EQ(world.spawn(1, rng), 3);
  EXPECT_EQ(world.spawn(3, rng), 4);  // a spawned piece spawns too
  EXPECT_EQ(world.teamstat(Team::black), (TeamStat{3, 0, 0}));
  EXPECT_FALSE(world.spawn(1, rng));
  EXPECT_EQ(world.spawn(2, rng), 5);  // PIDs stay global
  // A lost piece makes room again while the window is open.
  ASSERT_TRUE(world.kill(4));
  EXPECT_EQ(world.teamstat(Team::black), (TeamStat{2, 0, 1}));
  EXPECT_EQ(world.spawn(1, rng), 6);
  EXPECT_FALSE(world.spawn(4, rng));  // dead
  EXPECT_FALSE(world.spawn(42, rng));
}

// ---- Scoring and the end ----

TEST(AbaloneScore, AnEndedBotScoresForTheEnemy) {
  World world = World::start({});
  const auto gone = world.kill(2);
  ASSERT_TRUE(gone);
  EXPECT_EQ(*gone, w(2, "H1"));
  EXPECT_EQ(world.score(Team::black), 1);
  EXPECT_EQ(world.score(Team::white), 0);
  EXPECT_FALSE(world.at(hex("H1")));
  EXPECT_FALSE(world.kill(2));
  EXPECT_EQ(world.score(Team::black), 1);
  EXPECT_FALSE(world.over());
}

TEST(AbaloneScore, WinningScoreWinsAtOnce) {
  Config config;
  config.winning_score = 2;
  World world = make({b(1, "E0"), w(2, "E2"), w(3, "E3"), w(4, "E4")}, config);
  world.kill(2);
  EXPECT_FALSE(world.over());
  world.kill(3);
  EXPECT_TRUE(world.over());
  EXPECT_EQ(world.result(), (Result{true, Team::black, EndReason::winning_score}));
  EXPECT_EQ(world.standings(), (Standings{{0}, {1}, {2, 0}}));
  world.at_game_end();  // no change once decided
  EXPECT_EQ(world.result().reason, EndReason::winning_score);
}

TEST(AbaloneScore, GameEndTieBreaks) {
  // Higher score wins even with fewer pieces.
  auto higher = World::from_pieces({}, {b(1, "E0"), w(2, "E2"), w(3, "E3")}, {2, 1});
  ASSERT_TRUE(higher);
  higher->at_game_end();
  EXPECT_EQ(higher->result(), (Result{true, Team::black, EndReason::higher_score}));

  auto pieces = World::from_pieces({}, {b(1, "E0"), w(2, "E2"), w(3, "E3")}, {1, 1});
  ASSERT_TRUE(pieces);
  pieces->at_game_end();
  EXPECT_EQ(pieces->result(), (Result{true, Team::white, EndReason::more_pieces}));
  EXPECT_EQ(pieces->standings(), (Standings{{1}, {0}, {1, 1}}));

  World draw = World::start({});
  EXPECT_EQ(draw.standings(), (Standings{{}, {}, {0, 0}}));
  draw.at_game_end();
  EXPECT_EQ(draw.result(), (Result{true, std::nullopt, EndReason::draw}));
  EXPECT_EQ(draw.standings(), (Standings{{0, 1}, {}, {0, 0}}));
}

TEST(AbaloneScore, ForfeitGivesTheGameToTheEnemy) {
  World world = World::start({});
  world.forfeit(Team::black);
  EXPECT_EQ(world.result(), (Result{true, Team::white, EndReason::forfeit}));
  world.forfeit(Team::white);
  EXPECT_EQ(world.result().winner, Team::white);
}

TEST(AbalonePosition, FromPiecesRejectsBadPositions) {
  auto error = [](std::vector<Piece> pieces, std::array<int, 2> scores = {0, 0}) {
    Config config;
    config.max_pieces = 2;
    auto world = World::from_pieces(config, std::move(pieces), scores);
    EXPECT_FALSE(world);
    return world ? std::string() : world.error().message;
  };
  EXPECT_EQ(error({b(1, "E0"), w(1, "E1")}), "Abalone position: PID 1 appears twice");
  EXPECT_EQ(error({b(0, "E0")}), "Abalone position: PID 0 is not in 1..1000000000");
  EXPECT_EQ(error({b(1, "E0"), w(2, "E0")}), "Abalone position: pieces 1 and 2 are both on E0");
  EXPECT_EQ(error({{1, Team::black, {5, 0}, 0}}),
            "Abalone position: piece 1 is off the board at (5, 0)");
  EXPECT_EQ(error({b(1, "E0", 7)}), "Abalone position: piece 1 has direction 7, not 0..6");
  EXPECT_EQ(error({b(1, "E0"), b(2, "E1"), b(3, "E2")}),
            "Abalone position: black has more than 2 pieces");
  EXPECT_EQ(error({b(1, "E0")}, {0, 6}), "Abalone position: white's score 6 is not in 0..5");
  auto ok = World::from_pieces({}, {w(9, "E0"), b(4, "E1")});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->pieces().front().pid, 4);
  EXPECT_EQ(ok->next_pid(), 10);
}

// ---- The bot API's queries ----

TEST(AbaloneQueries, InspectLookAndScanFromBothSides) {
  const World world = make({b(1, "E0"), w(2, "E2"), b(3, "F0"), w(4, "I4")});
  using enum ObjectCode;
  EXPECT_EQ(world.inspect(Team::black, 0, 2), opiece);
  EXPECT_EQ(world.inspect(Team::white, 0, 2), piece);
  EXPECT_EQ(world.inspect(Team::black, 0, 0), piece);
  EXPECT_EQ(world.inspect(Team::white, 0, 0), opiece);
  EXPECT_EQ(world.inspect(Team::black, 0, 1), empty);
  EXPECT_EQ(world.inspect(Team::black, 5, 0), offboard);
  EXPECT_EQ(world.inspect(Team::black, 4, -1), offboard);
  EXPECT_EQ(world.inspect(Team::white, INT64_MIN, INT64_MAX), offboard);

  EXPECT_EQ(world.look(1, 1), (std::vector{empty, opiece, empty, empty, offboard}));
  EXPECT_EQ(world.look(2, 4), (std::vector{empty, opiece, empty, empty, empty, empty, offboard}));
  EXPECT_EQ(world.look(4, 1), (std::vector{offboard}));
  EXPECT_EQ(world.look(4, 5),
            (std::vector{empty, empty, empty, opiece, empty, empty, empty, empty, offboard}));
  EXPECT_TRUE(world.look(1, 0).empty());
  EXPECT_TRUE(world.look(1, 7).empty());

  using Scan = std::array<ObjectCode, 6>;
  EXPECT_EQ(world.scan(1), (Scan{empty, empty, piece, empty, empty, empty}));
  EXPECT_EQ(world.scan(3), (Scan{empty, empty, empty, empty, empty, piece}));
  EXPECT_EQ(world.scan(4), (Scan{offboard, offboard, offboard, empty, empty, empty}));
  // White's view of E1's neighbourhood: a white piece at E2 is its own, black's E0 the enemy's.
  const World more = make({b(1, "E0"), w(2, "E2"), w(5, "E1")});
  EXPECT_EQ(more.scan(5), (Scan{piece, empty, empty, opiece, empty, empty}));
}

TEST(AbaloneQueries, TeamStat) {
  auto world = World::from_pieces({}, {b(1, "E0"), b(3, "E1"), w(2, "E2")}, {1, 4});
  ASSERT_TRUE(world);
  EXPECT_EQ(world->teamstat(Team::black), (TeamStat{2, 1, 12}));
  EXPECT_EQ(world->teamstat(Team::white), (TeamStat{1, 4, 13}));
  world->resolve(Team::white);
  EXPECT_EQ(world->teamstat(Team::white), (TeamStat{1, 4, 0}));
}

// ---- Forms ----

TEST(AbaloneForms, ConfigRoundTripsAndRejects) {
  Config c;
  c.winning_score = 3;
  c.black_start = hex("A-4");
  EXPECT_EQ(decode_config(encode_config(c)), c);
  EXPECT_EQ(dump(encode_config(Config{})),
            R"({"black_start":"B-1","cycles_per_turn":20,"game_length":20000,"max_pieces":14,)"
            R"("white_start":"H1","winning_score":6})");
  EXPECT_EQ(decode_config(Json::object()), Config{});
  auto tilde = decode_config(Json{{"white_start", "H~1"}});
  ASSERT_TRUE(tilde);
  EXPECT_EQ(tilde->white_start, (Hex{3, -1}));
  for (const char* bad :
       {R"({"winning_score": 0})", R"({"max_pieces": 31})", R"({"black_start": "Z9"})",
        R"({"black_start": 5})", R"({"black_start": "H1"})", R"({"colour": 1})", R"([])"}) {
    auto r = decode_config(Json::parse(bad));
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    }
  }
}

TEST(AbaloneForms, WorldJsonIsDeterministic) {
  World world = World::start({});
  world.commit(2, 4);
  EXPECT_EQ(dump(encode_world(world)),
            R"({"may_spawn":{"black":true,"white":true},"pieces":[)"
            R"({"d":-1,"dir":0,"hex":"B-1","pid":1,"r":-3,"team":"black"},)"
            R"({"d":1,"dir":4,"hex":"H1","pid":2,"r":3,"team":"white"}],)"
            R"("scores":{"black":0,"white":0}})");
  world.forfeit(Team::white);
  EXPECT_EQ(dump(encode_world(world)["result"]), R"({"reason":"forfeit","winner":"black"})");
}

TEST(AbaloneForms, ResolutionJson) {
  World world = make({b(1, "E2", 1), b(2, "E3", 1), w(3, "E4")});
  EXPECT_EQ(dump(encode_resolution(world.resolve(Team::black))),
            R"({"chains":[{"chain":[1,2],"dir":1,"head":"E3","killed":3,"legal":true,)"
            R"("pushed":[3]}],"team":"black"})");
}

TEST(AbaloneForms, RenderDrawsTheHexagon) {
  World world = World::start({});
  world.commit(1, 3);
  const std::string picture = render(world);
  EXPECT_EQ(picture,
            "I          .   .   .   .   .\n"
            "H        .   .  w0   .   .   .\n"
            "G      .   .   .   .   .   .   .\n"
            "F    .   .   .   .   .   .   .   .\n"
            "E  .   .   .   .   .   .   .   .   .\n"
            "D    .   .   .   .   .   .   .   .\n"
            "C      .   .   .   .   .   .   .\n"
            "B        .   .   .  b3   .   .\n"
            "A          .   .   .   .   .\n"
            "black 0 white 0\n")
      << picture;
}

// ---- GUI ----

TEST(AbaloneGui, Commands) {
  EXPECT_EQ(gui_set_empty(hex("B-2")), "set B~2 e");
  EXPECT_EQ(gui_set_piece(hex("B-2"), Team::white, 4), "set B~2 w4");
  EXPECT_EQ(gui_set_piece(hex("I4"), Team::black, 0), "set I4 b0");
  EXPECT_EQ(gui_score(Team::black, 3), "bscore 3");
  EXPECT_EQ(gui_score(Team::white, 0), "wscore 0");
  EXPECT_EQ(gui_turns(12), "turns 12");
  EXPECT_EQ(gui_say(Team::white, "hi\nthere\t\xc3\xa9 ok"), "wsay hi there ?? ok");
  EXPECT_EQ(gui_say(Team::black, std::string(500, 'x')), "bsay " + std::string(200, 'x'));
}

TEST(AbaloneGui, ChangesOfASmallResolution) {
  World world = make({b(1, "E2"), b(2, "E3"), w(3, "E4"), w(4, "B-2", 4)});
  const World start = world;
  world.commit(1, 1);
  world.commit(2, 1);
  EXPECT_EQ(gui_changes(start, world), (Strings{"set E2 b1", "set E3 b1"}));
  const World committed = world;
  world.resolve(Team::black);
  EXPECT_EQ(gui_changes(committed, world),
            (Strings{"set E2 e", "set E3 b0", "set E4 b0", "bscore 1"}));
  EXPECT_TRUE(gui_changes(world, world).empty());
  const Strings full = gui_full(world);
  ASSERT_EQ(full.size(), 63u);
  EXPECT_EQ(full.front(), "set A~4 e");
  EXPECT_EQ(full[5 + 1 + 1], "set B~2 w4");  // row A has 5 hexes; B-4, B-3, then B-2
  EXPECT_EQ(full[61], "bscore 1");
  EXPECT_EQ(full[62], "wscore 0");
}

}  // namespace
}  // namespace arbiter::abalone
