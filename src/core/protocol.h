// The referee protocol on the wire, for every game: each call is one JSON array
// [method, [args...]] sent by the referee; the player answers with one JSON value.
//   ["setup", [view...]]      -> "void"      (Q: [JPub, [JTile...]])
//   ["take-turn", [view]]     -> the game's action
//   ["new-tiles", [hand]]     -> "void"      (games with hands)
//   ["win", [true|false]]     -> "void"
//   ["ejected", [{"verdict", "call", "detail"}]]   (no answer; see ejected() below)
// A game may shape its arguments (Q puts the player's name in its JPub, and its hand beside the
// setup view) by defining G::wire_view(view, name) and G::setup_args(view, name) (and, for the
// bot side, G::decode_setup_args(args)). Games with a setup choice (SetsUp) answer setup with it.
// The transports' own part (a program's verdicts from its caps, its last words) is remote/wire.h.
#pragma once

#include <string>
#include <string_view>

#include "core/channel.h"
#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/player.h"
#include "core/rules.h"
#include "core/time_control.h"

namespace arbiter::wire {

inline constexpr std::string_view kSetup = "setup";
inline constexpr std::string_view kTakeTurn = "take-turn";
inline constexpr std::string_view kNewTiles = "new-tiles";
inline constexpr std::string_view kWin = "win";
inline constexpr std::string_view kVoid = "void";
inline constexpr std::string_view kEjected = "ejected";

// How long a program has to read its last message (an ejection notice, a real-time game's
// win) and exit on its own before it is killed.
inline constexpr Duration kLastMessageGrace = std::chrono::milliseconds(100);

template <Game G>
Json view_arg(const typename G::View& view, std::string_view name) {
  if constexpr (WiresView<G>)
    return G::wire_view(view, name);
  else
    return G::encode(view);
}

// take-turn's arguments: [view], and in a clocked match [view, {"remaining_ms", "increment_ms"}]
// (what is left of the seat's time bank as the call starts, and what each call adds).
template <Game G>
Json take_turn_args(const typename G::View& view, std::string_view name) {
  Json args = Json::array({view_arg<G>(view, name)});
  if (const CallClock* clock = call_clock()) {
    const auto ms = [](Duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    args.push_back({{"remaining_ms", ms(clock->remaining)}, {"increment_ms", ms(clock->increment)}});
  }
  return args;
}

template <Game G>
Json setup_args(const typename G::View& view, std::string_view name) {
  if constexpr (ShapesSetupArgs<G>)
    return G::setup_args(view, name);
  else
    return Json::array({view_arg<G>(view, name)});
}

// The bot side of setup_args: the view a player gets from setup's arguments.
template <Game G>
Expected<typename G::View> decode_setup_args(const Json& args) {
  if constexpr (DecodesSetupArgs<G>)
    return G::decode_setup_args(args);
  else
    return G::decode_view(args.at(0));
}

inline Json call(std::string_view method, Json args) {
  return Json::array({std::string(method), std::move(args)});
}

// The last message an ejected player gets, in the words of the game log: ["ejected",
// [{"verdict": "timeout", "call": "take_turn", "detail": "..."}]]. Not answered.
inline Json ejected(const Ejection& e) {
  return call(kEjected, Json::array({Json{{"verdict", std::string(to_string(e.why))},
                                          {"call", e.call},
                                          {"detail", e.detail}}}));
}

// Sends the notice without waiting for the peer to take it (best effort: a peer that does not
// read loses it), then closes the channel.
inline void tell_ejected(Channel& channel, const Ejection& e) {
  channel.send(ejected(e), Deadline::after(SteadyClock::instance(), Duration::zero()));
  channel.close();
}

}  // namespace arbiter::wire
