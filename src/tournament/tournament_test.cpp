// Schedules, finishes and standings, specs (JSON and TOML), and the worker pool on a SQLite store.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/entropy.h"
#include "core/seed_tree.h"
#include "core/shell_words.h"
#include "referee/game_log.h"
#include "tournament/audit.h"
#include "tournament/integrity.h"
#include "tournament/live_feed.h"
#include "tournament/log_codec.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/store_test_support.h"
#include "tournament/worker.h"

namespace arbiter::tournament {
namespace {

TournamentSpec spec_of(std::size_t players, std::int64_t seats = 2, std::int64_t rounds = 1,
                       Schedule schedule = Schedule::round_robin, std::string game = "q") {
  TournamentSpec spec;
  spec.game = std::move(game);
  for (std::size_t i = 0; i < players; ++i)
    spec.players.push_back({"p" + std::to_string(i), i % 2 == 0 ? "dag" : "ldasg"});
  spec.seats = seats;
  spec.rounds = rounds;
  spec.schedule = schedule;
  return spec;
}

std::string temp_dir() {
  char dir[] = "/tmp/arbiter-tournament-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  return dir;
}

TEST(Schedule, RoundRobinSeatsEveryOrderedPairOncePerRound) {
  auto spec = spec_of(4, 2, 3);
  spec.pairing = false;
  ASSERT_TRUE(validate_spec(spec).has_value());
  const auto jobs = initial_jobs(spec);
  EXPECT_EQ(static_cast<std::int64_t>(jobs.size()), planned_matches(spec));
  ASSERT_EQ(jobs.size(), 4u * 3u * 3u);
  std::map<std::vector<std::size_t>, int> seen;
  std::set<std::uint64_t> seeds;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].index, static_cast<std::int64_t>(i));
    EXPECT_EQ(jobs[i].round, static_cast<std::int64_t>(i / 12));
    EXPECT_EQ(jobs[i].spec["seed"].get<std::uint64_t>(), seeds::match(spec.seed, jobs[i].index));
    ++seen[seated(jobs[i].spec)];
    seeds.insert(jobs[i].spec["seed"].get<std::uint64_t>());
  }
  EXPECT_EQ(seen.size(), 12u);  // (a, b) and (b, a) for each of the 6 pairs
  for (const auto& [seating, count] : seen) {
    EXPECT_EQ(count, 3);
    EXPECT_NE(seating[0], seating[1]);
  }
  EXPECT_EQ(seeds.size(), jobs.size());
}

TEST(Schedule, PairedSeatingsOfOneSetShareASeedAndAPairId) {
  for (const std::int64_t seats : {2, 3}) {
    auto spec = spec_of(4, seats, 2);
    ASSERT_TRUE(spec.pairing);  // the default
    const auto jobs = initial_jobs(spec);
    const std::size_t group = seats == 2 ? 2 : 6;
    std::map<std::int64_t, std::vector<JobSpec>> pairs;
    for (const auto& j : jobs) {
      const auto pair = pair_of(j.spec);
      ASSERT_TRUE(pair.has_value());
      pairs[*pair].push_back(j);
    }
    ASSERT_EQ(pairs.size(), jobs.size() / group);
    std::set<std::uint64_t> seeds;
    std::int64_t expected_pair = 0;
    for (const auto& [pair, members] : pairs) {
      EXPECT_EQ(pair, expected_pair++);
      ASSERT_EQ(members.size(), group);
      const auto first = members.front();
      EXPECT_EQ(first.spec["seed"].get<std::uint64_t>(), seeds::match(spec.seed, first.index));
      std::set<std::vector<std::size_t>> seatings;
      auto set_of = [](std::vector<std::size_t> v) { std::sort(v.begin(), v.end()); return v; };
      for (const auto& m : members) {
        EXPECT_EQ(m.spec["seed"], first.spec["seed"]);  // one deal for the whole group
        EXPECT_EQ(m.round, first.round);
        EXPECT_EQ(set_of(seated(m.spec)), set_of(seated(first.spec)));  // the same entrants
        seatings.insert(seated(m.spec));
      }
      EXPECT_EQ(seatings.size(), group);  // in every seat order
      seeds.insert(first.spec["seed"].get<std::uint64_t>());
    }
    EXPECT_EQ(seeds.size(), pairs.size());  // and a new deal for every group
  }
  auto swiss = spec_of(6, 2, 3, Schedule::swiss);
  for (const auto& j : initial_jobs(swiss)) {
    EXPECT_EQ(pair_of(j.spec), j.index / 2);
    EXPECT_EQ(j.spec["seed"].get<std::uint64_t>(), seeds::match(swiss.seed, j.index / 2 * 2));
  }
  swiss.pairing = false;
  for (const auto& j : initial_jobs(swiss)) EXPECT_FALSE(pair_of(j.spec).has_value());
}

TEST(Schedule, RoundRobinForFourSeatsHasEverySeating) {
  const auto spec = spec_of(5, 4, 1);
  const auto jobs = initial_jobs(spec);
  ASSERT_EQ(jobs.size(), 5u * 24u);  // C(5,4) subsets, 4! seatings each
  std::set<std::vector<std::size_t>> seatings;
  std::vector<std::map<std::size_t, int>> seat_counts(4);
  for (const auto& j : jobs) {
    const auto s = seated(j.spec);
    seatings.insert(s);
    for (std::size_t seat = 0; seat < 4; ++seat) ++seat_counts[seat][s[seat]];
  }
  EXPECT_EQ(seatings.size(), jobs.size());
  for (const auto& counts : seat_counts)  // every entrant sits in every seat equally often
    for (const auto& [entrant, n] : counts) EXPECT_EQ(n, 24) << entrant;
}

TEST(Schedule, GauntletPutsTheHeroInEveryMatchInBothSeats) {
  auto spec = spec_of(4, 2, 2, Schedule::gauntlet);
  spec.hero = "p2";
  ASSERT_TRUE(validate_spec(spec).has_value());
  const auto jobs = initial_jobs(spec);
  ASSERT_EQ(jobs.size(), 3u * 2u * 2u);
  int first = 0;
  for (const auto& j : jobs) {
    const auto s = seated(j.spec);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_TRUE(s[0] == 2 || s[1] == 2);
    first += s[0] == 2;
  }
  EXPECT_EQ(first, 6);
}

// A result in which seat `winner` won and the other seat lost.
Json win_for(std::size_t winner, std::size_t seats = 2) {
  return {{"winners", {winner}}, {"ejections", Json::array()}, {"scores", std::vector<int>(seats, 0)}};
}

