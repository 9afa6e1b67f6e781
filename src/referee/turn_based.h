// The game-agnostic turn-based referee (Q, Battleship): setup for every seat in turn order, then
// take_turn -> check -> apply -> new_tiles until the game is over, then win for the winners and
// the losers. Every call goes through guarded_call; a throw, a timeout, a malformed answer or a
// Foul ejects the seat, the game disposes of its assets (Rules::eject) and play goes on.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/player.h"
#include "core/rules.h"
#include "referee/call_record.h"
#include "referee/guarded_call.h"
#include "referee/match.h"

namespace arbiter {

template <class G>
using PlayerPtr = std::shared_ptr<Player<G>>;

// Writes the JSON text of game G's values for a match's log, as dump(G::encode(value)) writes
// it: through the game's own text writer (G::write_json) when it has one for the type, which
// skips building a Json tree on every logged call. A game may keep state across the calls of one
// match (G::LogWriter, e.g. to reuse the text of what has not changed); one writer serves one
// match, in order.
template <class G>
struct DefaultLogWriter {
  template <class T>
  void write_json(std::string& out, const T& value) {
    if constexpr (WritesJson<G, T>)
      G::write_json(out, value);
    else
      out += dump(G::encode(value));
  }
};

template <class G>
struct LogWriterOf {
  using type = DefaultLogWriter<G>;
};
template <HasLogWriter G>
struct LogWriterOf<G> {
  using type = typename G::LogWriter;
};

template <Game G>
class TurnReferee {
 public:
  // REQUIRES: players.size() == names.size() == the number of seats `config` describes.
  TurnReferee(typename G::Config config, std::uint64_t seed, std::vector<std::string> names,
              std::vector<PlayerPtr<G>> players, RefereeOptions options)
      : config_(std::move(config)),
        seed_(seed),
        names_(std::move(names)),
        players_(std::move(players)),
        options_(options),
        state_([&] {
          Rng rng(seeds::start(seed_));
          return G::start(config_, rng);
        }()) {
    // The seats take turns, so one pool's warm worker serves them all (call_runner.h).
    auto pool = std::make_shared<CallPool>();
    for (const auto& player : players_)
      runners_.push_back(std::make_unique<CallRunner>(
          player->in_process() ? options_.isolation : Isolation::inline_call, pool));
    banks_.assign(players_.size(), Duration::zero());
    called_.assign(players_.size(), false);
    for (std::size_t s = 0; s < players_.size(); ++s)
      if (const auto& tc = options_.time_control_of(static_cast<Seat>(s))) banks_[s] = tc->bank;
  }

  MatchResult run() {
    log_header();
    for (Seat seat : state_.turn_order()) {
      auto view = std::make_shared<const typename G::View>(state_.view(seat));
      auto args = [&](std::string& out) { log_writer_.write_json(out, *view); };
      auto fn = [p = players_[seat], view] { return p->setup(*view); };
      if constexpr (SetsUp<G>) {
        auto choice = call(seat, "setup", args, fn, [&](const typename G::Setup& a) {
          return state_.check_setup(seat, a);
        });
        if (choice) state_.apply_setup(seat, *choice);
      } else {
        call(seat, "setup", args, fn);
      }
    }
    std::uint64_t turns = 0;
    for (Seats movers = state_.to_move(); !movers.empty(); movers = state_.to_move()) {
      if (++turns > options_.max_turns) {
        result_.aborted = true;
        break;
      }
      // Turn-based: the game names one seat at a time.
      take_turn(movers.front());
    }
    if (!result_.aborted) {
      announce();
      result_.scores = state_.standings().scores;
    }
    if (options_.log != nullptr) options_.log->write(encode_result(result_));
    for (const auto& player : players_)
      if (!player->in_process()) player->disconnect();
    return result_;
  }

  const typename G::State& state() const { return state_; }

 private:
  template <class T>
  std::string encoded_text(const T& value) {
    std::string out;
    log_writer_.write_json(out, value);
    return out;
  }

