// Speed Scrabble as a real-time game for the referee (core/realtime.h): the rules (state.h) and
// the wire form of its messages (docs/games/speed_scrabble.md §3):
//   referee to player  ["setup", [Config, [Letter...]]]   ["new-tiles", [[Letter...]]]
//                      ["verdict", [k, "accepted" | Reason]]   (and the referee's ["win", [bool]])
//   player to referee  ["submit", [Board]]
// Config on the wire: {"players", "hand", "start", "bag", "dictionary", "stall_seconds",
// "max_seconds", "max_invalid", "max_rate", "max_bytes"}. Decoders reject anything else with a
// one-line error.
#pragma once

#include <string_view>

#include "core/json.h"
#include "core/rng.h"
#include "games/speed_scrabble/state.h"

namespace arbiter::speed_scrabble {

Json encode(const Config& c);
// A config from its JSON form; missing fields keep the defaults. The dictionary is not loaded
// (words stays empty): the host resolves `dictionary`.
Expected<Config> decode_config(const Json& j);
Json encode(const Message& board);
Expected<Message> decode_message(const Json& j);
Json encode(const Notice& n);
Expected<Notice> decode_notice(const Json& j);
Json encode_setup(const View& v);
Expected<View> decode_setup(const Json& j);

struct SpeedScrabble {
  static constexpr std::string_view kName = "speed_scrabble";
  static constexpr int kMinSeats = kMinPlayers;
  static constexpr int kMaxSeats = kMaxPlayers;
  using Config = speed_scrabble::Config;
  using State = speed_scrabble::State;
  using Message = speed_scrabble::Message;
  using Notice = speed_scrabble::Notice;
  using View = speed_scrabble::View;

  static State start(const Config& c, Rng& rng) { return State::start(c, rng); }
  static Json encode(const Config& c) { return speed_scrabble::encode(c); }
  static Json encode(const Message& m) { return speed_scrabble::encode(m); }
  static Json encode(const Notice& n) { return speed_scrabble::encode(n); }
  static Json encode_setup(const View& v) { return speed_scrabble::encode_setup(v); }
  static Expected<Config> decode_config(const Json& j) { return speed_scrabble::decode_config(j); }
  static Expected<Message> decode_message(const Json& j) {
    return speed_scrabble::decode_message(j);
  }
  static Expected<Notice> decode_notice(const Json& j) { return speed_scrabble::decode_notice(j); }
  static Expected<View> decode_setup(const Json& j) { return speed_scrabble::decode_setup(j); }
};

}  // namespace arbiter::speed_scrabble