TEST(Schedule, SwissPairsEqualPointsAvoidsRematchesAndAddsBothSeatOrders) {
  const auto spec = spec_of(6, 2, 3, Schedule::swiss);
  ASSERT_TRUE(validate_spec(spec).has_value());
  EXPECT_EQ(planned_matches(spec), 18);
  const auto round0 = initial_jobs(spec);
  ASSERT_EQ(round0.size(), 6u);
  std::vector<StoredResult> results;
  std::set<std::pair<std::size_t, std::size_t>> met;
  for (const auto& j : round0) {
    const auto s = seated(j.spec);
    met.insert(std::minmax(s[0], s[1]));
    // The lower index wins both games: points become 2, 2, 2 for three entrants, 0 for others.
    results.push_back({0, j.index, j.round, j.spec, win_for(s[0] < s[1] ? 0 : 1), "w", 0});
  }
  EXPECT_EQ(met.size(), 3u);
  for (std::size_t i = 0; i + 1 < round0.size(); i += 2)  // pairs play both seat orders
    EXPECT_EQ(seated(round0[i].spec), (std::vector<std::size_t>{seated(round0[i + 1].spec)[1],
                                                                seated(round0[i + 1].spec)[0]}));
  const auto round1 = swiss_round(spec, 1, results);
  ASSERT_EQ(round1.size(), 6u);
  EXPECT_EQ(round1[0].index, 6);
  EXPECT_EQ(swiss_round(spec, 1, results)[3].spec, round1[3].spec);  // deterministic
  std::map<std::size_t, double> points;
  for (const auto& r : results)
    if (auto f = match_finish(r.spec, r.result)) {
      const auto p = finish_points(*f);
      for (std::size_t i = 0; i < f->size(); ++i) points[(*f)[i].entrant] += p[i];
    }
  int mixed = 0;  // three winners and three losers: one pairing must cross over
  for (const auto& j : round1) {
    const auto s = seated(j.spec);
    EXPECT_EQ(j.round, 1);
    EXPECT_FALSE(met.contains(std::minmax(s[0], s[1]))) << s[0] << " " << s[1];
    mixed += points[s[0]] != points[s[1]];
  }
  EXPECT_EQ(mixed, 2);  // one pairing, in both seat orders
}

TEST(Schedule, SwissGivesTheOddOneOutAByeOnlyOnce) {
  const auto spec = spec_of(5, 2, 4, Schedule::swiss);
  std::vector<StoredResult> results;
  std::set<std::size_t> byes;
  for (std::int64_t round = 0; round < 4; ++round) {
    const auto jobs = swiss_round(spec, round, results);
    ASSERT_EQ(jobs.size(), 4u);
    std::set<std::size_t> playing;
    for (const auto& j : jobs) {
      for (std::size_t e : seated(j.spec)) playing.insert(e);
      results.push_back({0, j.index, j.round, j.spec, win_for(0), "w", 0});
    }
    ASSERT_EQ(playing.size(), 4u);
    for (std::size_t e = 0; e < 5; ++e)
      if (!playing.contains(e)) {
        EXPECT_TRUE(byes.insert(e).second) << "second bye for " << e;
      }
  }
}

TEST(Schedule, SeatedRejectsDamagedSpecs) {
  EXPECT_TRUE(seated(Json::object()).empty());
  EXPECT_TRUE(seated(Json{{"seats", {1, -1}}}).empty());
  EXPECT_TRUE(seated(Json{{"seats", "x"}}).empty());
  EXPECT_EQ(seated(Json{{"seats", {3, 1}}}), (std::vector<std::size_t>{3, 1}));
}

TEST(Finish, WinnersFirstThenScoresThenTheEjectedLatestFirst) {
  const Json spec{{"seats", {7, 3, 5, 1}}};
  const Json result{{"winners", {2}},
                    {"ejections", {{{"seat", 3}, {"why", "timeout"}}, {{"seat", 0}, {"why", "foul"}}}},
                    {"scores", {50, 10, 40, 90}}};
  const auto f = match_finish(spec, result);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->size(), 4u);
  EXPECT_EQ((*f)[2].entrant, 5u);
  EXPECT_EQ((*f)[2].place, 0);  // the winner
  EXPECT_EQ((*f)[1].place, 1);  // still in
  EXPECT_EQ((*f)[0].place, 2);  // ejected second: ahead of the first ejected
  EXPECT_EQ((*f)[3].place, 3);
  const auto points = finish_points(*f);
  EXPECT_DOUBLE_EQ(points[2], 1.0);
  EXPECT_DOUBLE_EQ(points[1], 2.0 / 3);
  EXPECT_DOUBLE_EQ(points[3], 0.0);
}

TEST(Finish, TiesShareAndErrorsAndDamageGiveNothing) {
  const Json spec{{"seats", {0, 1}}};
  const auto both = match_finish(spec, {{"winners", {0, 1}}, {"ejections", Json::array()}, {"scores", {3, 3}}});
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(finish_points(*both), (std::vector<double>{0.5, 0.5}));
  EXPECT_FALSE(match_finish(spec, {{"error", "cannot start"}}).has_value());
  EXPECT_FALSE(match_finish(spec, {{"winners", {5}}, {"ejections", Json::array()}, {"scores", {1, 2}}}).has_value());
  EXPECT_FALSE(match_finish(spec, Json::object()).has_value());
  EXPECT_FALSE(match_finish(Json{{"seats", {0, 0}}}, win_for(0)).has_value());
}

TEST(Standings, CountsPointsWinsEjectionsAndRanksTheStrongestFirst) {
  const auto spec = spec_of(3);
  std::vector<StoredResult> results;
  std::int64_t index = 0;
  // p2 beats everyone, p1 beats p0; one match errored; p0 is ejected once.
  for (int rep = 0; rep < 10; ++rep) {
    results.push_back({0, index++, rep, Json{{"seats", {2, 0}}}, win_for(0), "w", 0});
    results.push_back({0, index++, rep, Json{{"seats", {1, 2}}}, win_for(1), "w", 0});
    results.push_back({0, index++, rep, Json{{"seats", {0, 1}}}, win_for(1), "w", 0});
  }
  results.push_back({0, index++, 0, Json{{"seats", {0, 1}}}, Json{{"error", "x"}}, "w", 0});
  results.push_back({0, index++, 0, Json{{"seats", {0, 1}}},
                     {{"winners", {1}}, {"ejections", {{{"seat", 0}, {"why", "timeout"}}}}, {"scores", {0, 0}}},
                     "w", 0});
  const auto table = compute_standings(spec, results);
  EXPECT_EQ(table.matches, 31);
  EXPECT_EQ(table.errors, 1);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0].name, "p2");
  EXPECT_EQ(table.rows[0].wins, 20);
  EXPECT_DOUBLE_EQ(table.rows[0].points, 20);
  EXPECT_EQ(table.rows[1].name, "p1");
  EXPECT_EQ(table.rows[2].name, "p0");
  EXPECT_EQ(table.rows[2].ejections, 1);
  EXPECT_EQ(table.rows[2].matches, 21);
  EXPECT_GT(table.rows[0].elo.elo, table.rows[1].elo.elo);
  EXPECT_GT(table.rows[1].elo.elo, table.rows[2].elo.elo);
  EXPECT_GT(table.rows[0].glicko.rating, table.rows[2].glicko.rating);
  const std::string csv = standings_csv(table);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
  EXPECT_NE(csv.find("1,p2,dag,20,20,20.000,0"), std::string::npos) << csv;
  const Json j = standings_json(table);
  EXPECT_EQ(j["standings"][0]["name"], "p2");
  EXPECT_EQ(j["errors"], 1);
  EXPECT_NE(standings_text(table).find("1 could not be played"), std::string::npos);
}

TEST(Standings, DamagedRowsAreLeftOutAndCountedNeverPlayedOrErrored) {
  const auto spec = spec_of(3);
  std::vector<StoredResult> results;
  results.push_back({0, 0, 0, Json{{"seats", {0, 1}}, {"seed", 1}}, win_for(0), "w", 0});
  StoredResult edited{0, 1, 0, Json{{"seats", {0, 1}}, {"seed", 2}}, win_for(1), "w", 0};
  edited.damage = "winner 7 is not one of its 2 seats";
  results.push_back(edited);
  // Seats an entrant the tournament lacks: a job from elsewhere.
  results.push_back({0, 2, 0, Json{{"seats", {0, 5}}, {"seed", 3}}, win_for(1), "w", 0});
  const auto table = compute_standings(spec, results);
  EXPECT_EQ(table.matches, 1);
  EXPECT_EQ(table.errors, 0);
  EXPECT_EQ(table.damaged, 2);
  EXPECT_NE(standings_text(table).find("2 damaged"), std::string::npos);
  EXPECT_EQ(standings_json(table)["damaged"], 2);
  EXPECT_EQ(row_damage(spec, results[2]), "it seats entrant 5, the tournament has 3");
  const std::string csv = matches_csv(spec, results);
  EXPECT_NE(csv.find("damaged: winner 7 is not one of its 2 seats"), std::string::npos) << csv;
  EXPECT_NE(csv.find("1,0,,2,p0 p1,,,,,"), std::string::npos) << csv;  // no outcome shown
}

