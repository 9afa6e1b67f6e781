// Nim as a Game (core/rules.h): the types, rules and codec bundled for the referee and the
// conformance suite, plus what the generic registry entry (arena/turn_based_entry.h) asks of a
// turn-based game: its summary, bot syntax, seat counts and house bots.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bots.h"
#include "codec.h"
#include "core/json.h"
#include "core/player.h"
#include "core/rng.h"
#include "state.h"

namespace arbiter::nim {

struct Nim {
  static constexpr std::string_view kName = "nim";
  static constexpr std::string_view kSummary =
      "Nim: take 1 to max_take objects from one heap, the last to take wins (2 players)";
  static std::string bot_syntax() { return "random | optimal"; }
  static std::vector<std::string> house_bots() { return {"random", "optimal"}; }
  static constexpr int kMinSeats = 2;
  static constexpr int kMaxSeats = 2;
  // Nothing is hidden: every seat sees the whole position (the conformance suite then checks
  // that scramble_hidden has nothing to change).
  static constexpr bool kPerfectInformation = true;

  using Config = nim::Config;
  using State = nim::State;
  using Action = nim::Action;
  using View = nim::View;

  // No randomness: the heaps are the config's.
  static State start(const Config& config, Rng&) { return State::start(config); }
  static Config default_config(int) { return Config{}; }

  static Json encode(const Action& a) { return encode_action(a); }
  static Json encode(const View& v) { return encode_view(v); }
  static Json encode(const Config& c) { return encode_config(c); }
  static Expected<Action> decode_action(const Json& j) { return nim::decode_action(j); }
  static Expected<View> decode_view(const Json& j) { return nim::decode_view(j); }
  static Expected<Config> decode_config(const Json& j) { return nim::decode_config(j); }

  // House bots, for the registry entry.
  static Expected<void> check_bot(std::string_view bot) {
    auto kind = parse_bot(bot);
    if (!kind) return std::unexpected(kind.error());
    return {};
  }
  static Expected<std::shared_ptr<Player<Nim>>> make_bot(const std::string& name,
                                                         std::string_view bot,
                                                         std::uint64_t seed) {
    auto kind = parse_bot(bot);
    if (!kind) return std::unexpected(kind.error());
    return std::make_shared<Bot<Nim>>(name, *kind, seed);
  }

  // For the conformance suite: what a careless or hostile player might answer: usually a legal
  // random move, now and then (one in 20) one from a missing heap, of nothing, or of too many.
  static Action sample_action(const View& view, Rng& rng) {
    switch (rng.below(60)) {
      case 0:
        return {static_cast<int>(view.heaps.size()), 1};
      case 1:
        return {0, 0};
      case 2:
        return {static_cast<int>(rng.below(view.heaps.size())), view.max_take + 1};
      default:
        return random_move(view, rng);
    }
  }
};

}  // namespace arbiter::nim
