// The host of a real-time race (referee/realtime.h) for the games that are one: the house
// racers made from the common bot grammar (core/racer.h: solver | slow | slow=SECONDS), remote
// seats opened as for every game (arena/seating.h), the match line, and the setup order drawn
// from the seed. Each race's entry file (arena/speed_scrabble.cpp, arena/dominosa.cpp) wires its
// game to it, as arena/turn_based_entry.h does for turn-based games.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "core/racer.h"
#include "core/seed_tree.h"
#include "referee/realtime.h"
#include "remote/wire.h"

namespace arbiter::race {

inline std::string seconds_text(Duration d) {
  return fmt::format("{:.3f}s", std::chrono::duration<double>(d).count());
}

// Runs a real-time match of G between the roster's seats: house seats are racers made by
// `make_racer(seat, spec)` from their bot text (the common solver/slow=SECONDS grammar), remote
// seats are opened as for every game; the log starts with the match line; setups go out in an
// order drawn from the seed.
template <RealtimeGame G, class MakeRacer>
Expected<MatchResult> run(const PlaySpec& spec, const std::vector<std::string>& names,
                          typename G::State& state, const Json& config_json, int max_rate,
                          int max_bytes, MakeRacer make_racer) {
  std::vector<RacerSpec> house(spec.roster.size());
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    if (is_remote(spec.roster[i])) continue;
    auto racer = parse_racer(spec.roster[i].bot);
    if (!racer) return fail(racer.error().message);
    house[i] = *racer;
  }
  ChannelLimits limits;
  limits.max_message = static_cast<std::size_t>(max_bytes);
  auto remote = open_remote_seats(spec, limits);
  if (!remote) return fail(remote.error().message);
  std::vector<RealtimeSeat> seats(spec.roster.size());
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    RealtimeSeat& seat = seats[i];
    seat.name = names[i];
    if (auto& opened = (*remote)[i]) {
      if (!opened->failure.empty()) {
        seat.failed = Ejection{static_cast<Seat>(i), Why::hang_up, "setup", opened->failure};
      } else {
        seat.channel = std::move(opened->channel);
        if (opened->process) {
          seat.ejected = [process = opened->process] {
            process->stop_after(wire::kLastMessageGrace);
          };
          // At the end too the program may read its last message ("win") and exit on its own.
          seat.disconnect = [process = std::move(opened->process)] {
            process->stop_after(wire::kLastMessageGrace);
          };
        }
      }
      continue;
    }
    seat.racer = make_racer(static_cast<Seat>(i), house[i]);
  }
  if (spec.options.log)
    spec.options.log->write({{"type", "match"},
                             {"game", G::kName},
                             {"seed", spec.seed},
                             {"config", config_json},
                             {"seats", names},
                             {"style", "realtime"},
                             {"format", kGameLogFormat}});
  RealtimeOptions options;
  options.clock = spec.options.clock;
  options.log = spec.options.log;
  options.send_timeout = spec.options.per_call;
  options.seat_send_timeout = spec.options.seat_per_call;
  options.max_rate = max_rate;
  options.limits = limits;
  for (std::size_t p = 0; p < seats.size(); ++p)
    options.setup_order.push_back(static_cast<Seat>(p));
  Rng order_rng(seeds::setup_order(spec.seed));
  order_rng.shuffle(options.setup_order.begin(), options.setup_order.end());
  options.notice_order_seed = seeds::notice_order(spec.seed);
  return run_realtime<G>(state, seats, options);
}

// A race's outcome with the roster's names.
inline Expected<PlayOutcome> outcome_of(const PlaySpec& spec) {
  PlayOutcome outcome;
  auto names = seat_names(spec);
  if (!names) return fail(names.error().message);
  outcome.names = std::move(*names);
  return outcome;
}

// Expected<T> as Expected<void>, for an entry's check_* functions.
template <class T>
Expected<void> checked(const Expected<T>& e) {
  if (!e) return std::unexpected(e.error());
  return {};
}

}  // namespace arbiter::race
