// turn_based_entry<G>(): the registry entry (arena/registry.h) of any turn-based game whose
// folder provides what hosting needs as static members of G (the TurnBasedHosted concept below).
// Such a game is listed with one line in registered_games() and gets the rest from here: its
// house bots and "cmd:"/"tcp" seats (arena/seat_players.h), the turn-based referee
// (referee/turn_based.h), replay (referee/replay.h), the config and seat checks.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "arena/registry.h"
#include "arena/seat_players.h"
#include "arena/seating.h"
#include "core/player.h"
#include "core/rules.h"
#include "core/seed_tree.h"
#include "referee/replay.h"
#include "referee/turn_based.h"

namespace arbiter {

// What a turn-based game G provides for its registry entry, beside being a Game:
//   G::kSummary      one line for --help: what the game is, how many players
//   G::bot_syntax()  its house bots' syntax, one line for --help ("random | optimal")
//   G::house_bots()  every house bot by name, each one check_bot takes (`arbiter games`)
//   G::kMinSeats, G::kMaxSeats   how many players a match seats
//   G::check_bot(text)           whether `text` names a house bot (starts nothing)
//   G::make_bot(name, text, seed)   that bot as a Player; `seed` is its own (seeds::seat)
// Optionally G::config_for(given, seats) -> Expected<Config>, the config of a match of `seats`
// players when the seat count goes into it (Q's "players"; default: G::decode_config(given)),
// and G::check_seats(config, seats) -> Expected<void>, a check of the decoded config for that
// many seats (without it any count in [kMinSeats, kMaxSeats] goes with any config).
template <class G>
concept TurnBasedHosted =
    Game<G> && requires(std::string_view text, const std::string& name, std::uint64_t seed) {
      { G::kSummary } -> std::convertible_to<std::string_view>;
      { G::bot_syntax() } -> std::convertible_to<std::string>;
      { G::house_bots() } -> std::same_as<std::vector<std::string>>;
      { G::kMinSeats } -> std::convertible_to<int>;
      { G::kMaxSeats } -> std::convertible_to<int>;
      { G::check_bot(text) } -> std::same_as<Expected<void>>;
      { G::make_bot(name, text, seed) } -> std::same_as<Expected<std::shared_ptr<Player<G>>>>;
    };

namespace detail {

// The config of a match of G for `seats` players: `given` (null: the defaults, {}) decoded by
// the game's codec and checked against the seat count.
template <TurnBasedHosted G>
Expected<typename G::Config> turn_based_config(const Json& given, std::size_t seats) {
  if (seats < static_cast<std::size_t>(G::kMinSeats) ||
      seats > static_cast<std::size_t>(G::kMaxSeats)) {
    if (G::kMinSeats == G::kMaxSeats)
      return fail(fmt::format("{} is for {} players, {} were given", G::kName, G::kMinSeats, seats));
    return fail(fmt::format("{} is for {} to {} players, {} were given", G::kName, G::kMinSeats,
                            G::kMaxSeats, seats));
  }
  Expected<typename G::Config> config = std::unexpected(Error{});
  if constexpr (ConfiguresSeats<G>)
    config = G::config_for(given, seats);
  else
    config = G::decode_config(given.is_null() ? Json::object() : given);
  if (!config) return std::unexpected(config.error());
  if constexpr (ChecksSeats<G>) {
    if (auto ok = G::check_seats(*config, seats); !ok) return std::unexpected(ok.error());
  }
  return config;
}

template <TurnBasedHosted G>
Expected<PlayOutcome> play_turn_based_entry(const PlaySpec& spec) {
  auto config = turn_based_config<G>(spec.config, spec.roster.size());
  if (!config) return std::unexpected(config.error());
  PlayOutcome outcome;
  auto names = seat_names(spec);
  if (!names) return fail(names.error().message);
  outcome.names = std::move(*names);
  auto players = seat_players<G>(
      spec, [&](const Seating& seat, Seat index) -> Expected<PlayerPtr<G>> {
        return G::make_bot(seat.name, seat.bot, seeds::seat(spec.seed, index));
      });
  if (!players) return fail(players.error().message);
  outcome.result = play_turn_based<G>(*config, spec.seed, outcome.names, *players, spec.options);
  return outcome;
}

}  // namespace detail

template <TurnBasedHosted G>
GameEntry turn_based_entry() {
  return GameEntry{.name = std::string(G::kName),
                   .summary = std::string(G::kSummary),
                   .bots = G::bot_syntax(),
                   .house_bots = G::house_bots(),
                   .min_seats = static_cast<std::size_t>(G::kMinSeats),
                   .max_seats = static_cast<std::size_t>(G::kMaxSeats),
                   .clocked = true,
                   .seat_per_call = true,
                   .check_bot = [](const std::string& bot) { return G::check_bot(bot); },
                   .check_config = [](const Json& config, std::size_t seats) -> Expected<void> {
                     auto decoded = detail::turn_based_config<G>(config, seats);
                     if (!decoded) return std::unexpected(decoded.error());
                     return {};
                   },
                   .play = detail::play_turn_based_entry<G>,
                   .replay = [](const std::vector<Json>& log) { return replay<G>(log); }};
}

}  // namespace arbiter
