// Configs that say how many players a match seats ("players": Q, Speed Scrabble, the Dominosa
// race): the count is filled in from the seats a match is given, and must agree with them.
#pragma once

#include <cstddef>
#include <string_view>

#include <fmt/format.h>

#include "core/json.h"

namespace arbiter {

// The overrides `given` (null: none) as an object with "players" filled in for `seats`; an
// Error naming `game` when `given` is not an object.
inline Expected<Json> with_players(const Json& given, std::size_t seats, std::string_view game) {
  Json config = given.is_null() ? Json::object() : given;
  if (!config.is_object())
    return fail(fmt::format("the {} config must be a JSON object, got {}", game, excerpt(config)));
  if (!config.contains("players")) config["players"] = seats;
  return config;
}

// Whether a decoded config's player count agrees with the seats given.
inline Expected<void> check_players(int players, std::size_t seats) {
  if (static_cast<std::size_t>(players) != seats)
    return fail(fmt::format("the config seats {} players but {} were given", players, seats));
  return {};
}

// The config of a match of `seats` players: `given` with "players" filled in (with_players),
// decoded by `decode` (Json -> Expected<Config>, a Config with an int `players`), and its player
// count checked against the seats.
template <class Decode>
auto seated_config(const Json& given, std::size_t seats, std::string_view game, Decode decode)
    -> decltype(decode(given)) {
  auto overrides = with_players(given, seats, game);
  if (!overrides) return std::unexpected(overrides.error());
  auto config = decode(*overrides);
  if (!config) return config;
  if (auto ok = check_players(config->players, seats); !ok) return std::unexpected(ok.error());
  return config;
}

}  // namespace arbiter