  void take_turn(Seat seat) {
    auto view = std::make_shared<const typename G::View>(state_.view(seat));
    auto reply = call(
        seat, "take_turn", [&](std::string& out) { log_writer_.write_json(out, *view); },
        [p = players_[seat], view] { return p->take_turn(*view); },
        [&](const typename G::Action& a) { return state_.check(seat, a); });
    if (!reply) return;
    state_.apply(seat, *reply);
    if constexpr (DealsHands<G>) {
      if (auto dealt = state_.dealt(seat)) {
        auto ok = call(
            seat, "new_tiles", [&](std::string& out) { log_writer_.write_json(out, *dealt); },
            [p = players_[seat], d = *dealt] { p->new_tiles(d); });
        if (ok) state_.acknowledge(seat);
      }
    }
  }

  void announce() {
    const Standings standings = state_.standings();
    for (bool won : {true, false}) {
      for (Seat seat : won ? standings.winners : standings.losers) {
        auto ok = call(
            seat, "win", [&](std::string& out) { out += won ? "true" : "false"; },
            [p = players_[seat], won] { p->win(won); });
        if (ok && won) result_.winners.push_back(seat);
      }
    }
  }

  // Calls `fn` for `seat` under the per-call deadline, logs the exchange (`args(out)` appends the
  // arguments' JSON text), and ejects the seat if the call fails or (given a `check`, answer ->
  // optional<Foul>) its answer is a foul. Returns the answer or nothing.
  // In a clocked match the call may also take no more than the seat's bank (plus the grace of
  // its first call); running out of it is the verdict time_bank; what it took is drawn from the
  // bank, and a take_turn (a move) then adds the increment.
  template <class ArgsFn, class Fn, class Check = std::nullptr_t>
  auto call(Seat seat, const char* method, ArgsFn args, Fn fn, Check check = nullptr) {
    Duration allowance = options_.per_call_of(seat);
    Duration grace{};
    std::optional<CallClock> told;
    bool bank_bound = false;
    const auto& tc = options_.time_control_of(seat);
    if (tc) {
      grace = (called_[seat] ? Duration::zero() : tc->first_grace) + tc->delay;
      called_[seat] = true;
      told = CallClock{banks_[seat], tc->increment};
      if (banks_[seat] + grace < allowance) {
        allowance = banks_[seat] + grace;
        bank_bound = true;
      }
    }
    const CpuRule rule = cpu_rule(seat, allowance);
    const Deadline deadline =
        Deadline::after(*options_.clock, rule.limit ? options_.backstop_of(allowance) : allowance);
    std::optional<CallRecord> record;
    if (options_.log != nullptr)
      record.emplace(seat, method, args, options_.log->line_buffer());
    if (told && record) record->set_clock(told->remaining);
    auto outcome = guarded_call(seat, method, *runners_[seat], deadline, std::move(fn), told, rule);
    if (told) {
      // Judged on CPU time, the bank pays the CPU time the call used.
      const Duration took = rule.limit ? outcome.cpu.value_or(outcome.elapsed) : outcome.elapsed;
      const Duration used = std::max(Duration::zero(), took - grace);
      if (!outcome.value && outcome.value.error().why == Why::timeout && bank_bound) {
        banks_[seat] = Duration::zero();
        outcome.value = std::unexpected(Ejection{
            seat, Why::time_bank, method,
            fmt::format("its clock ran out: {} ms left in its bank{}",
                        std::chrono::duration_cast<std::chrono::milliseconds>(told->remaining).count(),
                        grace > Duration::zero() ? fmt::format(" and {} ms of grace",
                                                               std::chrono::duration_cast<std::chrono::milliseconds>(grace).count())
                                                 : std::string())});
      } else {
        banks_[seat] = std::max(Duration::zero(), banks_[seat] - used);
        if (std::string_view(method) == "take_turn") banks_[seat] += tc->increment;
      }
    }
    if (!outcome.value) blame_the_host(outcome.value.error(), outcome.elapsed, outcome.cpu);
    using R = typename decltype(outcome.value)::value_type;
    std::optional<R> answer;
    std::optional<Ejection> ejection;
    if (outcome.value) {
      answer = std::move(*outcome.value);
      if constexpr (!std::is_same_v<Check, std::nullptr_t>) {
        if (record) record->set_reply(encoded_text(*answer));
        if (auto foul = check(*answer)) {
          ejection =
              Ejection{seat, Why::foul, method, fmt::format("{}: {}", foul->code, foul->detail)};
          answer.reset();
        }
      }
    } else {
      ejection = outcome.value.error();
    }
    if (record)
      options_.log->write_text(
          std::move(*record).text(ejection ? &*ejection : nullptr, outcome.elapsed, outcome.cpu));
    if (ejection) {
      state_.eject(seat);
      if (!players_[seat]->in_process()) players_[seat]->ejected(*ejection);
      result_.ejections.push_back(std::move(*ejection));
    }
    return answer;
  }

