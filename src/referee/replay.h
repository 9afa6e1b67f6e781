// Replay: re-simulates a recorded match from its game log and checks that it ends identically.
// The same referee runs again with the recorded seed and config; every seat is played by a
// ReplayPlayer that answers each call from the log (and re-raises recorded failures), after
// checking that the referee asked the same thing with the same arguments. The rules recompute
// every legality verdict, view and deal, so any non-determinism or rules change shows up as the
// first line where the new log differs from the recorded one.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/player.h"
#include "referee/turn_based.h"

namespace arbiter {

struct ReplayReport {
  bool identical = false;
  std::string difference;  // the first difference, when not identical
  std::size_t calls = 0;   // call records replayed
  MatchResult result;      // the replayed result
};

namespace detail {

// A recorded match's calls, seat by seat, answered in order: the replay's players (turn-based
// ReplayPlayer, lockstep ScriptedSeat) take them through next().
struct ReplayScript {
  std::vector<std::deque<Json>> per_seat;
  std::vector<std::string> names;  // by seat, for messages
  std::int64_t per_call_us = 0;    // the header's per-call limit; 0: not stated, not judged
  std::vector<std::int64_t> seat_per_call_us;  // a seat's own limit, where the header gives one
  // Judged on CPU time (the header's "limit_by": "cpu"): the per-call limit bounds cpu_us, and
  // the wall-clock backstop, this many times it, bounds elapsed_us.
  std::optional<double> backstop;
  std::string divergence;  // the first way the referee's calls departed from the log

  // The recorded call that answers `call` of `seat` with `args`: after checking that the
  // referee asks what the log has, it returns the record (with its "reply", if any) or
  // re-raises a recorded failure as a PlayerFault; a departure from the log is a PlayerFault
  // too (and noted in `divergence`).
  Json next(Seat seat, const char* call, const Json& args) {
    auto& queue = per_seat[seat];
    if (queue.empty())
      diverge(seat, fmt::format("the referee calls {} but the log has no more calls", call));
    Json record = std::move(queue.front());
    queue.pop_front();
    if (string_or(record, "call") != call)
      diverge(seat, fmt::format("the referee calls {} where the log has {}", call,
                                string_or(record, "call")));
    const auto recorded = record.find("args");  // compared in place: args can be large
    if (recorded == record.end() ? !args.is_null() : *recorded != args)
      diverge(seat, fmt::format("{} gets other arguments than recorded: {}", call, excerpt(args, 200)));
    const std::string verdict = string_or(record, "verdict");
    // The timing is not replayed, but it must be possible: an answer (ok or foul) came within
    // the per-call limit (guarded_call records at most the allowance for one).
    const Json elapsed = field_or_null(record, "elapsed_us");
    if (!elapsed.is_number_integer() || elapsed.get<std::int64_t>() < 0)
      diverge(seat, fmt::format("{} has no valid elapsed_us", call));
    const std::int64_t took = elapsed.get<std::int64_t>();
    // (+1 ms: the header states the limit in whole milliseconds, rounded down.)
    const std::int64_t limit_us = static_cast<std::size_t>(seat) < seat_per_call_us.size()
                                      ? seat_per_call_us[static_cast<std::size_t>(seat)]
                                      : per_call_us;
    const bool answered = verdict == "ok" || verdict == "foul";
    if (limit_us > 0 && answered) check_timing(seat, call, record, took, limit_us);
    // A recorded reply is answered again, so that the rules (a foul) and the decoder (a
    // malformed answer the referee decoded) judge it as they did then; a failed call without
    // one (a timeout, a hang-up, a foul the channel called: an unsolicited line) re-raises its
    // verdict.
    if (verdict != "ok" && !record.contains("reply")) {
      auto why = why_from_string(verdict);
      if (!why) diverge(seat, fmt::format("unknown verdict \"{}\"", verdict));
      throw PlayerFault(*why, string_or(record, "detail"));
    }
    return record;
  }

