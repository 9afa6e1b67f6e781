// serve(): the bot's side of the referee protocol (remote/wire.h). Answers the referee's calls
// with `player` until the game is over (after win) or the referee hangs up, so that any house
// bot can run as a separate program over stdio or TCP.
#pragma once

#include <chrono>
#include <string>

#include <fmt/format.h>

#include "core/player.h"
#include "core/channel.h"
#include "remote/wire.h"

namespace arbiter {

enum class ServeEnd { game_over, hung_up, ejected };

// What an ejected bot was told (wire::ejected), for its own log.
struct EjectionNotice {
  std::string verdict;
  std::string call;
  std::string detail;
};

// Exceptions thrown by `player` propagate (a crashing bot crashes). Fails with an Error when the
// referee sends something that is not a call of the protocol. On an ejection notice, returns
// ServeEnd::ejected with the notice in `*notice` (if given).
template <Game G>
Expected<ServeEnd> serve(Channel& channel, Player<G>& player, EjectionNotice* notice = nullptr) {
  const auto forever = [] {
    return Deadline::after(SteadyClock::instance(), std::chrono::hours(24 * 365));
  };
  for (;;) {
    auto message = channel.receive(forever());
    if (!message) {
      if (message.error().why == Why::hang_up) return ServeEnd::hung_up;
      return fail(fmt::format("from the referee: {}", message.error().detail));
    }
    const Json& m = *message;
    if (!m.is_array() || m.size() != 2 || !m[0].is_string() || !m[1].is_array() || m[1].empty())
      return fail("not a call [method, [args...]]: " + excerpt(m));
    const std::string method = m[0].get<std::string>();
    const Json& args = m[1];
    if (method == "refused")
      return fail("the referee refused the sign-up: " +
                  (args[0].is_string() ? args[0].get<std::string>() : excerpt(args[0])));
    if (method == wire::kEjected) {
      if (notice != nullptr)
        *notice = {string_or(args[0], "verdict"), string_or(args[0], "call"),
                   string_or(args[0], "detail")};
      return ServeEnd::ejected;
    }
    Json reply = std::string(wire::kVoid);
    if (method == wire::kSetup || method == wire::kTakeTurn) {
      auto view = method == wire::kSetup ? wire::decode_setup_args<G>(args) : G::decode_view(args[0]);
      if (!view) return fail(fmt::format("{}: {}", method, view.error().message));
      if (method == wire::kTakeTurn) {
        reply = G::encode(player.take_turn(*view));
      } else if constexpr (SetsUp<G>) {
        reply = G::encode(player.setup(*view));
      } else {
        player.setup(*view);
      }
    } else if (method == wire::kNewTiles) {
      if constexpr (HandCodec<G>) {
        auto hand = G::decode_hand(args[0]);
        if (!hand) return fail(fmt::format("new-tiles: {}", hand.error().message));
        player.new_tiles(*hand);
      }
    } else if (method == wire::kWin) {
      if (!args[0].is_boolean())
        return fail("win: expected true or false, got " + excerpt(args[0]));
      player.win(args[0].get<bool>());
    } else {
      return fail(fmt::format("unknown method \"{}\"", method));
    }
    auto sent = channel.send(reply, forever());
    if (!sent) return ServeEnd::hung_up;
    if (method == wire::kWin) return ServeEnd::game_over;
  }
}

}  // namespace arbiter
