// Q benchmarks: house-bot games through the referee, and rules hot spots on real positions.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/player.h"
#include "core/rng.h"
#include "core/seat.h"
#include "games/q/bots.h"
#include "games/q/game.h"
#include "games/q/placement.h"
#include "games/q/state.h"
#include "games/q/strategy.h"
#include "referee/call_runner.h"
#include "referee/game_log.h"
#include "referee/match.h"
#include "referee/turn_based.h"

namespace arbiter {
namespace {

using q::Q;

// ---------------------------------------------------------------------------------------------
// Whole games

// Passes every call on to a house actor and counts the calls. The referee calls a player from
// one thread at a time and hands calls over under the runner's mutex, so plain counters are
// safe; they are read only after the referee (and its runner threads) are gone.
class CountingPlayer final : public Player<Q> {
 public:
  explicit CountingPlayer(PlayerPtr<Q> inner) : inner_(std::move(inner)) {}

  std::string name() override { return inner_->name(); }
  void setup(const q::View& view) override {
    ++calls_;
    inner_->setup(view);
  }
  q::Action take_turn(const q::View& view) override {
    ++calls_;
    ++turns_;
    return inner_->take_turn(view);
  }
  void new_tiles(const q::Tiles& tiles) override {
    ++calls_;
    inner_->new_tiles(tiles);
  }
  void win(bool won) override {
    ++calls_;
    inner_->win(won);
  }

  std::int64_t calls() const { return calls_; }
  std::int64_t turns() const { return turns_; }

 private:
  PlayerPtr<Q> inner_;
  std::int64_t calls_ = 0;
  std::int64_t turns_ = 0;
};

// A stream buffer that accepts and drops everything, so a GameLog pays for building and
// serialising its lines but not for any I/O.
class NullBuffer final : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

struct GameTally {
  std::int64_t turns = 0;  // take_turn calls
  std::int64_t calls = 0;  // all player calls: setup, take_turn, new_tiles, win
  bool clean = true;       // no ejection and not aborted, as house bots should manage
};

// One freshly dealt game of `players` house bots, dag and ldasg alternating by seat.
GameTally play_game(int players, std::uint64_t seed, Isolation isolation, GameLog* log) {
  std::vector<std::string> names;
  std::vector<std::shared_ptr<CountingPlayer>> counted;
  std::vector<PlayerPtr<Q>> seats;
  for (int i = 0; i < players; ++i) {
    const q::Strategy strategy = i % 2 == 0 ? q::Strategy::dag : q::Strategy::ldasg;
    names.push_back(std::string(q::to_string(strategy)) + std::to_string(i));
    counted.push_back(
        std::make_shared<CountingPlayer>(q::make_actor(q::ActorSpec{names.back(), strategy})));
    seats.push_back(counted.back());
  }
  q::Config config;
  config.players = players;
  RefereeOptions options;
  options.isolation = isolation;
  options.log = log;
  const MatchResult result =
      play_turn_based<Q>(config, seed, std::move(names), std::move(seats), options);

  GameTally tally;
  tally.clean = !result.aborted && result.ejections.empty();
  for (const auto& player : counted) {
    tally.turns += player->turns();
    tally.calls += player->calls();
  }
  return tally;
}

// Plays one game per iteration, the iteration index as its seed, and reports games/s, player
// calls/s and the average number of turns per game.
void run_games(benchmark::State& state, Isolation isolation, bool logged) {
  const int players = static_cast<int>(state.range(0));
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  GameLog log(&null_stream);
  std::uint64_t seed = 0;
  std::int64_t turns = 0;
  std::int64_t calls = 0;
  for (auto _ : state) {
    const GameTally tally = play_game(players, seed++, isolation, logged ? &log : nullptr);
    if (!tally.clean) {
      state.SkipWithError("a house bot was ejected or the game hit max_turns");
      break;
    }
    turns += tally.turns;
    calls += tally.calls;
  }
  using benchmark::Counter;
  state.counters["games/s"] = Counter(static_cast<double>(state.iterations()), Counter::kIsRate);
  state.counters["calls/s"] = Counter(static_cast<double>(calls), Counter::kIsRate);
  state.counters["turns/game"] = Counter(static_cast<double>(turns), Counter::kAvgIterations);
}

void BM_QGame(benchmark::State& state) {
  run_games(state, Isolation::inline_call, false);
}
void BM_QGameThreaded(benchmark::State& state) {
  run_games(state, Isolation::thread, false);
}
void BM_QGameLogged(benchmark::State& state) {
  run_games(state, Isolation::inline_call, true);
}

// Side by side in one run: each iteration plays one seed without a log and then with one (to
// a stream that drops the bytes), timing each; "logged/unlogged" is the ratio of the two times.
// Interleaving keeps a noisy machine from favouring either side.
void BM_QGameLoggedVsUnlogged(benchmark::State& state) {
  const int players = static_cast<int>(state.range(0));
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  GameLog log(&null_stream);
  std::uint64_t seed = 0;
  double unlogged_s = 0, logged_s = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const GameTally plain = play_game(players, seed, Isolation::inline_call, nullptr);
    const auto t1 = Clock::now();
    const GameTally logged = play_game(players, seed, Isolation::inline_call, &log);
    const auto t2 = Clock::now();
    ++seed;
    if (!plain.clean || !logged.clean || plain.calls != logged.calls) {
      state.SkipWithError("the two games differ or a house bot was ejected");
      break;
    }
    unlogged_s += std::chrono::duration<double>(t1 - t0).count();
    logged_s += std::chrono::duration<double>(t2 - t1).count();
  }
  state.counters["logged/unlogged"] = logged_s / unlogged_s;
  state.counters["unlogged_games/s"] = static_cast<double>(state.iterations()) / unlogged_s;
  state.counters["logged_games/s"] = static_cast<double>(state.iterations()) / logged_s;
}
BENCHMARK(BM_QGameLoggedVsUnlogged)->Arg(2)->Unit(benchmark::kMillisecond);

// Real time, because with Isolation::thread the benchmark thread mostly sleeps while a runner
// thread plays; the CPU column then shows the whole process's CPU time.
BENCHMARK(BM_QGame)
    ->Arg(2)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_QGameThreaded)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_QGameLogged)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// The two parts of the thread hop, apart from any game: one empty call through a live runner,