TEST(Standings, SeatsThatAreNotIntegersAreNeverConvertedAndNeverAMatch) {
  // Found by fuzz/targets/store_rows.cpp: a float winner was converted to a seat number (a huge
  // one is undefined behaviour) when a row reached the standings unchecked.
  const auto spec = spec_of(2);
  std::vector<StoredResult> results;
  for (const Json& winner : {Json(-9.2e19), Json(0.5), Json(1e30), Json(-1)}) {
    Json result = win_for(0);
    result["winners"] = Json::array({winner});
    results.push_back({0, static_cast<std::int64_t>(results.size()), 0,
                       Json{{"seats", {0, 1}}, {"seed", 1}}, result, "w", 0});
  }
  Json score = win_for(0);
  score["scores"] = Json::array({1e30, 0});
  results.push_back({0, 4, 0, Json{{"seats", {0, 1}}, {"seed", 1}}, score, "w", 0});
  const auto table = compute_standings(spec, results);
  EXPECT_EQ(table.matches, 0);
  EXPECT_EQ(table.errors + table.damaged, 5);
}

TEST(Standings, MatchLinesCarryTheCommandThatReplaysThem) {
  auto spec = spec_of(2);
  spec.config = Json{{"players", 2}};
  spec.players[1].bot = "cmd:python3 bot.py";
  const Json job{{"seats", {1, 0}}, {"seed", 42}};
  EXPECT_EQ(reproduce_command(spec, job),
            "arbiter play q --player 'p1:cmd:python3 bot.py' --player p0:dag --seed 42 --config "
            "'{\"players\":2}'");
  const std::string csv = matches_csv(spec, {{0, 0, 0, job, win_for(1), "w1", 0.5}});
  EXPECT_NE(csv.find("0,0,,42,p1 p0,p0,0 0,,,0.500,w1,,"), std::string::npos) << csv;
}

TEST(Spec, RoundTripsThroughJsonAndRejectsNonsense) {
  auto spec = spec_of(3, 2, 4, Schedule::gauntlet);
  spec.hero = "p1";
  spec.seed = 18446744073709551615ull;
  spec.config = Json{{"players", 2}};
  auto back = decode_spec(encode_spec(spec));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(encode_spec(*back), encode_spec(spec));
  EXPECT_FALSE(decode_spec(Json{{"game", "q"}}).has_value());
  EXPECT_FALSE(decode_spec(Json{{"game", "q"}, {"players", Json::array()}, {"colour", 1}}).has_value());
  // The fair-clock settings (docs/tournaments.md) keep too.
  spec.limit_by = LimitBy::cpu;
  spec.backstop = 2.5;
  spec.load_check = false;
  spec.per_call_ref = true;
  auto timed = decode_spec(encode_spec(spec));
  ASSERT_TRUE(timed.has_value()) << timed.error().message;
  EXPECT_EQ(timed->limit_by, LimitBy::cpu);
  EXPECT_EQ(timed->backstop, 2.5);
  EXPECT_FALSE(timed->load_check);
  EXPECT_TRUE(timed->per_call_ref);
  Json wrong = encode_spec(spec);
  wrong["backstop"] = 0.5;
  EXPECT_FALSE(decode_spec(wrong).has_value());
  wrong = encode_spec(spec);
  wrong["limit_by"] = "sundial";
  EXPECT_FALSE(decode_spec(wrong).has_value());
  EXPECT_EQ(parse_per_call("1ref").value().ms, 1000);
  EXPECT_TRUE(parse_per_call("0.25ref").value().ref);
  EXPECT_FALSE(parse_per_call("0.5").value().ref);
  for (const char* text : {"", "ref", "0ref", "-1", "601", "1 ref", "1REF", "nan", "1e9ref"})
    EXPECT_FALSE(parse_per_call(text).has_value()) << text;
  auto bad = [&](auto edit) {
    auto s = spec_of(3);
    edit(s);
    auto ok = validate_spec(s);
    return ok.has_value() ? std::string() : ok.error().message;
  };
  EXPECT_NE(bad([](auto& s) { s.game = "chess"; }).find("unknown game"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.seats = 5; }).find("2 to 4"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.players[1].name = "p0"; }).find("twice"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.players[1].name = "a b"; }).find("letters"), std::string::npos);
  EXPECT_EQ(bad([](auto& s) { s.players[1].bot = "tcp"; }), "");  // a client (RemoteDesk)
  EXPECT_NE(bad([](auto& s) { s.seats = 4; }).find("at least 4"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.schedule = Schedule::swiss; s.seats = 3; }).find("swiss"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.hero = "p1"; }).find("gauntlet"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.schedule = Schedule::gauntlet; s.hero = "zed"; }).find("zed"), std::string::npos);
  EXPECT_NE(bad([](auto& s) { s.config = Json{{"players", 3}}; }).find("--seats is 2"), std::string::npos);
  EXPECT_NE(bad([](auto& s) {
              s.game = "speed_scrabble";
              s.seats = 8;
              for (auto& p : s.players) p.bot = "solver";
              for (int i = 3; i < 16; ++i) s.players.push_back({"x" + std::to_string(i), "solver"});
            }).find("the limit is"),
            std::string::npos);
}

// A new tournament draws its master seed and its program key; both are stored (the key as hex)
// and come back, and a reproduce command of a match with programs carries the key.
TEST(Spec, ANewTournamentDrawsItsSeedAndProgramKeyAndKeepsThem) {
  const TournamentSpec a = new_tournament_spec(), b = new_tournament_spec();
  EXPECT_NE(a.seed, b.seed);
  EXPECT_EQ(a.program_key.size(), seeds::kProgramKeyBytes);
  EXPECT_NE(a.program_key, b.program_key);
  auto spec = spec_of(2);
  spec.seed = a.seed;
  spec.program_key = a.program_key;
  spec.players[1].bot = "cmd:python3 bot.py";
  const Json stored = encode_spec(spec);
  EXPECT_EQ(stored["program_key"], to_hex(a.program_key));
  auto back = decode_spec(stored);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->program_key, a.program_key);
  EXPECT_EQ(back->seed, a.seed);
  for (const Json& key : {Json("00ff"), Json(std::string(32, 'g')), Json(7)}) {
    Json bad = stored;
    bad["program_key"] = key;
    EXPECT_FALSE(decode_spec(bad)) << key;
  }
  Json old = stored;
  old.erase("program_key");  // stored before keys: none, and one is drawn per match
  EXPECT_EQ(decode_spec(old)->program_key, "");
  const Json job{{"seats", {1, 0}}, {"seed", 42}};
  const std::string with = reproduce_command(spec, job);
  EXPECT_NE(with.find("--program-key " + to_hex(a.program_key)), std::string::npos) << with;
  EXPECT_EQ(reproduce_command(spec, job, /*with_key=*/false).find("--program-key"),
            std::string::npos);
  spec.players[1].bot = "dag";  // house bots have no program seeds
  EXPECT_EQ(reproduce_command(spec, job).find("--program-key"), std::string::npos);
  // A file without a seed has one drawn; with one, it is the file's.
  const std::string dir = temp_dir();
  std::ofstream(dir + "/drawn.toml") << "game = \"q\"\n[[player]]\nname = \"a\"\nbot = \"dag\"\n"
                                        "[[player]]\nname = \"b\"\nbot = \"dag\"\n";
  auto first = read_spec_file(dir + "/drawn.toml"), second = read_spec_file(dir + "/drawn.toml");
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->seed, second->seed);
  EXPECT_NE(first->program_key, second->program_key);
  EXPECT_EQ(first->program_key.size(), seeds::kProgramKeyBytes);
}

