// The hostile-bot matrix of docs/games/abalone.md §5 at match level: every escape route is played
// as a hostile team against a well-behaved witness team, and must be contained: the scheduler keeps
// running (each match runs in a forked child with a deadline, so a hang or a crash is reported
// rather than suffered), the offending bot dies with the right why (the enemy scores) or its team
// forfeits as §5 says, and the witness plays exactly as in a baseline match against an idle team:
// the same talk events (texts and cycles), random draws and score.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "games/abalone/game.h"

namespace arbiter::abalone {
namespace {

using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// Running a match in a child process with a deadline.

struct Options {
  int game_length = 120;  // 6 resolutions
  std::uint64_t seed = 1;
  // The real clock makes the 50 ms watchdog live; the frozen clock (the default) keeps it from
  // ever firing, so that outcomes do not depend on the speed of the machine.
  bool real_clock = false;
  bool gui = false;
  std::chrono::milliseconds deadline = 20s;  // wall clock for the whole match
};

struct Played {
  std::vector<std::string> log;  // the events, one dumped JSON object each
  std::vector<std::string> gui;
  std::string winner;  // "black", "white" or "" (draw)
  std::string reason;
  std::array<int, 2> scores{0, 0};
  std::array<int, 2> pieces{0, 0};
  std::int64_t cycles = 0;
  std::array<std::string, 2> failure;
};

Played play_here(const std::string& black, const std::string& white, const Options& o) {
  Config config;
  config.game_length = o.game_length;
  ManualClock frozen;
  Runtime runtime;
  if (!o.real_clock) runtime.clock = &frozen;
  Played p;
  MatchEvents events;
  events.log = [&](const Json& e) { p.log.push_back(dump(e)); };
  if (o.gui)
    events.frame = [&](const Json& frame) {
      for (const auto& line : frame.at("gui")) p.gui.push_back(line.get<std::string>());
    };
  const MatchSummary s =
      play_match(config, runtime, o.seed, {"black", black}, {"white", white}, events);
  p.winner = s.result.winner ? std::string(team_name(*s.result.winner)) : "";
  p.reason = std::string(end_reason_name(s.result.reason));
  p.scores = s.scores;
  p.pieces = s.pieces;
  p.cycles = s.cycles;
  p.failure = s.failure;
  return p;
}

Json to_json(const Played& p) {
  return {{"log", p.log},       {"gui", p.gui},       {"winner", p.winner}, {"reason", p.reason},
          {"scores", p.scores}, {"pieces", p.pieces}, {"cycles", p.cycles}, {"failure", p.failure}};
}

Played from_json(const Json& j) {
  Played p;
  p.log = j.at("log").get<std::vector<std::string>>();
  p.gui = j.at("gui").get<std::vector<std::string>>();
  p.winner = j.at("winner").get<std::string>();
  p.reason = j.at("reason").get<std::string>();
  p.scores = j.at("scores").get<std::array<int, 2>>();
  p.pieces = j.at("pieces").get<std::array<int, 2>>();
  p.cycles = j.at("cycles").get<std::int64_t>();
  p.failure = j.at("failure").get<std::array<std::string, 2>>();
  return p;
}

struct Outcome {
  bool finished = false;
  std::string trouble;  // when not finished: hung or crashed, and how
  double seconds = 0;   // wall clock of the match (child process included)
  Played played;
  std::vector<Json> events;  // played.log parsed
};

// Plays the match in a forked child; kills it at the deadline. The child sends the whole record
// back as one JSON document through a pipe.
Outcome play_guarded(const std::string& black, const std::string& white, const Options& o) {
  Outcome out;
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) {
    out.trouble = "pipe() failed";
    return out;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) {
    out.trouble = "fork() failed";
    return out;
  }
  if (child == 0) {
    close(fds[0]);
    const std::string bytes = dump(to_json(play_here(black, white, o)));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(3);
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  bool hung = false;
  const auto deadline = start + o.deadline;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) {
      hung = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      hung = true;
      break;
    }
    char buffer[65536];
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is done
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (hung) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (hung) {
    out.trouble = fmt::format(
        "the scheduler hung: the match was still running after {:.1f} s "
        "and was killed",
        out.seconds);
    return out;
  }
  if (WIFSIGNALED(status)) {
    out.trouble = fmt::format("the referee crashed: signal {} ({})", WTERMSIG(status),
                              strsignal(WTERMSIG(status)));
    return out;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.trouble = fmt::format("the referee exited with status {}", WEXITSTATUS(status));
    return out;
  }
  const auto doc = parse_json(bytes);
  if (!doc) {
    out.trouble = "unreadable record from the child: " + doc.error().message;
    return out;
  }
  out.played = from_json(*doc);
  for (const auto& line : out.played.log) {
    const auto e = parse_json(line);
    if (!e) {
      out.trouble = "a log line is not JSON: " + line;
      return out;
    }
    out.events.push_back(*e);
  }
  out.finished = true;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The teams.

// The witness: three bots that never move. W0 burns an exact number of instructions between
// talks (its talk cycles depend on getting exactly its budget every cycle), W1 talks after every
// resolution, W2 talks every cycle a draw of math.random and whether anything leaked into its
// `shared` or `string` tables.
constexpr const char* kWitness = R"lua(
return function()
  spawn(function()
    local n = 0
    while true do
      wait_turn()
      n = n + 1
      talk('W1 woke ' .. n)
    end
  end)
  spawn(function()
    while true do
      talk('W2 ' .. math.random(1000000) .. ' ' .. type(shared.poison) .. ' ' .. type(string.poison))
      yield()
    end
  end)
  local n = 0
  while true do
    for i = 1, 50 do end
    n = n + 1
    talk('W0 ' .. n)
  end
end
)lua";

constexpr const char* kIdle = "return function() while true do wait_turn() end end";

// A hostile team whose main first spawns T, a teammate that talks 'T k' at every cycle k >= 1,
// and then runs `body`. T shows that the scheduler keeps stepping the hostile team's other bots.
std::string with_teammate(const std::string& body) {
  return "return function()\n"
         "  spawn(function() local n = 0 while true do n = n + 1 talk('T ' .. n) yield() end "
         "end)\n" +
         body + "\nend\n";
}

// ---------------------------------------------------------------------------------------------
// Reading the outcome.

std::string hostile_name(Team hostile) {
  return std::string(team_name(hostile));
}

std::vector<const Json*> of_type(const Outcome& o, const std::string& type) {
  std::vector<const Json*> out;
  for (const Json& e : o.events) {
    if (e.value("type", "") == type) out.push_back(&e);
  }
  return out;
}

// "cycle:text" of every talk whose text starts with `prefix`.
std::vector<std::string> talks(const Outcome& o, const std::string& prefix) {
  std::vector<std::string> out;
  for (const Json* e : of_type(o, "talk")) {
    const std::string text = e->value("text", "");
    if (text.rfind(prefix, 0) == 0)
      out.push_back(fmt::format("{}:{}", e->value("cycle", -1), text));
  }
  return out;
}

std::vector<std::string> talk_texts(const Outcome& o) {
  std::vector<std::string> out;
  for (const Json* e : of_type(o, "talk")) out.push_back(e->value("text", ""));
  return out;
}

// The end_bot events of `team`'s bots (their own ends, not pushes).
std::vector<const Json*> ends_of(const Outcome& o, Team team) {
  std::vector<const Json*> out;
  for (const Json* e : of_type(o, "end_bot")) {
    if (e->value("team", "") == team_name(team) && e->value("why", "") != "pushed off") {
      out.push_back(e);
    }
  }
  return out;
}

const Json* forfeit_of(const Outcome& o, Team team) {
  for (const Json* e : of_type(o, "forfeit")) {
    if (e->value("team", "") == team_name(team)) return e;
  }
  return nullptr;
}

std::string describe(const Outcome& o, Team hostile) {
  if (!o.finished) return o.trouble;
  if (const Json* f = forfeit_of(o, hostile)) {
    return fmt::format("forfeit at cycle {}: {}", f->value("cycle", -1), f->value("why", ""));
  }
  std::string s;
  for (const Json* e : ends_of(o, hostile)) {
    s += fmt::format("{}bot {} {} at cycle {}", s.empty() ? "" : "; ", e->value("pid", 0),
                     e->value("why", ""), e->value("cycle", -1));
    if (e->contains("detail")) s += " (" + e->value("detail", "") + ")";
  }
  return s.empty() ? "contained, the bot keeps running" : s;
}

void print_row(const std::string& route, const Outcome& o, Team hostile) {
  std::printf("[matrix] %-48s | %6.3f s | %s\n", route.c_str(), o.seconds,
              describe(o, hostile).c_str());
}

// ---------------------------------------------------------------------------------------------
// The generic check: hostile team against the witness.

struct Expect {
  enum Kind {
    survives,    // no bot of the hostile team ends, nobody forfeits
    bots_die,    // the hostile bots end with `whys` (in order), the witness scores one each
    forfeits,    // the hostile team forfeits during the match, `failure` in its why
    load_fails,  // the hostile team forfeits before the first cycle, `failure` in its why
    anything,    // any of the above: only that the match ends and the witness is unaffected
  } kind = survives;
  std::vector<std::string> whys;
  std::vector<std::string> details;  // substrings of the end_bot details, parallel to whys
  std::string failure;
  bool teammate = false;  // the hostile team was built with_teammate: check that T kept running
};

Expect survives(bool teammate = true) {
  return {Expect::survives, {}, {}, "", teammate};
}
Expect dies(std::string why, std::string detail = "", bool teammate = true) {
  return {Expect::bots_die, {std::move(why)}, {std::move(detail)}, "", teammate};
}
Expect forfeits(std::string failure) {
  return {Expect::forfeits, {}, {}, std::move(failure), false};
}
Expect load_fails(std::string failure) {
  return {Expect::load_fails, {}, {}, std::move(failure), false};
}
Expect anything() {
  return {Expect::anything, {}, {}, "", false};
}

// The witness's talks against an idle team (cached per seat, length and seed).
const Outcome& baseline(Team witness, const Options& o) {
  static std::map<std::tuple<int, int, std::uint64_t>, Outcome> cache;
  const auto key = std::make_tuple(static_cast<int>(team_index(witness)), o.game_length, o.seed);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Options plain = o;
    plain.real_clock = false;
    plain.gui = false;
    plain.deadline = 20s;
    Outcome b = witness == Team::black ? play_guarded(kWitness, kIdle, plain)
                                       : play_guarded(kIdle, kWitness, plain);
    EXPECT_TRUE(b.finished) << "baseline: " << b.trouble;
    it = cache.emplace(key, std::move(b)).first;
  }
  return it->second;
}