  // A call that ran out of time while the host was overloaded and the seat was kept from a CPU
  // (core/host_load.h): not the player's doing.
  void blame_the_host(Ejection& ejection, Duration window, std::optional<Duration> cpu) const {
    // A setup call also starts the program (an interpreter loading, then waiting for its
    // input): what share of it was computing says nothing of what it wanted.
    if (options_.host_load == nullptr || ejection.call == "setup" ||
        (ejection.why != Why::timeout && ejection.why != Why::time_bank))
      return;
    // A seat whose CPU time is unknown (a tcp client) cannot be shown to have been kept from one;
    // one that wanted more CPU than its quota (spinners of its own) kept itself waiting.
    if (!cpu || !deprived(*cpu, window)) return;
    if (const CpuMeter* meter = players_[ejection.seat]->cpu_meter();
        meter && meter->contends_with_itself())
      return;
    const auto load = options_.host_load->over_last(window);
    if (!load || !load->overloaded()) return;
    ejection.why = Why::timeout_under_load;
    ejection.detail = bounded_detail(fmt::format("{}; the host was overloaded meanwhile ({})",
                                                 ejection.detail, load->describe()));
  }

  // How the seat's calls are timed: its CPU time measured where it can be (a program's cgroup,
  // or the thread of an in-process player) and, with LimitBy::cpu, judged against `allowance`.
  CpuRule cpu_rule(Seat seat, Duration allowance) const {
    const Player<G>& player = *players_[seat];
    CpuRule rule{.measure = options_.measure_cpu, .meter = player.cpu_meter()};
    const bool measurable = player.in_process() || rule.meter != nullptr;
    rule.measure = rule.measure && measurable;
    if (options_.limit_by == LimitBy::cpu && measurable) rule.limit = allowance;
    return rule;
  }

  void log_header() {
    if (options_.log == nullptr) return;
    Json header{{"type", "match"},
                {"format", kGameLogFormat},
                {"game", std::string(G::kName)},
                {"seed", seed_},
                {"config", G::encode(config_)},
                {"seats", names_},
                {"per_call_ms",
                 std::chrono::duration_cast<std::chrono::milliseconds>(options_.per_call).count()}};
    if (options_.time_control) header["clock"] = format_time_control(*options_.time_control);
    if (options_.limit_by == LimitBy::cpu) {
      header["limit_by"] = "cpu";
      header["backstop"] = options_.backstop;
    }
    if (options_.speed_factor) header["speed_factor"] = *options_.speed_factor;
    if (options_.seats_differ()) {
      Json limits = Json::array();
      for (std::size_t s = 0; s < players_.size(); ++s) {
        const Seat seat = static_cast<Seat>(s);
        Json limit{{"per_call_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                       options_.per_call_of(seat))
                                       .count()}};
        if (const auto& tc = options_.time_control_of(seat)) limit["clock"] = format_time_control(*tc);
        limits.push_back(std::move(limit));
      }
      header["seat_limits"] = std::move(limits);
    }
    options_.log->write(header);
  }

  typename G::Config config_;
  std::uint64_t seed_;
  std::vector<std::string> names_;
  std::vector<PlayerPtr<G>> players_;
  RefereeOptions options_;
  typename G::State state_;
  std::vector<std::unique_ptr<CallRunner>> runners_;
  typename LogWriterOf<G>::type log_writer_;
  std::vector<Duration> banks_;  // clocked matches: what is left of each seat's time
  std::vector<bool> called_;     // clocked matches: whether the seat has had its first call
  MatchResult result_;
};

// Runs one turn-based match to the end.
template <Game G>
MatchResult play_turn_based(typename G::Config config, std::uint64_t seed,
                            std::vector<std::string> names, std::vector<PlayerPtr<G>> players,
                            const RefereeOptions& options) {
  TurnReferee<G> referee(std::move(config), seed, std::move(names), std::move(players), options);
  return referee.run();
}

}  // namespace arbiter