// A match with a tcp entrant is reproduced where its client connects.
TEST(Standings, AReproduceCommandOfATcpEntrantsMatchCarriesItsAddress) {
  auto spec = spec_of(2);
  spec.players[1].bot = "tcp";
  spec.listen = "127.0.0.1:45678";
  const Json job{{"seats", {1, 0}}, {"seed", 42}};
  EXPECT_NE(reproduce_command(spec, job).find("--listen 127.0.0.1:45678"), std::string::npos)
      << reproduce_command(spec, job);
  auto back = decode_spec(encode_spec(spec));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->listen, spec.listen);
  spec.players[1].bot = "dag";  // no tcp seat in the match: no address
  EXPECT_EQ(reproduce_command(spec, job).find("--listen"), std::string::npos);
}

TEST(Spec, ReadsATomlFileAndNamesTheLineOfAnUnknownKey) {
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/league.toml");
    f << "name = \"league\"\ngame = \"battleship\"\nrounds = 3\nseed = 9\nper_call = 0.5\n"
         "schedule = \"round-robin\"\n[config]\nsalvo = true\n"
         "[[player]]\nname = \"d\"\nbot = \"density\"\n[[player]]\nname = \"h\"\nbot = \"hunt\"\n";
  }
  auto spec = read_spec_file(dir + "/league.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->name, "league");
  EXPECT_EQ(spec->game, "battleship");
  EXPECT_EQ(spec->rounds, 3);
  EXPECT_EQ(spec->seed, 9u);
  EXPECT_EQ(spec->per_call_ms, 500);
  EXPECT_EQ(spec->config, (Json{{"salvo", true}}));
  ASSERT_EQ(spec->players.size(), 2u);
  EXPECT_EQ(spec->players[1].bot, "hunt");
  {
    std::ofstream f(dir + "/typo.toml");
    f << "game = \"q\"\nroudns = 3\n";
  }
  auto typo = read_spec_file(dir + "/typo.toml");
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(typo.error().message.find(":2: unknown key \"roudns\""), std::string::npos)
      << typo.error().message;
  {
    std::ofstream f(dir + "/broken.toml");
    f << "game = \"q\nrounds = 3\n";
  }
  auto broken = read_spec_file(dir + "/broken.toml");
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().message.find("broken.toml:1:"), std::string::npos) << broken.error().message;
  EXPECT_FALSE(read_spec_file(dir + "/missing.toml").has_value());
  {
    // Found by fuzz/targets/spec.cpp: the parser quotes the line break it saw.
    std::ofstream f(dir + "/bool.toml");
    f << "game = \"q\"\nrounds = 3\nquiet = t\n";
  }
  auto quoted = read_spec_file(dir + "/bool.toml");
  ASSERT_FALSE(quoted.has_value());
  EXPECT_EQ(quoted.error().message.find('\n'), std::string::npos) << quoted.error().message;
  EXPECT_NE(quoted.error().message.find("bool.toml:3:"), std::string::npos) << quoted.error().message;
  {
    std::ofstream f(dir + "/schedule.toml");
    f << "game = \"q\"\nschedule = \"round\\nrobin\"\n";  // a value quoted in the message
  }
  {
    // Found by fuzz/targets/spec.cpp: nan in a config became null once stored.
    std::ofstream f(dir + "/nan.toml");
    f << "game = \"q\"\n[config]\nplayers = nan\n";
  }
  auto nan = read_spec_file(dir + "/nan.toml");
  ASSERT_TRUE(nan.has_value()) << nan.error().message;
  EXPECT_EQ(decode_spec(encode_spec(*nan)).value().config, nan->config);
  EXPECT_TRUE(nan->config["players"].is_string());
  EXPECT_FALSE(validate_spec(*nan).has_value());
  auto value = read_spec_file(dir + "/schedule.toml");
  ASSERT_FALSE(value.has_value());
  EXPECT_NE(value.error().message.find("schedule \"round\\x0arobin\""), std::string::npos)
      << value.error().message;
  std::filesystem::remove_all(dir);
}

TEST(Spec, CommandArraysPairingAndTheSprtInToml) {
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/duel.toml");
    f << "game = \"battleship\"\nrounds = 50\n[sprt]\nelo0 = 0\nelo1 = 20\nalpha = 0.1\n"
         "[[player]]\nname = \"new\"\ncommand = [\"/bin/cat\", \"my bot.py\", \"it's\"]\n"
         "[[player]]\nname = \"old\"\nbot = \"hunt\"\n";
  }
  auto spec = read_spec_file(dir + "/duel.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->players[0].bot, "cmd:/bin/cat 'my bot.py' 'it'\\''s'");
  EXPECT_TRUE(spec->pairing);  // the default in a file, as on the command line
  ASSERT_TRUE(spec->sprt.has_value());
  EXPECT_EQ(spec->sprt->elo1, 20);
  EXPECT_EQ(spec->sprt->alpha, 0.1);
  EXPECT_EQ(spec->sprt->beta, 0.05);
  EXPECT_TRUE(spec->sprt->pentanomial);
  auto back = decode_spec(encode_spec(*spec));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(encode_spec(*back), encode_spec(*spec));
  // A spec stored before pairing existed was unpaired.
  Json old = encode_spec(*spec);
  old.erase("pairing");
  old.erase("sprt");
  EXPECT_FALSE(decode_spec(old).value().pairing);
  // ... and before commands were split like a shell: at spaces only, quotes and backslashes
  // literal. Such a command still gives the arguments it gave then.
  old["players"][0]["bot"] = "cmd:/bin/cat  it's\\x \"a\tb\" ";
  const auto then = decode_spec(old).value().players[0].bot;
  const std::vector<std::string> words{"/bin/cat", "it's\\x", "\"a\tb\""};
  EXPECT_EQ(split_shell_words(then.substr(4)).value(), words) << then;
  const std::pair<const char*, const char*> bad[] = {
      {"[[player]]\nname = \"a\"\ncommand = [\"python3\", 7]\n", "list of strings"},
      {"[[player]]\nname = \"a\"\ncommand = []\n", "list of strings"},
      {"[[player]]\nname = \"a\"\ncommand = \"python3 bot.py\"\n", "list of strings"},
      {"[[player]]\nname = \"a\"\nbot = \"hunt\"\ncommand = [\"x\"]\n", "not both"},
      {"pairing = \"yes\"\n", "true or false"},
      {"[sprt]\nelo0 = \"zero\"\n", "expected a number"},
      {"[sprt]\nmodel = \"binomial\"\n", "pentanomial"},
  };
  for (const auto& [text, why] : bad) {
    {
      std::ofstream f(dir + "/bad.toml");
      f << "game = \"battleship\"\n" << text;
    }
    auto refused = read_spec_file(dir + "/bad.toml");
    ASSERT_FALSE(refused.has_value()) << text;
    EXPECT_NE(refused.error().message.find(why), std::string::npos) << refused.error().message;
  }
  std::filesystem::remove_all(dir);
}