Outcome contained(const std::string& route, const std::string& hostile_source, const Expect& x,
                  const Options& o = {}, Team hostile = Team::black) {
  SCOPED_TRACE("route: " + route);
  const Team witness = enemy_of(hostile);
  const std::size_t hi = team_index(hostile);
  const std::size_t wi = team_index(witness);
  const Outcome& base = baseline(witness, o);
  Outcome out = hostile == Team::black ? play_guarded(hostile_source, kWitness, o)
                                       : play_guarded(kWitness, hostile_source, o);
  print_row(route, out, hostile);
  EXPECT_TRUE(out.finished) << out.trouble;
  if (!out.finished || !base.finished) return out;
  const Played& p = out.played;

  // The witness: never ends, never forfeits, says exactly what it says against an idle team, up
  // to where the match stopped.
  EXPECT_TRUE(ends_of(out, witness).empty()) << "a witness bot ended";
  EXPECT_EQ(forfeit_of(out, witness), nullptr) << "the witness forfeited";
  EXPECT_EQ(p.failure[wi], "");
  std::vector<std::string> expected = talks(base, "W");
  const Json* forfeit = forfeit_of(out, hostile);
  if (p.cycles == 0) {
    expected.clear();  // no cycle ran
  } else if (forfeit != nullptr) {
    // A forfeit ends the match at once: in its cycle only the bots stepped before it ran.
    const std::int64_t c = forfeit->value("cycle", std::int64_t{-1});
    std::erase_if(expected, [&](const std::string& t) {
      const std::int64_t tc = std::stoll(t.substr(0, t.find(':')));
      return hostile == Team::black ? tc >= c : tc > c;
    });
  }
  const std::vector<std::string> seen = talks(out, "W");
  EXPECT_EQ(seen.size(), expected.size()) << "the witness's talks differ from the baseline's";
  for (std::size_t i = 0; i < std::min(seen.size(), expected.size()); ++i) {
    if (seen[i] != expected[i]) {
      ADD_FAILURE() << "the witness is affected: talk #" << i << " is '" << seen[i]
                    << "', against an idle team '" << expected[i] << "'";
      break;
    }
  }

  // The hostile team.
  const auto ends = ends_of(out, hostile);
  switch (x.kind) {
    case Expect::anything:
      break;
    case Expect::survives:
      EXPECT_EQ(forfeit, nullptr) << describe(out, hostile);
      EXPECT_TRUE(ends.empty()) << describe(out, hostile);
      EXPECT_EQ(p.cycles, o.game_length);
      EXPECT_EQ(p.scores[wi], 0);
      break;
    case Expect::bots_die: {
      EXPECT_EQ(forfeit, nullptr) << describe(out, hostile);
      std::vector<std::string> whys;
      for (const Json* e : ends) whys.push_back(e->value("why", ""));
      EXPECT_EQ(whys, x.whys) << describe(out, hostile);
      for (std::size_t i = 0; i < std::min(ends.size(), x.details.size()); ++i) {
        const std::string detail = ends[i]->value("detail", "");
        EXPECT_NE(detail.find(x.details[i]), std::string::npos)
            << "end_bot detail '" << detail << "' lacks '" << x.details[i] << "'";
      }
      EXPECT_EQ(p.scores[wi], static_cast<int>(ends.size())) << "the enemy scores 1 per death";
      EXPECT_EQ(p.scores[hi], 0);
      if (p.scores[wi] < 6) {
        EXPECT_EQ(p.cycles, o.game_length);
        EXPECT_EQ(p.winner, team_name(witness));
        EXPECT_EQ(p.reason, "higher-score");
      }
      break;
    }
    case Expect::forfeits:
    case Expect::load_fails:
      EXPECT_NE(forfeit, nullptr) << describe(out, hostile);
      EXPECT_NE(p.failure[hi].find(x.failure), std::string::npos)
          << "failure '" << p.failure[hi] << "' lacks '" << x.failure << "'";
      EXPECT_EQ(p.winner, team_name(witness));
      EXPECT_EQ(p.reason, "forfeit");
      if (x.kind == Expect::load_fails) {
        EXPECT_EQ(p.cycles, 0) << "a team that does not load forfeits before the first cycle";
        if (forfeit != nullptr) {
          EXPECT_EQ(forfeit->value("cycle", -1), 0);
        }
      } else {
        EXPECT_GT(p.cycles, 0);
      }
      break;
  }

  // T, the hostile teammate, was stepped at every cycle of a match that ran to its end.
  if (x.teammate && forfeit == nullptr && p.cycles == o.game_length) {
    std::vector<std::string> expected_t;
    for (int k = 1; k < o.game_length; ++k) expected_t.push_back(fmt::format("{}:T {}", k, k));
    EXPECT_EQ(talks(out, "T "), expected_t)
        << "the offender's teammate was not stepped every cycle";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Budget: infinite loops, loops where the bot cannot yield, recursion.

TEST(AbaloneHostile, AnInfiniteLoopIsPreemptedEveryCycleAndNeverGetsMoreThanItsBudget) {
  // D, a teammate, reports every cycle how many iterations the looping main did since its last
  // report; main runs first (lower PID), so each delta is one cycle's work.
  const std::string looper = R"lua(
return function()
  shared.n = 0
  spawn(function()
    local last = 0
    while true do
      local n = shared.n
      talk('D ' .. (n - last))
      last = n
      yield()
    end
  end)
  local s = shared
  while true do s.n = s.n + 1 end
end
)lua";
  for (Team hostile : kTeams) {
    const Outcome o = contained(fmt::format("infinite loop ({})", hostile_name(hostile)), looper,
                                survives(false), {}, hostile);
    if (!o.finished) continue;
    const auto d = talks(o, "D ");
    ASSERT_EQ(d.size(), 119u) << "the looper's teammate is stepped at every cycle 1..119";
    std::vector<int> deltas;
    for (std::size_t i = 1; i < d.size(); ++i) {  // from cycle 2: whole cycles of looping
      deltas.push_back(std::stoi(d[i].substr(d[i].find("D ") + 2)));
      EXPECT_EQ(d[i].substr(0, d[i].find(':')), std::to_string(i + 1));
    }
    const auto [lo, hi] = std::minmax_element(deltas.begin(), deltas.end());
    EXPECT_GT(*lo, 0);
    EXPECT_LE(*hi - *lo, 1) << "the looper got different shares in different cycles";
    // Each iteration is at least 4 instructions (get, add, set, jump): at most 500 / 4.
    EXPECT_LE(*hi * 4, 500) << "the looper ran more than its budget in one cycle";
  }
}

TEST(AbaloneHostile, LoopsWhereTheBotCannotYieldAreOverruns) {
  contained("table.sort comparator loop under pcall",
            with_teammate("while true do\n"
                          "  pcall(table.sort, {3, 2, 1}, function(a, b) while true do end end)\n"
                          "end"),
            dies("overrun"));
  contained("string.gsub callback loop under pcall",
            with_teammate("while true do\n"
                          "  pcall(string.gsub, 'abc', '%w', function(c) while true do end end)\n"
                          "end"),
            dies("overrun"));
  contained("__lt loop inside table.sort under pcall",
            with_teammate("local mt = {__lt = function() while true do end end}\n"
                          "local t = {setmetatable({}, mt), setmetatable({}, mt)}\n"
                          "while true do pcall(table.sort, t) end"),
            dies("overrun"));
  contained(
      "__index loop called from table.concat under pcall",
      with_teammate("local t = setmetatable({}, {__index = function() while true do end end})\n"
                    "while true do pcall(table.concat, t, ',', 1, 3) end"),
      dies("overrun"));
  contained("loop in nested pcalls inside a gsub callback",
            with_teammate("pcall(pcall, string.gsub, 'a', '.', function()\n"
                          "  pcall(function() while true do end end) end)\n"
                          "while true do yield() end"),
            dies("overrun"));
}

TEST(AbaloneHostile, CloseMethodsAreBudgetedOrDieWithTheBot) {
  // During a yieldable pcall's unwinding the __close loop is ordinary, preempted code.
  contained("__close loop while a pcall unwinds",
            with_teammate("pcall(function()\n"
                          "  local x <close> = setmetatable({}, {__close = function()\n"
                          "    while true do end end})\n"
                          "  error('unwind')\n"
                          "end)"),
            survives());
  // A bot killed by its error does not run its pending __close.
  contained("__close loop pending when the bot errs",
            with_teammate("local x <close> = setmetatable({}, {__close = function()\n"
                          "  talk('CLOSE RAN') while true do end end})\n"
                          "error('dies with a pending close')"),
            dies("error", "pending close"));
}

TEST(AbaloneHostile, CallbackWorkBeyondTheBudgetIsRepaid) {
  // The comparator runs 2000 iterations (~8000 instructions) per call, where the bot cannot be
  // preempted: each step overspends, and the debt is taken from the following steps. N, a
  // teammate, reports the total work every cycle.
  const std::string heavy = R"lua(
return function()
  shared.n = 0
  spawn(function() while true do talk('N ' .. shared.n) yield() end end)
  local s = shared
  local function cmp(a, b) for i = 1, 2000 do s.n = s.n + 1 end return a < b end
  while true do table.sort({3, 2, 1}, cmp) end
end
)lua";
  Options o;
  o.game_length = 400;
  const Outcome out = contained("budget debt from comparators", heavy, survives(false), o);
  if (!out.finished) return;
  const auto n = talks(out, "N ");
  ASSERT_FALSE(n.empty());
  const long long total = std::stoll(n.back().substr(n.back().find("N ") + 2));
  // 400 cycles of 500 instructions, plus at most the overrun limit (100000) still owed; an
  // iteration is at least 4 instructions. Without repayment it would be ~6000 per cycle.
  EXPECT_LE(total * 4, 400LL * 500 + 100'000) << "the bot got more than its share";
  EXPECT_GE(total * 4, 300LL * 500 / 2) << "the bot was starved";
}

// A recursive function with a 150-slot frame: Lua's stack limit (1,000,000 slots) is reached
// after ~6700 calls, some 40 cycles of budgeted work.
std::string fat_recursion() {
  std::string locals;
  for (int i = 1; i <= 150; ++i) locals += fmt::format("{}v{}", i == 1 ? "" : ", ", i);
  return "local function f(n) local " + locals + " = n return f(n + 1) + 1 end\n";
}

TEST(AbaloneHostile, DeepRecursionIsAnErrorOrCaught) {
  contained("deep Lua recursion", with_teammate(fat_recursion() + "f(1)"),
            dies("error", "stack overflow"));
  const Outcome o =
      contained("deep Lua recursion under pcall",
                with_teammate(fat_recursion() + "local ok, e = pcall(f, 1)\n"
                                                "talk('caught ' .. tostring(ok) .. ' ' .. e)\n"
                                                "while true do yield() end"),
                survives());
  if (o.finished) {
    const auto texts = talk_texts(o);
    EXPECT_TRUE(std::any_of(texts.begin(), texts.end(), [](const std::string& t) {
      return t.rfind("caught false", 0) == 0 && t.find("stack overflow") != std::string::npos;
    }));
  }
  contained("C-stack recursion through __index",
            with_teammate("local t = setmetatable({}, {__index = function(t, k) return t[k] end})\n"
                          "local x = t.x"),
            dies("error", "stack overflow"));
  contained("C-stack recursion through gsub callbacks",
            with_teammate("local function g(s) return (string.gsub(s, '.', g)) end\ng('ab')"),
            dies("error", "stack overflow"));
}

// ---------------------------------------------------------------------------------------------
// Coroutines, finalizers, patterns, randomness, globals.

TEST(AbaloneHostile, NoCoroutinesToMultiplyTheBudgetOrToResumeATeammate) {
  const Outcome a =
      contained("nested coroutines",
                with_teammate("talk('co ' .. type(coroutine))\n"
                              "local co = coroutine.create(function() while true do end end)\n"
                              "coroutine.resume(co)"),
                dies("error", "coroutine"));
  if (a.finished) {
    const auto texts = talk_texts(a);
    EXPECT_NE(std::find(texts.begin(), texts.end(), "co nil"), texts.end());
  }
  // A teammate's thread is unreachable: no coroutine library, spawn returns a boolean, and no
  // debug library to dig one out of the registry.
  contained("resuming a teammate's coroutine",
            with_teammate("shared.mate = spawn(function() while true do yield() end end)\n"
                          "talk('spawn gave ' .. type(shared.mate) .. ' ' .. type(debug))\n"
                          "coroutine.resume(coroutine.running())"),
            dies("error", "coroutine"));
}

TEST(AbaloneHostile, FinalizersNeverRun) {
  contained("setmetatable with __gc",
            with_teammate("setmetatable({}, {__gc = function() while true do end end})"),
            dies("error", "__gc"));
  // __gc added after setmetatable, or reachable only through the metatable's __index: Lua does
  // not mark those objects for finalization. Garbage churn runs several collections.
  const Outcome o = contained(
      "__gc added late or hidden behind __index",
      with_teammate("local f = function() talk('GC RAN') while true do end end\n"
                    "local mt = {}\n"
                    "local a = setmetatable({}, mt)\n"
                    "mt.__gc = f\n"
                    "local b = setmetatable({}, setmetatable({}, {__index = {__gc = f}}))\n"
                    "a, b, mt = nil, nil, nil\n"
                    "local x = ('x'):rep(10000)\n"  // rep is charged; `..` is not
                    "for i = 1, 2000 do local junk = x .. i end\n"
                    "talk('churned')\n"
                    "while true do yield() end"),
      survives());
  if (o.finished) {
    const auto texts = talk_texts(o);
    EXPECT_NE(std::find(texts.begin(), texts.end(), "churned"), texts.end());
    EXPECT_EQ(std::find(texts.begin(), texts.end(), "GC RAN"), texts.end()) << "a finalizer ran";
  }
}

TEST(AbaloneHostile, PathologicalPatternsAreRefused) {
  contained("string.find(('a'):rep(30000), '.-.-.-.-.-.-b')",
            with_teammate("string.find(string.rep('a', 30000), '.-.-.-.-.-.-b')"),
            dies("error", "pattern too complex"));
  const Outcome o =
      contained("runaway patterns and rep blowups under pcall, in a loop", with_teammate(R"lua(
local s = string.rep('a', 30000)
local y = ('y'):rep(1 << 20)
local tries = {
  function() return s:find('.-.-.-.-.-.-b') end,
  function() return s:match('(a*)*b') end,
  function() return s:gsub('a-a-a-a-b', 'x') end,
  function() for m in s:gmatch('a*a*a*b') do end end,
  function() return s:find('%b()%b()%b()') end,
  function() return s:match('^(a-)%1%1%1b') end,
  function() return s:find(string.rep('a?', 200)) end,
  function() return string.rep(s, 1e6) end,
  function() return s:rep(40):rep(40) end,
  function() return ('x'):rep(1 << 20, y) end,
}
local out = {}
for i, f in ipairs(tries) do out[#out + 1] = pcall(f) and 'ok' or 'refused' end
talk('P ' .. table.concat(out, ' '))
while true do for i, f in ipairs(tries) do pcall(f) end end
)lua"),
                survives());
  if (o.finished) {
    const auto texts = talk_texts(o);
    EXPECT_NE(std::find(texts.begin(), texts.end(),
                        "P refused refused refused refused refused refused refused refused "
                        "refused refused"),
              texts.end());
    EXPECT_LT(o.seconds, 10.0);
  }
}

TEST(AbaloneHostile, MathRandomCannotBeSeededFromTheClock) {
  contained("math.randomseed(42)", with_teammate("math.randomseed(42)"),
            dies("error", "randomseed"));
  contained("math.randomseed(os.time())", with_teammate("math.randomseed(os.time())"),
            dies("error", "global 'os'"));
  // Draining the team's generator leaves the witness's draws (W2) alone: checked by contained.
  contained("draining math.random",
            with_teammate("while true do math.random() math.random(1, 6) end"), survives());
}

TEST(AbaloneHostile, DangerousGlobalsAreAbsent) {
  const Outcome o =
      contained("load/dofile/require/debug/io/os/package/string.dump", with_teammate(R"lua(
local names = {}
for _, n in ipairs({'dofile', 'loadfile', 'require', 'debug', 'io', 'os', 'package',
                    'collectgarbage', 'coroutine', 'utf8', 'print'}) do
  names[#names + 1] = n .. '=' .. type(_G[n])
end
names[#names + 1] = 'dump=' .. type(string.dump)
names[#names + 1] = 'randomseed=' .. type(math.randomseed)
names[#names + 1] = 'load=' .. type(load)
talk(table.concat(names, ' '))
local f, msg = load('\27Lua\84\0 binary')
talk('binary ' .. type(f) .. ' ' .. tostring(msg):sub(1, 40))
require('os')
)lua"),
                dies("error", "require"));
  if (o.finished) {
    const auto texts = talk_texts(o);
    EXPECT_NE(std::find(texts.begin(), texts.end(),
                        "dofile=nil loadfile=nil require=nil debug=nil io=nil os=nil package=nil "
                        "collectgarbage=nil coroutine=nil utf8=nil print=nil dump=nil "
                        "randomseed=nil load=function"),
              texts.end());
    bool binary_refused = false;
    for (const auto& t : texts) {
      if (t.rfind("binary nil ", 0) == 0 && t.find("binary chunk") != std::string::npos) {
        binary_refused = true;
      }
    }
    EXPECT_TRUE(binary_refused) << "load accepted a binary chunk";
  }
  // load() compiles text into ordinary, budgeted code of the calling bot.
  contained("load()ed infinite loop", with_teammate("load('while true do end')()"), survives());
}

TEST(AbaloneHostile, PoisoningTheOwnStateDoesNotReachTheEnemy) {
  contained("poisoning shared, string, math, barrier, the string metatable",
            with_teammate("shared.poison = true\n"
                          "string.poison = true\n"
                          "math.random = function() return 4 end\n"
                          "barrier, cas, inspect = nil, nil, nil\n"
                          "getmetatable('').__index = function() while true do end end\n"
                          "while true do yield() end"),
            survives());
}

// ---------------------------------------------------------------------------------------------
// Memory.

TEST(AbaloneHostile, MemoryBombsMakeTheTeamForfeit) {
  const std::string bomb =
      "local t = {} local i = 0 local x = string.rep('x', 100000)\n"
      "while true do i = i + 1 t[i] = x .. i end";
  for (Team hostile : kTeams) {
    contained(fmt::format("memory bomb ({})", hostile_name(hostile)), with_teammate(bomb),
              forfeits("memory"), {}, hostile);
  }
  contained("memory bomb swallowed by pcall",
            with_teammate("while true do pcall(function()\n  " + bomb + "\nend) end"),
            forfeits("memory"));
  contained("table.concat of 100 x 1 MiB",
            with_teammate("local s = string.rep('x', 1 << 20)\n"
                          "local t = {} for i = 1, 100 do t[i] = s end\n"
                          "local big = table.concat(t)"),
            forfeits("memory"));
  contained("string doubling s = s .. s",
            with_teammate("local s = string.rep('x', 1 << 20) while true do s = s .. s end"),
            forfeits("memory"));
  contained("huge string.rep", with_teammate("local s = string.rep('x', 1 << 40)"),
            dies("error", "string.rep"));
}

// ---------------------------------------------------------------------------------------------
// Error objects.

TEST(AbaloneHostile, OddErrorObjectsKillOnlyTheBot) {
  const std::vector<std::pair<std::string, std::string>> objects = {
      {"{}", "error object is a table value"},
      {"setmetatable({}, {__tostring = function() while true do end end})",
       "error object is a table value"},
      {"setmetatable({}, {__index = function() while true do end end, __name = 'x'})",
       "error object is a table value"},
      {"nil", "error object is a nil value"},
      {"42", "42"},
      {"true", "error object is a boolean value"},
      {"function() end", "error object is a function value"},
      {"string.rep('x', 100000) .. '\\n\\t'", "xxxxx"},
      {"'\\255\\254 not utf-8 \\0 nul'", "not utf-8"},
  };
  for (const auto& [object, detail] : objects) {
    const Outcome o = contained("error(" + object.substr(0, 40) + ")",
                                with_teammate("error(" + object + ")"), dies("error", detail));
    if (!o.finished) continue;
    for (const Json* e : ends_of(o, Team::black)) {
      const std::string d = e->value("detail", "");
      EXPECT_LE(d.size(), 310u) << "the detail is capped";
      EXPECT_EQ(d.find('\n'), std::string::npos) << "the detail is one line";
    }
  }
  // Caught, then turned into a string: __tostring runs where the bot cannot yield: an overrun.
  contained("tostring of a caught error whose __tostring loops",
            with_teammate("local ok, e = pcall(error, setmetatable({}, {__tostring = function()\n"
                          "  while true do end end}))\n"
                          "local s = tostring(e)\n"
                          "while true do yield() end"),
            dies("overrun"));
}

// ---------------------------------------------------------------------------------------------
// The bot API with garbage.

TEST(AbaloneHostile, GarbageArgumentsToTheApiKillTheCallerWithAClearError) {
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"commit(99)", "0..6"},
      {"commit(-1)", "0..6"},
      {"commit('x')", "bad argument #1 to 'commit'"},
      {"commit(1.5)", "number has no integer representation"},
      {"commit()", "bad argument #1 to 'commit'"},
      {"inspect(nil)", "bad argument #1 to 'inspect'"},
      {"inspect(1)", "bad argument #2 to 'inspect'"},
      {"look(0)", "1..6"},
      {"look(7)", "1..6"},
      {"look('up')", "bad argument #1 to 'look'"},
      {"spawn(42)", "bad argument #1 to 'spawn'"},
      {"spawn()", "bad argument #1 to 'spawn'"},
      {"talk(nil)", "bad argument #1 to 'talk'"},
      {"talk({})", "bad argument #1 to 'talk'"},
      {"cas(nil, 1, 2, 3)", "bad argument #1 to 'cas'"},
      {"cas({}, nil, nil, 1)", "index is nil"},
      {"cas({}, 0/0, nil, 1)", "index is NaN"},
      {"barrier.new(0)", "positive integer"},
      {"barrier.wait({})", "not a barrier"},
      {"table.sort({3, 2, 1}, function(a, b) wait_turn() return a < b end)", "cannot block"},
      {"string.gsub('ab', '.', function() yield() end)", "cannot yield"},
  };
  for (const auto& [call, detail] : calls) {
    contained(call, with_teammate(call), dies("error", detail));
  }
}

// A blocking action that fails where the bot cannot yield (an error the bot catches) must not
// block the bot afterwards: the wait is only recorded where block() will yield.
TEST(AbaloneHostile, AFailedBlockingActionLeavesNoWaitBehind) {
  const Outcome o = contained("pcall'd wait_turn inside a sort comparator", with_teammate(R"lua(
local ok = pcall(table.sort, {3, 2, 1}, function(a, b) wait_turn() return a < b end)
talk('X ' .. tostring(ok))
local n = 0
while true do n = n + 1 talk('X' .. n) yield() end
)lua"),
                              survives());
  if (!o.finished) return;
  const auto x = talks(o, "X");
  ASSERT_GE(x.size(), 3u);
  EXPECT_EQ(x[0], "0:X false");
  EXPECT_EQ(x[1], "0:X1");
  EXPECT_EQ(x[2], "1:X2") << "the failed wait_turn still blocked the bot until the next "
                             "resolution (match.cpp records the wait before Sandbox::block fails)";
}

TEST(AbaloneHostile, OversizedOrStrangeButValidCallsAreCapped) {
  const Outcome o =
      contained("talk: huge, control characters, numbers; inspect extremes", with_teammate(R"lua(
talk(string.rep('y', 1 << 20))
talk('ctl\0\1\n\r\t\127\255end')
talk('I ' .. inspect(math.maxinteger, math.mininteger) .. ' ' .. inspect(math.mininteger, math.mininteger))
talk(12345)
while true do yield() end
)lua"),
                survives());
  if (!o.finished) return;
  const auto texts = talk_texts(o);
  EXPECT_NE(std::find(texts.begin(), texts.end(), std::string(200, 'y')), texts.end())
      << "talk is capped at 200 bytes";
  EXPECT_NE(std::find(texts.begin(), texts.end(), "ctl      ?end"), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "I 4 4"), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "12345"), texts.end());
  for (const auto& t : texts) EXPECT_LE(t.size(), 200u);
}

TEST(AbaloneHostile, SpawningIsCappedAndEndsWithTheWindow) {
  // After both first resolutions every spawn fails; the loop is just budgeted work.
  Outcome late = contained(
      "spawn in a loop after the window closed",
      with_teammate("while gamestat() < 2 do wait_turn() end\n"
                    "while true do if spawn(function() end) then talk('spawned late') end end"),
      survives());
  if (late.finished) {
    for (const Json* e : of_type(late, "spawn")) {
      EXPECT_LT(e->value("cycle", 1000), 20) << "a spawn after black's first resolution";
    }
    EXPECT_EQ(late.played.pieces[0], 2);
  }
  // Every bot spawns as fast as it can while the window is open: MAX_PIECES is the cap.
  Outcome breed =
      contained("spawn in a loop by every bot during the window",
                "local function breed() while true do spawn(breed) yield() end end\nreturn breed",
                survives(false));
  if (breed.finished) {
    EXPECT_EQ(breed.played.pieces[0], 14);
    const auto spawns = of_type(breed, "spawn");
    for (const Json* e : spawns) {
      EXPECT_LT(e->value("cycle", 1000), 20) << "a spawn after the window: " << dump(*e);
    }
    EXPECT_EQ(spawns.size(), 13u + 2u);  // the hostile's 13 and the witness's 2
  }
  // C functions as bot bodies: they run, and their bots end like any other.
  contained("C functions as bot bodies",
            "return function()\n"
            "  spawn(error) spawn(yield) spawn(wait_turn) spawn(spawn) spawn(string.rep)\n"
            "  while true do yield() end\n"
            "end",
            {Expect::bots_die,
             {"error", "error", "error", "returned", "returned"},
             {"nil value", "bad argument", "bad argument", "", ""},
             "",
             false});
}

TEST(AbaloneHostile, TalkFloodsAreCappedPerTalkOnly) {
  Options o;
  o.game_length = 200;
  const Outcome out = contained("talk flood",
                                with_teammate("local s = ('z'):rep(500)\n"
                                              "while true do talk(s) end"),
                                survives(), o);
  if (!out.finished) return;
  std::size_t bytes = 0;
  for (const auto& line : out.played.log) bytes += line.size() + 1;
  std::printf(
      "[matrix]   talk flood: %zu log bytes in %d cycles (%.0f per cycle per flooding bot)\n",
      bytes, o.game_length, static_cast<double>(bytes) / o.game_length);
}

// ---------------------------------------------------------------------------------------------
// Team chunks that fail at load.

TEST(AbaloneHostile, TeamChunksThatFailAtLoadForfeitBeforeTheFirstCycle) {
  const std::vector<std::tuple<std::string, std::string, std::string>> chunks = {
      {"loops forever at load", "while true do end return function() end",
       "ran longer than 1000000 instructions"},
      {"errors at load", "error('load-time trouble')", "load-time trouble"},
      {"returns no function", "return 42", "must return a function"},
      {"syntax error", "this is not lua", "syntax error"},
      {"binary chunk", std::string("\x1b") + "LuaT\x01 not really bytecode", "binary"},
      {"bot action at load", "talk('hi') return function() end", "bot actions are for bots"},
      {"blocking action at load", "wait_turn() return function() end", "bot actions are for bots"},
      {"yield at load", "yield() return function() end", "must not yield"},
      {"memory bomb at load",
       "local t, x = {}, string.rep('x', 100000) for i = 1, 1e9 do t[i] = x .. i end",
       "out of memory"},
      {"__gc at load", "setmetatable({}, {__gc = function() end}) return function() end", "__gc"},
      {"overrun at load",
       "table.sort({3, 2, 1}, function() while true do end end) return function() end",
       "stopped (overrun)"},
  };
  for (const auto& [name, chunk, failure] : chunks) {
    contained("load: " + name, chunk, load_fails(failure));
  }
  contained("load: loops forever at load (white)", "while true do end return function() end",
            load_fails("ran longer than"), {}, Team::white);
  // With the real clock: the load budget or the watchdog stops it, whichever comes first.
  Options real;
  real.real_clock = true;
  contained("load: loops forever at load (real clock)", "while true do end return function() end",
            load_fails("the team does not load"), real);
}

// ---------------------------------------------------------------------------------------------
// The wall-clock watchdog.

TEST(AbaloneHostile, AStepThatOutlastsTheWatchdogForfeitsTheTeam) {
  // One table.sort of 2^18 numbers runs in C for about 160 ms of CPU; only the watchdog sees it.
  // The table is built at load, whose budget covers table.move's charges; building it takes about
  // 10 ms, far enough under the same 50 ms watchdog on a loaded machine (2^20 took 35 ms and
  // once crossed it in CI).
  Options real;
  real.real_clock = true;
  contained("watchdog: table.sort of 2^18 numbers (white)",
            "local t = {1}\n"
            "while #t < (1 << 18) do table.move(t, 1, #t, #t + 1) end\n" +
                with_teammate("table.sort(t)"),
            forfeits("watchdog"), real, Team::white);
}

// ---------------------------------------------------------------------------------------------
// Determinism.

// Hostile bots of many kinds, chosen with math.random.
constexpr const char* kChaos = R"lua(
local kinds = {
  function() table.sort({3, 2, 1}, function() while true do end end) end,
  function()
    while true do
      pcall(string.find, string.rep('a', 3000), '.-.-.-b')
      talk('R ' .. math.random(100))
      yield()
    end
  end,
  function() error(setmetatable({}, {__tostring = function() return 'x' end})) end,
  function() while true do end end,
  function()
    local t = {}
    for i = 1, 200 do t[i] = string.rep('z', 5000) .. i end
    talk('churn ' .. #t)
    while true do wait_my_turn() talk('R2 ' .. math.random(6)) end
  end,
  function() commit(math.random(0, 6)) wait_turn() commit(99) end,
  function() local ok, e = pcall(look, 0) talk('L ' .. tostring(ok)) return end,
}
return function()
  while true do
    local k = math.random(#kinds)
    if not spawn(kinds[k]) then break end
    talk('spawned kind ' .. k)
  end
  while true do talk('main ' .. math.random(1000)) wait_turn() end
end
)lua";

TEST(AbaloneHostile, AHostileTeamReplaysByteForByte) {
  Options o;
  o.real_clock = true;  // the referee's own setting; nothing here comes near the watchdog
  o.gui = true;
  o.game_length = 300;
  o.seed = 5;
  const Outcome a = play_guarded(kChaos, kWitness, o);
  print_row("determinism: chaos team, seed 5", a, Team::black);
  ASSERT_TRUE(a.finished) << a.trouble;
  const Played b = play_here(kChaos, kWitness, o);  // in this process: other heap, other time
  EXPECT_EQ(a.played.log, b.log);
  EXPECT_EQ(a.played.gui, b.gui);
  EXPECT_FALSE(ends_of(a, Team::black).empty()) << "the chaos team should lose some bots";
  Options other = o;
  other.seed = 6;
  EXPECT_NE(play_here(kChaos, kWitness, other).log, b.log) << "the seed should matter";
}

TEST(AbaloneHostile, AMemoryBombAndGarbageReplayByteForByte) {
  const std::string bomb = R"lua(
return function()
  spawn(function() commit('x') end)
  spawn(function() while true do talk('t ' .. math.random(1000)) yield() end end)
  for k = 1, 30 do yield() end
  local t = {} local i = 0 local m = string.rep('m', 50000)
  while true do i = i + 1 t[i] = m .. i end
end
)lua";
  Options o;
  o.real_clock = true;
  o.gui = true;
  o.seed = 9;
  const Outcome a = play_guarded(kWitness, bomb, o);
  print_row("determinism: memory bomb and garbage (white), seed 9", a, Team::white);
  ASSERT_TRUE(a.finished) << a.trouble;
  const Played b = play_here(kWitness, bomb, o);
  EXPECT_EQ(a.played.log, b.log);
  EXPECT_EQ(a.played.gui, b.gui);
  EXPECT_NE(forfeit_of(a, Team::white), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Routes that were open when this matrix was written, each closed since (how, in each test).

Options hang_check() {
  Options o;
  o.real_clock = true;  // the watchdog is live and still cannot help
  o.deadline = 2s;      // the honest part of each match below takes milliseconds
  return o;
}

TEST(AbaloneHostile, ALoopingXpcallMessageHandlerIsStopped) {
  // The handler loops where the bot cannot yield, so the bot is condemned (overrun) and the hook
  // raises an error. Lua calls the message handler for that error from inside the hook, where
  // hooks are off: unguarded, the handler would loop with no budget and no watchdog. The
  // sandbox's xpcall wraps the handler so that it is not called for a condemned bot.
  contained("xpcall(error, looping handler)",
            with_teammate("xpcall(error, function() while true do end end)"), anything(),
            hang_check());
  contained("load: xpcall(error, looping handler) at load",
            "xpcall(error, function() while true do end end) return function() end", anything(),
            hang_check());
  // The same with a finite handler: it runs to its end inside a condemned bot, unmetered
  // (10^7 iterations here, against a budget of 500 and an overrun limit of 100000). With hooks
  // on it would be stopped at its first instruction and k would stay nil.
  const Outcome o = contained(
      "xpcall handler after an overrun runs unmetered",
      "return function()\n"
      "  spawn(function() while true do talk('k ' .. tostring(shared.k)) yield() end end)\n"
      "  xpcall(function() table.sort({3, 2, 1}, function() while true do end end) end,\n"
      "         function(m) shared.k = 1 for i = 1, 10000000 do end shared.k = 2 return m end)\n"
      "end",
      dies("overrun", "", false));
  if (o.finished) {
    const auto k = talks(o, "k ");
    ASSERT_FALSE(k.empty());
    EXPECT_EQ(k.back().substr(k.back().find(':') + 1), "k nil")
        << "the message handler of a condemned bot ran with hooks off";
  }
}

TEST(AbaloneHostile, StringRepOfTheEmptyStringIsBounded) {
  // Lua's str_rep loops n - 1 times in C even when it copies nothing: ~2^63 iterations, no hook,
  // no watchdog. The sandbox's rep answers "" itself when there is nothing to repeat.
  contained("string.rep('', math.maxinteger)",
            with_teammate("local s = string.rep('', math.maxinteger)\n"
                          "while true do yield() end"),
            anything(), hang_check());
}

TEST(AbaloneHostile, ASortOfLongEqualStringsIsBounded) {
  // table.sort without a comparator runs in C: n log n comparisons of strings, each up to the
  // strings' length. 2^20 references to one 1 MiB string (16 MiB of table) would make one step
  // last many minutes (2^12 of them already take ~0.8 s); the sandbox's sort checks the
  // watchdog every 256 comparisons, so the team forfeits instead.
  contained("table.sort of 2^20 x one 1 MiB string",
            with_teammate("local s = string.rep('x', 1 << 20)\n"
                          "local t = {s}\n"
                          "while #t < (1 << 20) do table.move(t, 1, #t, #t + 1) end\n"
                          "table.sort(t)"),
            anything(), hang_check());
}

// Each team draws its spawn hexes from its own stream: how often one team spawns never moves where
// the other team's pieces appear.
TEST(AbaloneHostile, TheEnemysSpawnsDoNotMoveTheWitnesssSpawnHexes) {
  const auto hexes = [](const std::string& black) {
    const Outcome o = play_guarded(black, kWitness, {});
    std::vector<std::string> out;
    for (const Json* e : of_type(o, "spawn")) {
      if (e->value("parent", 0) == 2) out.push_back(e->value("hex", ""));
    }
    return out;
  };
  const auto alone = hexes(kIdle);
  const auto crowded = hexes(
      "return function() for i = 1, 3 do spawn(function() while true do wait_turn() end end) end "
      "while true do wait_turn() end end");
  EXPECT_EQ(alone, crowded) << "the witness's spawn hexes depend on how often black spawned";
}

}  // namespace
}  // namespace arbiter::abalone
