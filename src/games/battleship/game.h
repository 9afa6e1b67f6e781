// Battleship as a Game (core/rules.h) whose players answer setup with their fleet (SetsUp): the
// types, the rules (State) and the codec, bundled for the referee, the registry, the wire and
// the conformance suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/player.h"
#include "core/rng.h"
#include "games/battleship/bots.h"
#include "games/battleship/codec.h"
#include "games/battleship/state.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

struct Battleship {
  static constexpr std::string_view kName = "battleship";
  using Config = battleship::Config;
  using State = battleship::State;
  using Action = Shots;
  using View = battleship::View;
  using Setup = Fleet;

  static constexpr int kMinSeats = 2;
  static constexpr int kMaxSeats = 2;


  // No randomness: the fleets come from the players.
  static State start(const Config& config, Rng&) { return State::start(config); }
  static Config default_config(int) { return Config{}; }

  static Json encode(const Action& a) { return encode_shots(a); }
  static Json encode(const View& v) { return encode_view(v); }
  static Json encode(const Config& c) { return encode_config(c); }
  static Json encode(const Setup& f) { return encode_fleet(f); }
  static Expected<Action> decode_action(const Json& j) { return decode_shots(j); }
  static Expected<View> decode_view(const Json& j) { return battleship::decode_view(j); }
  static Expected<Config> decode_config(const Json& j) { return battleship::decode_config(j); }
  static Expected<Setup> decode_setup(const Json& j) { return decode_fleet(j); }

  // On the wire (docs/games/battleship.md §3) setup sends only the config: ["setup", [Config]]. A
  // bot rebuilds its view from it: turn 0, no fleet, no shots, and "you" 0 (the setup message does
  // not carry the seat).
  static Json setup_args(const View& v, std::string_view) {
    return Json::array({encode_config(v.config)});
  }
  static Expected<View> decode_setup_args(const Json& args);

  // A legal fleet drawn uniformly at random (random_fleet), or, when none was found, the
  // config's ships all at the top-left corner (a foul).
  static Fleet sample_fleet(const Config& config, Rng& rng);

  // For the conformance suite: the answers a careless or hostile player might give. Setup:
  // usually a random legal fleet, sometimes one with a ship missing, off the grid or on top of
  // another. Turns: usually a legal random shot or salvo, rarely one off the grid, repeated, or
  // of the wrong count.
  static Setup sample_setup(const View& view, Rng& rng);
  static Action sample_action(const View& view, Rng& rng);

  // What hosting needs (arena/turn_based_entry.h): the --help lines and the house bots.
  static constexpr std::string_view kSummary =
      "Battleship: two hidden fleets, alternating shots (2 players)";
  static std::string bot_syntax() { return battleship::bot_syntax(); }
  static std::vector<std::string> house_bots() { return battleship::house_bots(); }
  static Expected<void> check_bot(std::string_view text) {
    auto bot = parse_bot(text);
    if (!bot) return std::unexpected(bot.error());
    return {};
  }
  static Expected<std::shared_ptr<Player<Battleship>>> make_bot(const std::string& name,
                                                                std::string_view text,
                                                                std::uint64_t seed) {
    auto bot = parse_bot(text);
    if (!bot) return std::unexpected(bot.error());
    return battleship::make_bot<Battleship>(name, *bot, seed);
  }
  // The codec only checks that the fleet has room; this checks that a legal placement exists at
  // all, so that no match starts in which every placement is a foul.
  static Expected<void> check_seats(const Config& config, std::size_t seats);
};

}  // namespace arbiter::battleship