TEST(Spec, AnEntrantsWorkingDirectoryIsATermCheckedBeforeAnythingStarts) {
  const std::string dir = temp_dir();
  std::filesystem::create_directory(dir + "/alice bot");
  {
    std::ofstream f(dir + "/alice bot/run.sh");
    f << "#!/bin/sh\nexec cat\n";
  }
  std::filesystem::permissions(dir + "/alice bot/run.sh", std::filesystem::perms::owner_all);
  {
    std::ofstream f(dir + "/dirs.toml");
    f << "game = \"battleship\"\n[[player]]\nname = \"a\"\ncommand = [\"./run.sh\"]\n"
      << "dir = \"" << dir << "/alice bot\"\n[[player]]\nname = \"b\"\nbot = \"hunt\"\n";
  }
  auto spec = read_spec_file(dir + "/dirs.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  ASSERT_TRUE(spec->players[0].program.has_value());
  EXPECT_EQ(spec->players[0].program->dir, dir + "/alice bot");
  // ./run.sh is found in the entrant's directory, not in ours.
  EXPECT_TRUE(validate_spec(*spec).has_value()) << validate_spec(*spec).error().message;
  EXPECT_EQ(decode_spec(encode_spec(*spec)).value().players[0].program->dir, dir + "/alice bot");
  spec->players[0].program->dir = dir + "/nowhere";
  auto refused = validate_spec(*spec);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("nowhere"), std::string::npos) << refused.error().message;
  std::filesystem::remove_all(dir);
}