// and starting plus joining a worker (the referee does that once per match: its seats share it).
void BM_CallHop(benchmark::State& state, Isolation isolation) {
  CallRunner runner(isolation);
  const std::function<void()> job = [] {};
  const Deadline deadline = Deadline::after(SteadyClock::instance(), std::chrono::hours(1));
  for (auto _ : state) {
    const bool in_time = runner.run(job, deadline);
    benchmark::DoNotOptimize(in_time);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_CallHop, inline, Isolation::inline_call)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(BM_CallHop, thread, Isolation::thread)->UseRealTime()->MeasureProcessCPUTime();

// A match's pool starts its worker thread at the first call and joins it at the end.
void BM_CallRunnerStartStop(benchmark::State& state) {
  const std::function<void()> job = [] {};
  const Deadline deadline = Deadline::after(SteadyClock::instance(), std::chrono::hours(1));
  for (auto _ : state) {
    CallRunner runner(Isolation::thread);
    benchmark::DoNotOptimize(runner.run(job, deadline));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CallRunnerStartStop)->UseRealTime()->MeasureProcessCPUTime();

// ---------------------------------------------------------------------------------------------
// Rules hot spots, on positions from real games

// One turn of a recorded game: the state before it, the mover's view, and (when the strategy
// placed tiles) its placements and the map after them.
struct Turn {
  q::State state;
  Seat seat = 0;
  q::View view;
  q::Placements placements;  // empty when the strategy passed or replaced
  q::Map after;
};

struct Sample {
  std::vector<Turn> turns;
  std::vector<const Turn*> placing;  // the turns with placements
  double mean_cells = 0;             // map size before the turn, averaged over `placing`
  std::string error;                 // why the sample could not be built, if it could not
};

constexpr std::uint64_t kSampleSeeds[] = {1, 2, 3, 4, 5, 6, 7, 8};

// Plays 2-player dag-vs-dag games (one per seed) on q::State directly, without the referee,
// recording every turn.
Sample record_games() {
  Sample sample;
  for (std::uint64_t seed : kSampleSeeds) {
    q::Config config;
    config.players = 2;
    Rng rng(seeds::start(seed));
    q::State s = q::State::start(config, rng);
    for (Seats movers = s.to_move(); !movers.empty(); movers = s.to_move()) {
      Turn turn{s, movers.front(), s.view(movers.front()), {}, {}};
      const q::Action action = q::turn(q::Strategy::dag, turn.view);
      if (auto foul = s.check(turn.seat, action)) {
        sample.error = "dag chose an illegal action: " + foul->code;
        return sample;
      }
      if (const auto* placements = std::get_if<q::Placements>(&action)) {
        turn.placements = *placements;
        turn.after = *q::extend(turn.view.map, turn.view.hand, turn.placements);
      }
      s.apply(turn.seat, action);
      s.acknowledge(turn.seat);
      sample.turns.push_back(std::move(turn));
    }
  }
  for (const Turn& turn : sample.turns) {
    if (turn.placements.empty()) continue;
    sample.placing.push_back(&turn);
    sample.mean_cells += static_cast<double>(turn.view.map.size());
  }
  if (sample.placing.empty()) {
    sample.error = "the sample games have no placement";
  } else {
    sample.mean_cells /= static_cast<double>(sample.placing.size());
  }
  return sample;
}

const Sample& sample() {
  static const Sample recorded = record_games();
  return recorded;
}

void report_per_call(benchmark::State& state, double mean_cells, std::size_t positions) {
  state.SetItemsProcessed(state.iterations());
  state.counters["cells"] = mean_cells;
  state.counters["positions"] = static_cast<double>(positions);
}

double mean_view_cells(const Sample& s) {
  double cells = 0;
  for (const Turn& turn : s.turns) cells += static_cast<double>(turn.view.map.size());
  return s.turns.empty() ? 0 : cells / static_cast<double>(s.turns.size());
}

enum class Positions { all, placing };

// Runs `op` (Turn -> a result kept from the optimizer) once per iteration on the recorded
// positions, round-robin: every turn, or only the turns that place tiles.
template <class Op>
void over_positions(benchmark::State& state, Positions which, Op op) {
  const Sample& s = sample();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  std::vector<const Turn*> turns;
  if (which == Positions::placing) {
    turns = s.placing;
  } else {
    for (const Turn& t : s.turns) turns.push_back(&t);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    auto result = op(*turns[i]);
    benchmark::DoNotOptimize(result);
    i = i + 1 == turns.size() ? 0 : i + 1;
  }
  report_per_call(state, which == Positions::placing ? s.mean_cells : mean_view_cells(s),
                  turns.size());
}

// The referee's legality check (State::check): no copy of the map.
void BM_QLegality(benchmark::State& state) {
  over_positions(state, Positions::placing,
                 [](const Turn& t) { return q::violation(t.view.map, t.view.hand, t.placements); });
}
BENCHMARK(BM_QLegality);

// Legality plus building the extended map (what the xlegal harness needs).
void BM_QExtend(benchmark::State& state) {
  over_positions(state, Positions::placing,
                 [](const Turn& t) { return q::extend(t.view.map, t.view.hand, t.placements); });
}
BENCHMARK(BM_QExtend);

void BM_QScore(benchmark::State& state) {
  over_positions(state, Positions::placing, [](const Turn& t) {
    return q::score(t.after, t.placements, q::Bonuses{}, false);
  });
}
BENCHMARK(BM_QScore);

void BM_QStrategyTurn(benchmark::State& state, q::Strategy strategy) {
  over_positions(state, Positions::all,
                 [strategy](const Turn& t) { return q::turn(strategy, t.view); });
}
BENCHMARK_CAPTURE(BM_QStrategyTurn, dag, q::Strategy::dag);
BENCHMARK_CAPTURE(BM_QStrategyTurn, ldasg, q::Strategy::ldasg);

void BM_QView(benchmark::State& state) {
  over_positions(state, Positions::all, [](const Turn& t) { return t.state.view(t.seat); });
}
BENCHMARK(BM_QView);

}  // namespace
}  // namespace arbiter
