// A thousand short Q matches with misbehaving seats, in process and several at once, leave no
// child, fd or thread.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/interrupt.h"
#include "arena/registry.h"
#include "referee/call_runner.h"
#include "remote/child_process.h"

#ifndef ZOO_BOT
#error "ZOO_BOT must name the zoo-bot executable"
#endif

namespace arbiter {
namespace {

using namespace std::chrono_literals;

constexpr int kMatches = 1000;
constexpr int kAtOnce = 4;

// The names in a /proc directory other than "." and "..".
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  return names;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What this process holds that a match must give back.
struct Census {
  int fds = 0;
  int threads = 0;
  std::vector<std::string> thread_names;  // /proc/self/task/*/comm, for the failure message
  std::vector<pid_t> children;            // by /proc/self/task/*/children and by PPid, merged

  std::string describe() const {
    return fmt::format("{} fds, {} threads ({}), {} children{}", fds, threads,
                       fmt::join(thread_names, ", "), children.size(),
                       children.empty() ? "" : fmt::format(" ({})", fmt::join(children, " ")));
  }
};

Census take_census() {
  Census c;
  // opendir() holds one descriptor while listing, the same for every census.
  c.fds = static_cast<int>(entries("/proc/self/fd").size());
  const auto tasks = entries("/proc/self/task");
  c.threads = static_cast<int>(tasks.size());
  for (const auto& task : tasks) {
    std::ifstream in("/proc/self/task/" + task + "/children");
    for (pid_t pid; in >> pid;) c.children.push_back(pid);
    std::ifstream comm("/proc/self/task/" + task + "/comm");
    std::string name;
    std::getline(comm, name);
    c.thread_names.push_back(name);
  }
  // Also by PPid over the whole machine.
  const pid_t self = ::getpid();
  for (const auto& name : entries("/proc")) {
    if (!all_digits(name)) continue;
    std::ifstream status("/proc/" + name + "/status");
    for (std::string line; std::getline(status, line);) {
      if (!line.starts_with("PPid:")) continue;
      const pid_t ppid = static_cast<pid_t>(std::stol(line.substr(5)));
      if (ppid == self) c.children.push_back(static_cast<pid_t>(std::stol(name)));
      break;
    }
  }
  std::sort(c.children.begin(), c.children.end());
  c.children.erase(std::unique(c.children.begin(), c.children.end()), c.children.end());
  return c;
}

// Polls for up to `settle` until the census is back at `before` (threads of abandoned calls and
// reaped children may take a moment); returns the last census taken.
Census settled(const Census& before, std::chrono::milliseconds settle) {
  const auto until = std::chrono::steady_clock::now() + settle;
  for (;;) {
    Census now = take_census();
    const bool back = now.fds <= before.fds && now.threads <= before.threads &&
                      now.children.empty() && hanging_threads() == 0 &&
                      CallRunner::stray_threads() == 0;
    if (back || std::chrono::steady_clock::now() > until) return now;
    std::this_thread::sleep_for(10ms);
  }
}

std::string roster_text(const PlaySpec& spec) {
  std::string text;
  for (const auto& seat : spec.roster) text += fmt::format(" {}:{}", seat.name, seat.bot);
  return text;
}

// A seat and what must become of it.
struct Kind {
  std::string bot;
  std::optional<Why> why;          // the ejection it earns; nothing for well-behaved house bots
  std::string call = "take_turn";  // the call where it misbehaves
};

std::vector<Kind> seat_kinds() {
  const std::string zoo = std::string("cmd:") + ZOO_BOT + " ";
  return {
      {"dag", std::nullopt},
      {"ldasg", std::nullopt},
      {"dag+hang=take-turn/1", Why::timeout},
      {"ldasg+raise=take-turn", Why::exception},
      {zoo + "exit-now", Why::hang_up, "setup"},
      {zoo + "crash-mid", Why::hang_up},
      {zoo + "garbage", Why::malformed},
      {zoo + "illegal", Why::foul},
      {zoo + "silent", Why::timeout},
      {zoo + "loop", Why::timeout},
      {zoo + "close-stdout", Why::hang_up},
      {zoo + "fork-exit", Why::hang_up},
  };
}

// A short game's starting table (JState): one tile on the map, six in each hand and a pile of
// 10 to 40, all drawn at random (Q's fresh game deals from 1080 tiles, and a lone house bot left
// after the others' ejection takes long to play through that in a debug build).
Json short_table(int seats, std::mt19937_64& rng) {
  static constexpr const char* kColors[] = {"red", "green", "blue", "yellow", "orange", "purple"};
  static constexpr const char* kShapes[] = {"star",   "8star",  "square",
                                            "circle", "clover", "diamond"};
  const auto tile = [&] {
    return Json{{"color", kColors[rng() % 6]}, {"shape", kShapes[rng() % 6]}};
  };
  const auto tiles = [&](std::size_t n) {
    Json list = Json::array();
    for (std::size_t i = 0; i < n; ++i) list.push_back(tile());
    return list;
  };
  Json players = Json::array();
  for (int s = 0; s < seats; ++s) players.push_back({{"score", 0}, {"tile*", tiles(6)}});
  return {{"map", Json::array({Json::array({0, Json::array({0, tile()})})})},
          {"players", players},
          {"tile*", tiles(10 + rng() % 31)}};
}

// Whether the match log shows a call `call` to `seat`.
bool called(const GameLog& log, int seat, const std::string& call) {
  return std::any_of(log.lines().begin(), log.lines().end(), [&](const Json& line) {
    return string_or(line, "type") == "call" && int_or(line, "seat", -1) == seat &&
           string_or(line, "call") == call;
  });
}

// One planned match: its spec and what each seat is.
struct Planned {
  PlaySpec spec;
  std::vector<const Kind*> roster;
};

// What the matches showed; `failures` holds a message per broken expectation.
struct Tally {
  std::map<std::string, int> seen;  // "bot -> verdict" counts, printed at the end
  int ejections = 0;
  int late_starts = 0;  // misbehaving seats ejected for a timeout instead of their own reason
  int unreached = 0;    // misbehaving seats whose game ended before the call they fail
  std::vector<std::string> failures;