TEST(Spec, AnEntrantsOwnTimeLimitsFromTomlAndTheirChecks) {
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/own.toml");
    f << "game = \"battleship\"\nper_call = 2\n[[player]]\nname = \"a\"\nbot = \"hunt\"\n"
         "per_call = 0.25\nclock = \"5s+0.1s\"\n[[player]]\nname = \"b\"\nbot = \"hunt\"\n";
  }
  auto spec = read_spec_file(dir + "/own.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->per_call_ms, 2000);
  EXPECT_EQ(spec->players[0].per_call_ms, 250);
  ASSERT_TRUE(spec->players[0].clock.has_value());
  EXPECT_EQ(format_time_control(*spec->players[0].clock), "5s+100ms");
  EXPECT_FALSE(spec->players[1].per_call_ms.has_value());
  ASSERT_TRUE(validate_spec(*spec).has_value());
  auto back = decode_spec(encode_spec(*spec));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(encode_spec(*back), encode_spec(*spec));
  // The slowest seat bounds a match: 200 calls at b.s 2 s (more than a.s 50 s + 5 s), two seats.
  EXPECT_EQ(match_limit(*spec), std::chrono::milliseconds(400'000 * 2));
  // Its play job gives each seat its own limits, and the log says so.
  const auto played = play_job(*spec, Job{1, 1, 0, 0, Json{{"seats", {1, 0}}, {"seed", 3u}}, 1});
  ASSERT_FALSE(played.result.contains("error")) << dump(played.result);
  const Json header = parse_json(played.log.substr(0, played.log.find('\n'))).value();
  EXPECT_EQ(header["seat_limits"],
            (Json::array({{{"per_call_ms", 2000}}, {{"per_call_ms", 250}, {"clock", "5s+100ms"}}})));
  spec->game = "dominosa";
  spec->players[0].bot = spec->players[1].bot = "solver";
  auto unclocked = validate_spec(*spec);
  ASSERT_FALSE(unclocked.has_value());
  EXPECT_NE(unclocked.error().message.find("player a: clock"), std::string::npos);
  // CPU time judges the turns of turn-based games only.
  auto race = spec_of(2);
  race.game = "speed_scrabble";
  race.players = {{"a", "solver"}, {"b", "solver"}};
  EXPECT_TRUE(validate_spec(race).has_value()) << validate_spec(race).error().message;
  race.limit_by = LimitBy::cpu;
  auto refused = validate_spec(race);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("--limit-by cpu"), std::string::npos);
  spec->players[0].clock.reset();  // a real-time race takes a player's own per_call
  EXPECT_TRUE(validate_spec(*spec)) << validate_spec(*spec).error().message;
  {
    std::ofstream f(dir + "/bad.toml");
    f << "game = \"battleship\"\n[[player]]\nname = \"a\"\nbot = \"hunt\"\nper_call = 0\n";
  }
  auto bad = read_spec_file(dir + "/bad.toml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("per_call"), std::string::npos) << bad.error().message;
  std::filesystem::remove_all(dir);
}

TEST(Standings, CrosstableAndEjectionsByReason) {
  auto spec = spec_of(3);
  std::vector<StoredResult> results;
  auto add = [&](std::vector<std::size_t> seats, Json result) {
    const auto i = static_cast<std::int64_t>(results.size());
    results.push_back({i + 1, i, 0, Json{{"seats", seats}, {"seed", 1}}, result, "w", 0});
  };
  add({0, 1}, win_for(0));
  add({1, 0}, win_for(1));
  add({0, 2}, Json{{"winners", {0, 1}}, {"ejections", Json::array()}, {"scores", {0, 0}}});
  Json ejected = win_for(0);
  ejected["ejections"] = {{{"seat", 1}, {"why", "timeout"}, {"call", "x"}, {"detail", ""}}};
  add({1, 2}, ejected);
  ejected["ejections"][0]["why"] = "made-up\x1b[31m";
  add({1, 2}, ejected);
  add({0, 2}, Json{{"error", "the match failed"}});
  const auto table = compute_standings(spec, results);
  const auto c = compute_crosstable(spec, results, table);
  ASSERT_EQ(c.names.size(), 3u);
  auto cell = [&](const std::string& a, const std::string& b) {
    const auto i = std::find(c.names.begin(), c.names.end(), a) - c.names.begin();
    const auto j = std::find(c.names.begin(), c.names.end(), b) - c.names.begin();
    return c.cells[i][j];
  };
  EXPECT_EQ(cell("p0", "p1").points, 2);  // seat 1 of the second match is p0
  EXPECT_EQ(cell("p1", "p0").points, 0);
  EXPECT_EQ(cell("p0", "p1").games, 2);
  EXPECT_EQ(cell("p0", "p2").points, 0.5);
  EXPECT_EQ(cell("p0", "p2").games, 1);  // the failed match is not a game
  EXPECT_EQ(cell("p1", "p2").points, 2);
  EXPECT_EQ(cell("p2", "p1").points, 0);
  EXPECT_EQ(cell("p2", "p1").games, 2);
  EXPECT_NE(crosstable_text(c).find("2/2"), std::string::npos) << crosstable_text(c);
  EXPECT_NE(crosstable_csv(c).find("p1,p2,2,2\n"), std::string::npos) << crosstable_csv(c);
  EXPECT_EQ(crosstable_json(c).size(), 3u);
  for (const auto& row : table.rows)
    if (row.name == "p2") {
      EXPECT_EQ(row.ejections, 2);
      EXPECT_EQ(row.ejected_for.at("timeout"), 1);
      EXPECT_EQ(row.ejected_for.at("unknown"), 1);  // not a name the referee gives
    }
  EXPECT_NE(standings_text(table).find("ejections of p2: 1 timeout, 1 unknown"), std::string::npos)
      << standings_text(table);
}

TEST(Spec, ProgramTermsAndTheClockAtTheTopAndPerPlayer) {
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/terms.toml");
    f << "game = \"q\"\nclock = \"10s+0.1s\"\nmemory = \"512M\"\nprocesses = 32\n"
         "[[player]]\nname = \"a\"\nbot = \"dag\"\n"
         "[[player]]\nname = \"b\"\nbot = \"cmd:/bin/cat\"\ncpu_time = \"60s\"\n"
         "env = [\"OMP_NUM_THREADS=1\"]\n"
         "[[player]]\nname = \"c\"\nbot = \"cmd:/bin/cat\"\nsandbox = false\n";
  }
  auto spec = read_spec_file(dir + "/terms.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  ASSERT_TRUE(spec->clock.has_value());
  EXPECT_EQ(format_time_control(*spec->clock), "10s+100ms");
  EXPECT_EQ(spec->program.limits.memory_bytes, 512u << 20);
  EXPECT_EQ(spec->program.limits.processes, 32u);
  EXPECT_TRUE(spec->program.sandbox.has_value());
  EXPECT_FALSE(spec->players[0].program.has_value());
  // An entrant's own terms start from the top's.
  ASSERT_TRUE(spec->players[1].program.has_value());
  EXPECT_EQ(spec->players[1].program->limits.memory_bytes, 512u << 20);
  EXPECT_EQ(spec->players[1].program->limits.cpu_seconds, 60u);
  EXPECT_EQ(spec->players[1].program->sandbox->environment,
            std::vector<std::string>{"OMP_NUM_THREADS=1"});
  ASSERT_TRUE(spec->players[2].program.has_value());
  EXPECT_FALSE(spec->players[2].program->sandbox.has_value());
  EXPECT_TRUE(unsandboxed(*spec));
  // The store keeps them all.
  auto back = decode_spec(encode_spec(*spec));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(encode_spec(*back), encode_spec(*spec));
  EXPECT_EQ(back->players[1].program, spec->players[1].program);
  EXPECT_EQ(back->clock, spec->clock);
  // Bad terms name the file, the line and the key.
  {
    std::ofstream f(dir + "/bad.toml");
    f << "game = \"q\"\n[[player]]\nname = \"b\"\nbot = \"cmd:/bin/cat\"\nmemory = \"5X\"\n";
  }
  auto bad = read_spec_file(dir + "/bad.toml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("bad.toml:5: player b: memory: \"5X\" is not a size"),
            std::string::npos)
      << bad.error().message;
  // A clock for a game without turns is refused.
  auto race = spec_of(3);
  race.game = "dominosa";
  for (auto& p : race.players) p.bot = "slow=1";
  race.clock = TimeControl{std::chrono::seconds(10), {}, {}};
  auto refused = validate_spec(race);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("no turns to clock"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Worker, PlaysATournamentToTheEndWithOneResultPerMatch) {
  const std::string dir = temp_dir();
  auto store = open_store("sqlite:" + dir + "/t.db");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto spec = spec_of(3, 2, 2, Schedule::round_robin, "battleship");
  spec.players = {{"d", "density"}, {"h", "hunt"}, {"r", "random"}};
  auto id = create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  std::atomic<int> seen{0};
  WorkerOptions options;
  options.threads = 2;
  options.only = *id;
  options.on_result = [&](const Job&, const JobResult& r, bool first) {
    EXPECT_TRUE(first);
    EXPECT_FALSE(r.result.contains("error")) << r.result.dump();
    EXPECT_NE(r.log.find("\"type\":\"result\""), std::string::npos);
    ++seen;
  };
  auto report = run_worker(**store, options);
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_EQ(report->played, 12);
  EXPECT_EQ(report->stored, 12);
  EXPECT_EQ(seen.load(), 12);
  auto results = (*store)->results(*id);
  ASSERT_TRUE(results.has_value());
  ASSERT_EQ(results->size(), 12u);
  const auto table = compute_standings(spec, *results);
  EXPECT_EQ(table.errors, 0);
  EXPECT_EQ(table.rows.back().name, "r");  // random shooting loses to both hunters
  // The same match played again from its job gives the same log: matches replay from seeds.
  Job again{0, *id, (*results)[3].index, (*results)[3].round, (*results)[3].spec, 1};
  const auto replayed = play_job(spec, again);
  auto stored_log = (*store)->log((*results)[3].job);
  ASSERT_TRUE(stored_log.has_value() && stored_log->has_value());
  auto strip = [](const std::string& log) {  // timing fields differ between runs
    std::istringstream in(log);
    auto lines = read_game_log(in);
    std::vector<Json> out;
    for (const auto& l : lines.value()) out.push_back(without_timing(l));
    return out;
  };
  EXPECT_EQ((*stored_log)->damage, "");
  EXPECT_TRUE((*stored_log)->checksummed);
  EXPECT_EQ(strip(replayed.log), strip((*stored_log)->text));
  // The audit replays every stored log and finds each gives its stored result.
  auto audit = audit_tournament(**store, *id, spec);
  ASSERT_TRUE(audit.has_value()) << audit.error().message;
  EXPECT_EQ(audit->results, 12);
  EXPECT_EQ(audit->replayed, 12);
  EXPECT_EQ(audit->unverified, 0);
  EXPECT_TRUE(audit->damaged.empty()) << audit->damaged.front().what;

  // Damage the audit must find, behind the store's back. Match 1: a log with one call left out,
  // its checksum and compression redone (only a replay can tell). Match 2: a seed the schedule
  // never gave. Match 3: a result that is not what the log says.
  const std::string url = "sqlite:" + dir + "/t.db";
  std::string text = (*(*store)->log((*results)[1].job))->text;
  std::size_t cut = 0;
  for (int line = 0; line < 4; ++line) cut = text.find('\n', cut) + 1;
  text.erase(cut, text.find('\n', cut) + 1 - cut);
  std::string hex;
  for (unsigned char c : pack_log(text)) hex += fmt::format("{:02x}", c);
  testing::execute_sql(url, fmt::format("UPDATE results SET log = X'{}', log_sha256 = '{}' "
                                        "WHERE job = {}",
                                        hex, log_checksum(text), (*results)[1].job));
  testing::execute_sql(url, fmt::format("UPDATE jobs SET spec = json_set(spec, '$.seed', 5) "
                                        "WHERE id = {}",
                                        (*results)[2].job));
  testing::execute_sql(
      url, fmt::format("UPDATE results SET result = json_set(result, '$.scores[0]', 999) "
                       "WHERE job = {}",
                       (*results)[3].job));
  audit = audit_tournament(**store, *id, spec);
  ASSERT_TRUE(audit.has_value()) << audit.error().message;
  ASSERT_EQ(audit->damaged.size(), 3u);
  EXPECT_EQ(audit->damaged[0].index, (*results)[1].index);
  EXPECT_NE(audit->damaged[0].what.find("does not replay identically"), std::string::npos)
      << audit->damaged[0].what;
  EXPECT_EQ(audit->damaged[1].index, (*results)[2].index);
  EXPECT_NE(audit->damaged[1].what.find("is not the schedule's"), std::string::npos)
      << audit->damaged[1].what;
  EXPECT_EQ(audit->damaged[2].index, (*results)[3].index);
  EXPECT_NE(audit->damaged[2].what.find("is not the stored result"), std::string::npos)
      << audit->damaged[2].what;
  EXPECT_EQ(audit->replayed, 9);
  std::filesystem::remove_all(dir);
}

TEST(Worker, AMatchThatCannotBePlayedIsStoredAsAnError) {
  auto spec = spec_of(2, 2, 1, Schedule::round_robin, "battleship");
  spec.players = {{"a", "density"}, {"b", "no-such-bot"}};
  const auto r = play_job(spec, Job{1, 1, 0, 0, Json{{"seats", {0, 1}}, {"seed", 1}}, 1});
  ASSERT_TRUE(r.result.contains("error"));
  EXPECT_FALSE(r.result["error"].get<std::string>().empty());
  const auto damaged = play_job(spec, Job{1, 1, 0, 0, Json{{"seats", {0, 9}}, {"seed", 1}}, 1});
  EXPECT_TRUE(damaged.result.contains("error"));
}

TEST(Worker, SwissRoundsAreAddedAsEarlierOnesFinish) {
  const std::string dir = temp_dir();
  auto store = open_store("sqlite:" + dir + "/t.db");
  ASSERT_TRUE(store.has_value());
  auto spec = spec_of(4, 2, 3, Schedule::swiss, "battleship");
  spec.players = {{"d", "density"}, {"h", "hunt"}, {"t", "tracker"}, {"r", "random"}};
  auto id = create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value());
  auto before = (*store)->progress(*id);
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(before->enqueued, 4);
  EXPECT_EQ(before->planned, 12);
  WorkerOptions options;
  options.threads = 2;
  options.only = *id;
  auto report = run_worker(**store, options);
  ASSERT_TRUE(report.has_value()) << report.error().message;
  auto after = (*store)->progress(*id);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->done, 12);
  EXPECT_EQ(after->enqueued, 12);
  EXPECT_EQ(after->duplicates, 0);
  std::filesystem::remove_all(dir);
}