  // An answer's recorded time was possible: on the wall clock within the limit, or judged on
  // CPU time, its CPU time within the limit and its wall time within the backstop.
  void check_timing(Seat seat, const char* call, const Json& record, std::int64_t took,
                    std::int64_t limit_us) {
    // Judged on CPU time, a call without cpu_us (a seat whose CPU time is not measured) was held
    // to the limit on the wall clock, as the referee holds it.
    const Json cpu = field_or_null(record, "cpu_us");
    if (!backstop || cpu.is_null()) {
      if (took > limit_us + 1000)
        diverge(seat, fmt::format("{} is recorded as answered after {} us, past the per-call "
                                  "limit of {} us",
                                  call, took, limit_us));
      return;
    }
    const auto wall_us = static_cast<std::int64_t>(static_cast<double>(limit_us) * *backstop);
    if (took > wall_us + 1000)
      diverge(seat, fmt::format("{} is recorded as answered after {} us, past the wall-clock "
                                "backstop of {} us",
                                call, took, wall_us));
    if (!cpu.is_number_integer() || cpu.get<std::int64_t>() < 0)
      diverge(seat, fmt::format("{} has no valid cpu_us", call));
    if (cpu.is_number_integer() && cpu.get<std::int64_t>() > limit_us + 1000)
      diverge(seat, fmt::format("{} is recorded as answered after {} us of CPU time, past the "
                                "per-call limit of {} us",
                                call, cpu.get<std::int64_t>(), limit_us));
  }

  [[noreturn]] void diverge(Seat seat, const std::string& what) {
    if (divergence.empty())
      divergence = seat < static_cast<Seat>(names.size())
                       ? fmt::format("seat {} ({}): {}", seat, names[seat], what)
                       : fmt::format("seat {}: {}", seat, what);
    throw PlayerFault(Why::exception, "replay diverged: " + what);
  }
};

// The "call" lines of a log, seat by seat, for `seats` seats; an Error names a call line of no
// such seat.
inline Expected<std::size_t> load_calls(const std::vector<Json>& log, ReplayScript& script,
                                        std::size_t seats) {
  script.per_seat.assign(seats, {});
  std::size_t calls = 0;
  for (std::size_t i = 1; i < log.size(); ++i) {
    if (string_or(log[i], "type") != "call") continue;
    auto seat = to_int(field_or_null(log[i], "seat"), fmt::format("line {}: seat", i + 1));
    if (!seat || *seat < 0 || static_cast<std::size_t>(*seat) >= seats)
      return fail(fmt::format("line {}: no such seat", i + 1));
    script.per_seat[*seat].push_back(log[i]);
    ++calls;
  }
  return calls;
}

template <Game G>
class ReplayPlayer final : public Player<G> {
 public:
  ReplayPlayer(std::shared_ptr<ReplayScript> script, Seat seat, std::string name)
      : script_(std::move(script)), seat_(seat), name_(std::move(name)) {}

  std::string name() override { return name_; }
  SetupOf_t<G> setup(const typename G::View& view) override {
    Json record = script_->next(seat_, "setup", G::encode(view));
    if constexpr (SetsUp<G>) {
      auto choice = G::decode_setup(field_or_null(record, "reply"));
      if (!choice)
        script_->diverge(seat_, fmt::format("recorded reply does not decode: {}", choice.error().message));
      return *choice;
    }
  }
  typename G::Action take_turn(const typename G::View& view) override {
    Json record = script_->next(seat_, "take_turn", G::encode(view));
    auto action = G::decode_action(field_or_null(record, "reply"));
    if (!action)
      script_->diverge(seat_, fmt::format("recorded reply does not decode: {}", action.error().message));
    return *action;
  }
  void new_tiles(const HandOf_t<G>& tiles) override {
    if constexpr (HandCodec<G>) script_->next(seat_, "new_tiles", G::encode(tiles));
  }
  void win(bool won) override { script_->next(seat_, "win", Json(won)); }