  void add(const Tally& other) {
    for (const auto& [what, count] : other.seen) seen[what] += count;
    ejections += other.ejections;
    late_starts += other.late_starts;
    unreached += other.unreached;
    failures.insert(failures.end(), other.failures.begin(), other.failures.end());
  }
};

// Plays match `m` and checks that every misbehaving seat got the ejection it earned.
void play_and_check(const GameEntry& q, int m, const Planned& plan, Tally& t) {
  PlaySpec spec = plan.spec;
  GameLog log(nullptr, /*keep=*/true);
  spec.options.log = &log;
  const auto failed = [&](std::string what) {
    t.failures.push_back(fmt::format("match {} (seed {}, roster{}): {}", m, spec.seed,
                                     roster_text(spec), what));
  };
  auto outcome = q.play(spec);
  if (!outcome) return failed(outcome.error().message);
  const MatchResult& r = outcome->result;
  const std::size_t seats = plan.roster.size();
  if (r.aborted) return failed("aborted");
  if (outcome->names.size() != seats || r.scores.size() != seats)
    return failed(fmt::format("{} names and {} scores for {} seats", outcome->names.size(),
                              r.scores.size(), seats));
  for (int s = 0; s < static_cast<int>(seats); ++s) {
    const Kind& kind = *plan.roster[static_cast<std::size_t>(s)];
    const auto ejected = std::find_if(r.ejections.begin(), r.ejections.end(),
                                      [&](const Ejection& e) { return e.seat == s; });
    const std::string verdict =
        ejected == r.ejections.end() ? "ok" : std::string(to_string(ejected->why));
    ++t.seen[kind.bot.substr(kind.bot.rfind(' ') + 1) + " -> " + verdict];
    if (!kind.why) continue;  // a house bot may time out on a loaded machine; not our subject
    // Q ends as soon as a player places its whole hand, which can happen on the first turn.
    if (!called(log, s, kind.call)) {
      // A program slow to start under load may time out even before that call (20-50 ms).
      if (ejected != r.ejections.end() && ejected->why == Why::timeout) {
        ++t.late_starts;
        continue;
      }
      if (ejected != r.ejections.end())
        failed(fmt::format("seat {} ({}) was ejected ({}) before the call it fails", s, kind.bot,
                           verdict));
      ++t.unreached;
      continue;
    }
    if (ejected == r.ejections.end()) {
      failed(fmt::format("seat {} ({}) was not ejected; result {}", s, kind.bot,
                         dump(encode_result(r))));
      continue;
    }
    ++t.ejections;
    if (ejected->call != kind.call)
      failed(fmt::format("seat {} ({}) ejected at {}, not {}: {}", s, kind.bot, ejected->call,
                         kind.call, ejected->detail));
    // A program slow to start under load may time out before it misbehaves its own way.
    if (ejected->why != *kind.why) {
      if (ejected->why != Why::timeout)
        failed(fmt::format("seat {} ({}) ejected for {}, not {}: {}", s, kind.bot, verdict,
                           to_string(*kind.why), ejected->detail));
      ++t.late_starts;
    }
  }
}

TEST(LeakTest, ThousandMatchesWithMisbehavingSeatsLeaveNothingBehind) {
  const GameEntry* q = find_game("q");
  ASSERT_NE(q, nullptr);
  const std::vector<Kind> kinds = seat_kinds();
  std::mt19937_64 rng(20240611);
  std::vector<Planned> plans(kMatches);
  for (Planned& plan : plans) {
    PlaySpec& spec = plan.spec;
    spec.seed = rng();
    spec.options.per_call = std::chrono::milliseconds(20 + static_cast<int>(rng() % 31));
    const int seats = 2 + static_cast<int>(rng() % 3);
    // Seat 0 is a house bot, so that every match has someone left to finish it.
    plan.roster.push_back(&kinds[rng() % 2]);
    for (int s = 1; s < seats; ++s) plan.roster.push_back(&kinds[rng() % kinds.size()]);
    for (int s = 0; s < seats; ++s)
      spec.roster.push_back({fmt::format("p{}", s), plan.roster[static_cast<std::size_t>(s)]->bot});
    spec.config = {{"table", short_table(seats, rng)}};
  }

  // ThreadSanitizer's runtime starts a helper thread of its own with the first thread; let that
  // happen before the baseline.
  std::thread([] {}).join();
  // The reaper's image (remote/child_process.cpp) is one descriptor for the life of the process,
  // opened by the first program started: let that happen before the baseline too.
  ASSERT_TRUE(ChildProcess::spawn(ChildSpec{.argv = {"/bin/true"}}));
  const Census before = take_census();
  ASSERT_TRUE(before.children.empty()) << before.describe();
  const auto start = std::chrono::steady_clock::now();
  // Matches mostly wait (on program starts and on timeouts), so kAtOnce of them run side by side,
  // as a tournament's workers do: what one match opens must not leak into another's children.
  std::atomic<int> next{0};
  std::atomic<bool> stop{false};
  std::vector<Tally> tallies(kAtOnce);
  std::vector<std::thread> players;
  for (int w = 0; w < kAtOnce; ++w)
    players.emplace_back([&, w] {
      Tally& t = tallies[static_cast<std::size_t>(w)];
      for (int m; !stop && (m = next++) < kMatches;) {
        play_and_check(*q, m, plans[static_cast<std::size_t>(m)], t);
        if (!t.failures.empty()) stop = true;
      }
    });
  for (auto& p : players) p.join();
  Tally all;
  for (const Tally& t : tallies) all.add(t);
  const auto played = std::chrono::steady_clock::now() - start;
  const Census after = settled(before, 2000ms);
  const auto total = std::chrono::steady_clock::now() - start;

  std::printf(
      "%d matches (%d at once) in %.1f s (%.1f s with settling), %d ejections (%d by timeout "
      "instead of their own reason), %d misbehaving seats not reached before the game ended\n",
      kMatches, kAtOnce, std::chrono::duration<double>(played).count(),
      std::chrono::duration<double>(total).count(), all.ejections, all.late_starts,
      all.unreached);
  std::printf("before: %s\nafter:  %s\n", before.describe().c_str(), after.describe().c_str());
  for (const auto& [what, count] : all.seen) std::printf("  %5d  %s\n", count, what.c_str());

  EXPECT_TRUE(all.failures.empty()) << fmt::format("{}", fmt::join(all.failures, "\n"));
  EXPECT_TRUE(after.children.empty()) << after.describe();
  EXPECT_EQ(after.fds, before.fds) << "file descriptors leaked";
  EXPECT_EQ(after.threads, before.threads) << "threads left behind: " << after.describe();
  EXPECT_EQ(hanging_threads(), 0) << "scripted players still hanging";
  EXPECT_EQ(CallRunner::stray_threads(), 0) << "abandoned calls still running";
}

// Whether `pid` is a live process (a zombie is dead).
bool alive(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("State:")) return line.find('Z') == std::string::npos;
  return false;
}

// fork-exit through the transport directly, with and without the PID namespace: in its own
// namespace the sleeper dies with the bot and the referee sees the hang-up at once; as a mere
// process group the sleeper keeps the pipe open, so the call can only time out, and kill() must
// still take the sleeper (it stays in the bot's process group).
void fork_exit_through(bool own_pid_namespace, Why expected) {
  char dir_template[] = "/tmp/zoo-fork-exit-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string pid_file = std::string(dir_template) + "/pids";
  ChildSpec spec;
  spec.argv = {ZOO_BOT, "fork-exit", "--pid-file", pid_file};
  spec.own_pid_namespace = own_pid_namespace;
  auto child = ChildProcess::spawn(spec);
  ASSERT_TRUE(child.has_value()) << child.error().message;
  EXPECT_EQ((*child)->in_own_pid_namespace(), own_pid_namespace);
  auto channel = (*child)->take_channel();
  const auto within = [](int ms) {
    return Deadline::after(SteadyClock::instance(), std::chrono::milliseconds(ms));
  };
  auto setup = channel->exchange(Json::parse(R"(["setup", [{}, []]])"), within(2000));
  ASSERT_TRUE(setup.has_value()) << setup.error().detail;
  EXPECT_EQ(*setup, "void");
  auto turn = channel->exchange(Json::parse(R"(["take-turn", [{}]])"), within(300));
  ASSERT_FALSE(turn.has_value());
  EXPECT_EQ(turn.error().why, expected) << turn.error().detail;

  pid_t sleeper = 0;
  std::ifstream records(pid_file);
  for (std::string event; records >> event;) {
    pid_t pid = 0;
    records >> pid;
    if (event == "grandchild") sleeper = pid;
  }
  ASSERT_GT(sleeper, 0) << "the bot did not fork its sleeper";
  (*child)->kill();
  const auto until = std::chrono::steady_clock::now() + 1s;
  while (alive(sleeper) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(alive(sleeper)) << "the sleeper " << sleeper << " outlived kill()";
  ::unlink(pid_file.c_str());
  ::rmdir(dir_template);
}

TEST(ForkExitTest, InOwnPidNamespaceTheSleeperDiesWithTheBot) {
  fork_exit_through(true, Why::hang_up);
}

TEST(ForkExitTest, AsAProcessGroupTheSleeperHoldsThePipeUntilKilled) {
  fork_exit_through(false, Why::timeout);
}

}  // namespace
}  // namespace arbiter