TEST(Worker, ASwissRoundThatNoOneAddedIsAddedByTheNextWorker) {
  // A worker that died between storing a round's last result and adding the next round.
  const std::string dir = temp_dir();
  auto store = open_store("sqlite:" + dir + "/t.db");
  ASSERT_TRUE(store.has_value());
  auto spec = spec_of(4, 2, 2, Schedule::swiss, "battleship");
  spec.players = {{"d", "density"}, {"h", "hunt"}, {"t", "tracker"}, {"r", "random"}};
  auto id = create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value());
  auto round0 = (*store)->claim("dead", 10, std::chrono::seconds(60), *id);
  ASSERT_TRUE(round0.has_value());
  ASSERT_EQ(round0->size(), 4u);
  for (const Job& j : *round0) ASSERT_TRUE((*store)->complete(j.id, "dead", play_job(spec, j)));
  WorkerOptions options;
  options.threads = 1;
  options.only = *id;
  auto report = run_worker(**store, options);
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_EQ(report->played, 4);
  auto p = (*store)->progress(*id);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->done, 8);
  std::filesystem::remove_all(dir);
}

// A play function for the worker whose matches never end until `release` is set (a team stuck
// in C, say), and that counts how many it started.
struct StuckMatches {
  std::shared_ptr<std::atomic<bool>> release = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> ended = std::make_shared<std::atomic<int>>(0);
  auto play() const {
    return [release = release, started = started, ended = ended](
               const TournamentSpec&, const Job&, const std::filesystem::path&) {
      started->fetch_add(1);
      while (!release->load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ended->fetch_add(1);
      return JobResult{};
    };
  }
  // Lets the abandoned matches end, so that no thread outlives the test.
  ~StuckMatches() {
    release->store(true);
    for (int i = 0; i < 400 && ended->load() < started->load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
};

// A tournament of two battleship matches in a fresh SQLite store.
struct TwoMatches {
  std::string dir = temp_dir();
  Expected<std::unique_ptr<Store>> store = open_store("sqlite:" + dir + "/t.db");
  Expected<std::int64_t> id = fail("no store");
  TwoMatches() {
    if (!store) return;
    auto spec = spec_of(2, 2, 1, Schedule::round_robin, "battleship");
    spec.players = {{"d", "density"}, {"h", "hunt"}};
    id = create_tournament(**store, spec);
  }
  bool ready() const { return store && id; }
  ~TwoMatches() {
    if (store) store->reset();
    std::filesystem::remove_all(dir);
  }
};

TEST(Worker, AMatchPastItsLimitIsStoredAsMatchTimeLimitAndNotPlayedAgain) {
  TwoMatches m;
  ASSERT_TRUE(m.ready());
  auto& store = m.store;
  auto& id = m.id;
  StuckMatches stuck;
  WorkerOptions options;
  options.threads = 1;
  options.only = *id;
  options.lease = std::chrono::milliseconds(600);
  options.match_limit = std::chrono::milliseconds(300);
  options.play = stuck.play();
  const auto start = std::chrono::steady_clock::now();
  auto report = run_worker(**store, options);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_EQ(report->over_limit, 2);
  EXPECT_EQ(report->stray_threads, 2);
  EXPECT_EQ(stuck.started->load(), 2);  // each once: no lease ran out and let it be claimed again
  EXPECT_LT(took, std::chrono::seconds(5));
  auto results = (*store)->results(*id);
  ASSERT_TRUE(results.has_value());
  ASSERT_EQ(results->size(), 2u);
  for (const auto& r : *results)
    EXPECT_TRUE(string_or(r.result, "error").starts_with("match-time-limit: ")) << dump(r.result);
  EXPECT_GE(abandoned_matches(), 2);
}

TEST(Worker, AStoppedWorkerReleasesTheMatchesUnderWayAfterTheGraceAndAResumeFinishes) {
  TwoMatches m;
  ASSERT_TRUE(m.ready());
  auto& store = m.store;
  auto& id = m.id;
  StuckMatches stuck;
  std::atomic<bool> stop{false};
  WorkerOptions options;
  options.threads = 2;
  options.batch = 1;
  options.only = *id;
  options.stop = &stop;
  options.stop_grace = std::chrono::milliseconds(200);
  options.play = stuck.play();
  std::thread stopper([&] {
    while (stuck.started->load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop.store(true);  // as the signal handler does: no notification
  });
  const auto start = std::chrono::steady_clock::now();
  auto report = run_worker(**store, options);
  const auto took = std::chrono::steady_clock::now() - start;
  stopper.join();
  ASSERT_TRUE(report.has_value()) << report.error().message;
  EXPECT_EQ(report->cut_short, 2);
  EXPECT_EQ(report->stored, 0);
  EXPECT_LT(took, std::chrono::seconds(3));
  auto p = (*store)->progress(*id);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->done, 0);
  // Released, not leased: a second worker claims and plays both at once.
  WorkerOptions again;
  again.threads = 1;
  again.only = *id;
  auto second = run_worker(**store, again);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->stored, 2);
  EXPECT_EQ(second->duplicates, 0);
}

TEST(LogCodec, PacksLogsSmallAndGivesThemBackExactly) {
  std::string log;
  for (int i = 0; i < 2000; ++i)
    log += "{\"type\":\"call\",\"seat\":" + std::to_string(i % 4) + ",\"verdict\":\"ok\"}\n";
  const std::string packed = pack_log(log);
  EXPECT_LT(packed.size() * 10, log.size());
  EXPECT_EQ(unpack_log(packed).value(), log);
  EXPECT_EQ(unpack_log(pack_log("")).value(), "");
  EXPECT_EQ(unpack_log("{\"type\":\"match\"}\n").value(), "{\"type\":\"match\"}\n");  // unpacked
  std::string damaged = packed;
  damaged[damaged.size() / 2] ^= 0x55;
  EXPECT_FALSE(unpack_log(damaged).has_value());
  EXPECT_FALSE(unpack_log(packed.substr(0, packed.size() - 10)).has_value());
}

TEST(LogCodec, InflatesInPiecesThatMakeTheWholeLog) {
  std::string log;
  for (int i = 0; i < 20000; ++i)
    log += "{\"type\":\"call\",\"n\":" + std::to_string(i * 7919 % 100003) + "}\n";
  const std::string packed = pack_log(log);
  std::string joined;
  std::size_t pieces = 0;
  ASSERT_TRUE(inflate_log(packed, [&](std::string_view piece) {
    EXPECT_LE(piece.size(), std::size_t{1} << 16);
    joined += piece;
    ++pieces;
    return true;
  }));
  EXPECT_EQ(joined, log);
  EXPECT_GT(pieces, 2u);
  // Stopped after the first piece: no error, no more pieces.
  pieces = 0;
  ASSERT_TRUE(inflate_log(packed, [&](std::string_view) { return ++pieces < 1; }));
  EXPECT_EQ(pieces, 1u);
  // Unpacked values pass through; damaged and cut ones are errors.
  joined.clear();
  ASSERT_TRUE(inflate_log("{\"type\":\"match\"}\n", [&](std::string_view p) {
    joined += p;
    return true;
  }));
  EXPECT_EQ(joined, "{\"type\":\"match\"}\n");
  std::string damaged = packed;
  damaged[damaged.size() / 2] ^= 0x55;
  auto keep = [](std::string_view) { return true; };
  EXPECT_FALSE(inflate_log(damaged, keep).has_value());
  EXPECT_FALSE(inflate_log(packed.substr(0, packed.size() - 10), keep).has_value());
  EXPECT_TRUE(inflate_log(pack_log(""), keep).has_value());
}

// The check in pieces (for serving large logs) finds exactly what the whole-text check finds.
TEST(Integrity, ThePieceByPieceCheckAgreesWithTheWholeCheck) {
  const Json spec{{"seats", {0, 1}}, {"seed", 5}};
  const Json result{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {3, 1}}};
  std::string good = dump(Json{{"type", "match"}, {"seed", 5}, {"seats", {"a", "b"}}}) + "\n";
  for (int i = 0; i < 5000; ++i) good += "{\"type\":\"call\",\"seat\":" + std::to_string(i % 2) + "}\n";
  Json end = result;
  end["type"] = "result";
  good += dump(end) + "\n";
  const std::string sum = log_checksum(good);
  std::vector<std::pair<std::string, std::optional<std::string>>> cases = {
      {good, sum}, {good, std::nullopt}, {good, std::string(64, '0')}, {good + "not json\n", std::nullopt},
      {"", std::nullopt}, {"{\"type\":\"call\"}\n", std::nullopt},
      {good.substr(0, good.size() - dump(end).size() - 1), std::nullopt},
      {good.substr(0, good.size() - 1), log_checksum(good.substr(0, good.size() - 1))}};
  std::string middle = good;
  middle[good.size() / 2] = '#';
  cases.push_back({middle, std::nullopt});
  int damaged = 0;
  for (const auto& [text, checksum] : cases) {
    for (const std::string& stored : {pack_log(text), text}) {
      const std::string whole = check_stored_log(spec, result, stored, checksum).damage;
      EXPECT_EQ(packed_log_damage(spec, result, stored, checksum), whole) << text.substr(0, 80);
      damaged += !whole.empty();
    }
    EXPECT_EQ(packed_log_damage(spec, Json{{"error", "x"}}, pack_log(text), checksum),
              check_stored_log(spec, Json{{"error", "x"}}, pack_log(text), checksum).damage);
  }
  EXPECT_GE(damaged, 12);  // every case but the sound ones is damaged
  std::string cut = pack_log(good);
  cut.resize(cut.size() - 5);
  EXPECT_EQ(packed_log_damage(spec, result, cut, sum), check_stored_log(spec, result, cut, sum).damage);
}

// The live feed writes each match's spectator lines (never more), numbered without gaps; a
// failed write is tried again with the same numbers; a match that ends is dropped; a queue the
// store cannot drain stops growing.
TEST(LiveFeed, WritesSpectatorLinesAndRetriesAFailedWrite) {
  const std::string url = testing::fresh_store_url("sqlite");
  auto store = open_store(url);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto t = (*store)->create_tournament("t", "nosuch", Json::object(), 2,
                                       {{0, 0, Json{{"seats", {0, 1}}, {"seed", 1}}},
                                        {1, 0, Json{{"seats", {1, 0}}, {"seed", 2}}}});
  ASSERT_TRUE(t.has_value());
  auto jobs = (*store)->claim("w", 2, std::chrono::seconds(60));
  ASSERT_TRUE(jobs.has_value() && jobs->size() == 2);
  const Job& a = (*jobs)[0];
  LiveFeed feed(**store);
  auto watcher = feed.watch("nosuch", a);  // a game without a projection: the cautious default
  const Json header{{"type", "match"}, {"seats", {"x", "y"}}, {"teams", "SECRET"}};
  const Json call{{"type", "call"}, {"seat", 0}, {"args", "SECRET"}, {"reply", "SECRET"},
                  {"detail", "foul: SECRET"}};
  watcher->on_line(header);
  watcher->on_line(call);
  auto wrote = feed.flush();
  ASSERT_TRUE(wrote.has_value()) << wrote.error().message;
  EXPECT_EQ(*wrote, 2);
  auto lines = (*store)->live_lines(a.id, 0, 100);
  ASSERT_TRUE(lines.has_value());
  ASSERT_EQ(lines->lines.size(), 2u);
  for (const auto& l : lines->lines) EXPECT_EQ(l.find("SECRET"), std::string::npos) << l;
  EXPECT_EQ(parse_json(lines->lines[1]).value()["detail"], "foul");

  // The table is gone: the write fails and the lines wait; back, they go with their numbers.
  testing::execute_sql(url, "DROP TABLE live_lines");
  watcher->on_line(Json{{"type", "notice"}, {"n", 2}});
  watcher->on_line(Json{{"type", "notice"}, {"n", 3}});
  EXPECT_FALSE(feed.flush().has_value());
  EXPECT_EQ(feed.failures(), 1);
  ASSERT_TRUE(open_store(url).has_value());  // makes the table again
  wrote = feed.flush();
  ASSERT_TRUE(wrote.has_value()) << wrote.error().message;
  EXPECT_EQ(*wrote, 2);
  lines = (*store)->live_lines(a.id, 2, 100);
  ASSERT_TRUE(lines.has_value());
  ASSERT_EQ(lines->lines.size(), 2u);
  EXPECT_EQ(parse_json(lines->lines[0]).value()["n"], 2);
  EXPECT_EQ(parse_json(lines->lines[1]).value()["n"], 3);

  // A match that ended: its unwritten lines are dropped.
  watcher->on_line(Json{{"type", "notice"}, {"n", 4}});
  watcher.reset();
  EXPECT_EQ(feed.flush().value(), 0);

  // A store that falls behind by more than kMaxQueued lines: that match stops feeding.
  auto flood = feed.watch("nosuch", (*jobs)[1]);
  for (std::size_t i = 0; i <= LiveFeed::kMaxQueued; ++i) flood->on_line(Json{{"type", "notice"}});
  flood->on_line(Json{{"type", "notice"}});
  EXPECT_EQ(feed.flush().value(), 0);
  EXPECT_TRUE((*store)->live_lines((*jobs)[1].id, 0, 100)->lines.empty());
}

}  // namespace
}  // namespace arbiter::tournament
