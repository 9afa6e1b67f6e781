// Q as a Game (core/rules.h): the types, the rules (State) and the codec, bundled for the
// referee, the registry and the conformance suite.
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
#include "games/q/codec.h"
#include "games/q/state.h"

namespace arbiter::q {

struct Q {
  static constexpr std::string_view kName = "q";
  using Config = q::Config;
  using State = q::State;
  using Action = q::Action;
  using View = q::View;
  using Hand = q::Tiles;

  static constexpr int kMinSeats = kMinPlayers;
  static constexpr int kMaxSeats = kMaxPlayers;


  static State start(const Config& config, Rng& rng) { return State::start(config, rng); }
  static Config default_config(int seats) { return Config{.players = seats}; }

  static Json encode(const Action& a) { return encode_action(a); }
  static Json encode(const View& v) { return encode_view(v); }
  static Json encode(const Hand& h) { return encode_tiles(h); }
  static Json encode(const Config& c);
  // The same as text, for the game log (referee/turn_based.h: LogWriterOf); the log's writer
  // reuses the map's text while the map has not grown.
  static void write_json(std::string& out, const Action& a) { write_action(out, a); }
  static void write_json(std::string& out, const View& v) { write_view(out, v); }
  static void write_json(std::string& out, const Hand& h) { write_tiles(out, h); }
  using LogWriter = q::LogWriter;
  static Expected<Action> decode_action(const Json& j) { return q::decode_action(j); }
  static Expected<View> decode_view(const Json& j) { return q::decode_view(j); }
  static Expected<Hand> decode_hand(const Json& j) { return decode_tiles(j); }
  static Expected<Config> decode_config(const Json& j);

  // On the wire (docs/games/q.md §5) the JPub carries the player's name, and setup sends the hand
  // beside it: ["setup", [JPub, [JTile...]]].
  static Json wire_view(const View& v, std::string_view name) {
    Json j = encode_view(v);
    j["players"][0]["name"] = name;
    return j;
  }
  static Json setup_args(const View& v, std::string_view name) {
    return Json::array({wire_view(v, name), encode_tiles(v.hand)});
  }

  // For the conformance suite: an action a careless or hostile player might send in `view`:
  // sometimes the house strategy's turn, sometimes pass/replace, sometimes random placements
  // (often illegal).
  static Action sample_action(const View& view, Rng& rng);

  // What hosting needs (arena/turn_based_entry.h): the --help lines, the house bots (the
  // course's strategies and scripted bad actors, bots.h; deterministic, so the seed is unused),
  // and the config of a match: `given` (null: the defaults) with "players" filled in from the
  // seat count, which it must agree with.
  static constexpr std::string_view kSummary =
      "Q, the Qwirkle-like tile game of CS 4500 (2-4 players, hidden hands)";
  static std::string bot_syntax() {
    return "dag | ldasg, optionally +cheat=CHEAT, +raise=METHOD or +hang=METHOD/K";
  }
  static std::vector<std::string> house_bots() { return {"dag", "ldasg"}; }
  static Expected<void> check_bot(std::string_view text);
  static Expected<std::shared_ptr<Player<Q>>> make_bot(const std::string& name,
                                                       std::string_view text, std::uint64_t seed);
  static Expected<Config> config_for(const Json& given, std::size_t seats);
};

}  // namespace arbiter::q