 private:
  std::shared_ptr<ReplayScript> script_;
  Seat seat_;
  std::string name_;
};

}  // namespace detail

// The largest per-call limit a header may state (a day); more is refused as impossible.
inline constexpr std::int64_t kMaxPerCallMs = 24LL * 3600 * 1000;

// REQUIRES: log[0] is the "match" header of a G match (checked: an Error otherwise).
// Besides the moves, the recorded timing must be possible (see ReplayPlayer::next): a call
// answered after the per-call limit, or timed out before it, is a difference.
template <Game G>
Expected<ReplayReport> replay(const std::vector<Json>& log) {
  if (log.empty() || string_or(log[0], "type") != "match")
    return fail("the log does not start with a match header");
  const Json& header = log[0];
  if (string_or(header, "game") != G::kName)
    return fail(
        fmt::format("the log is of game \"{}\", not {}", string_or(header, "game"), G::kName));
  auto config = G::decode_config(field_or_null(header, "config"));
  if (!config) return fail("the recorded config: " + config.error().message);
  auto seed = to_natural(field_or_null(header, "seed"), "seed");
  if (!seed) return fail(seed.error().message);
  const Json seats = field_or_null(header, "seats");
  if (!seats.is_array() || seats.empty()) return fail("the header names no seats");
  const std::int64_t per_call_ms = int_or(header, "per_call_ms", -1);
  if (per_call_ms <= 0 || per_call_ms > kMaxPerCallMs)
    return fail(fmt::format("the header has no valid per_call_ms (1 to {})", kMaxPerCallMs));

  auto script = std::make_shared<detail::ReplayScript>();
  script->per_call_us = per_call_ms * 1000;
  auto calls = detail::load_calls(log, *script, seats.size());
  if (!calls) return std::unexpected(calls.error());

  std::vector<std::string> names;
  std::vector<PlayerPtr<G>> players;
  for (std::size_t s = 0; s < seats.size(); ++s) {
    names.push_back(seats[s].is_string() ? seats[s].get<std::string>() : fmt::format("seat{}", s));
    script->names.push_back(names.back());
    players.push_back(
        std::make_shared<detail::ReplayPlayer<G>>(script, static_cast<Seat>(s), names.back()));
  }

  ManualClock clock;  // time stands still: only recorded verdicts eject
  GameLog fresh(nullptr, /*keep=*/true);
  RefereeOptions options;
  options.per_call = std::chrono::milliseconds(per_call_ms);
  options.isolation = Isolation::inline_call;
  options.clock = &clock;
  options.log = &fresh;
  options.measure_cpu = false;
  if (header.contains("limit_by")) {
    const Json& by = header["limit_by"];
    const Json& backstop = field_or_null(header, "backstop");
    if (by != "cpu" && by != "wall")
      return fail("the header's limit_by: expected \"wall\" or \"cpu\"");
    if (by == "cpu") {
      if (!backstop.is_number() ||
          !(backstop.get<double>() >= 1.0 && backstop.get<double>() <= 100.0))
        return fail("the header's backstop: expected a number from 1 to 100");
      options.limit_by = LimitBy::cpu;
      options.backstop = backstop.get<double>();
      script->backstop = options.backstop;
    }
  }
  if (header.contains("speed_factor")) {
    const Json& f = header["speed_factor"];
    if (!f.is_number() || !(f.get<double>() > 0 && f.get<double>() <= 1000))
      return fail("the header's speed_factor: expected a number from 0 to 1000");
    options.speed_factor = f.get<double>();
  }
  if (header.contains("clock")) {
    auto tc = header["clock"].is_string() ? parse_time_control(header["clock"].get<std::string>())
                                          : Expected<TimeControl>(fail("not a string"));
    if (!tc) return fail("the header's clock: " + tc.error().message);
    options.time_control = *tc;
  }

  // A seat's own limits (a tournament entrant's), as the header records them.
  if (header.contains("seat_limits")) {
    const Json& limits = header["seat_limits"];
    if (!limits.is_array() || limits.size() != seats.size())
      return fail("the header's seat_limits: expected one {per_call_ms, clock?} per seat");
    for (const Json& limit : limits) {
      const std::int64_t ms = int_or(limit, "per_call_ms", -1);
      if (ms <= 0 || ms > kMaxPerCallMs)
        return fail(fmt::format("the header's seat_limits: a per_call_ms outside 1 to {}",
                                kMaxPerCallMs));
      options.seat_per_call.push_back(std::chrono::milliseconds(ms));
      script->seat_per_call_us.push_back(ms * 1000);
      std::optional<TimeControl> clock;
      if (limit.contains("clock")) {
        auto tc = limit["clock"].is_string()
                      ? parse_time_control(limit["clock"].get<std::string>())
                      : Expected<TimeControl>(fail("not a string"));
        if (!tc) return fail("the header's seat_limits: a clock: " + tc.error().message);
        clock = *tc;
      }
      options.seat_time_control.push_back(clock);
    }
  }

  ReplayReport report;
  report.calls = *calls;
  try {
    report.result = play_turn_based<G>(*config, *seed, names, players, options);
  } catch (const std::exception& e) {
    return fail(fmt::format("the replay failed: {}", e.what()));
  }
  auto difference = first_difference(log, fresh.lines());
  report.identical = !difference && script->divergence.empty();
  if (!script->divergence.empty())
    report.difference = script->divergence;
  else if (difference)
    report.difference = *difference;
  return report;
}

}  // namespace arbiter
