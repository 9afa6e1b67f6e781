// The concept a real-time game satisfies (Speed Scrabble, the Dominosa race): players act
// whenever they like. The referee (referee/realtime.h) stamps each message on arrival with the
// injected clock and a global ticket and hands the messages to the game one at a time in that
// order; the game stays pure: time reaches it only as an argument.
#pragma once

#include <concepts>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/foul.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"

namespace arbiter {

// What the game does about one message or one tick: notices to push, in order, and a foul when
// the sender must go (the referee ejects it and calls eject()).
template <class Notice>
struct Reaction {
  std::vector<std::pair<Seat, Notice>> notices;
  std::optional<Foul> foul;
};

// G::Config, G::State, G::Message (player to referee), G::Notice (referee to player), G::View
// (what a seat is told at setup). Times are durations since the start of play.
//  start(c, rng)         the initial state (the deal).
//  seats()               the seats still in the game.
//  view(p)               what p is told at setup.
//  receive(p, m, at)     p's message m arrived at `at`; REQUIRES: p still in, !over().
//  tick(at)              time passed; the game may end (stall, time limit).
//  deadline()            when tick() is due next, at the latest.
//  over()                the game has ended.
//  eject(p)              p is out; the game goes on without it.
//  standings()           REQUIRES: over().
// Codec: encode/decode for Config, Message, Notice and View, the wire form of each being the
// whole message (["submit", [...]], ["new-tiles", [...]]).
template <class G>
concept RealtimeGame = requires(const typename G::State& s, typename G::State& m, Seat p,
                                const typename G::Message& msg, const typename G::Notice& n,
                                const typename G::Config& c, const Json& j, Duration at, Rng& rng) {
  { G::kName } -> std::convertible_to<std::string_view>;
  { G::start(c, rng) } -> std::same_as<typename G::State>;
  { s.seats() } -> std::same_as<Seats>;
  { s.view(p) } -> std::same_as<typename G::View>;
  { m.receive(p, msg, at) } -> std::same_as<Reaction<typename G::Notice>>;
  { m.tick(at) } -> std::same_as<Reaction<typename G::Notice>>;
  { s.deadline() } -> std::same_as<Duration>;
  { s.over() } -> std::same_as<bool>;
  { m.eject(p) } -> std::same_as<void>;
  { s.standings() } -> std::same_as<Standings>;
  { G::encode(msg) } -> std::same_as<Json>;
  { G::encode(n) } -> std::same_as<Json>;
  { G::encode(c) } -> std::same_as<Json>;
  { G::encode_setup(s.view(p)) } -> std::same_as<Json>;
  { G::decode_message(j) } -> std::same_as<Expected<typename G::Message>>;
  { G::decode_notice(j) } -> std::same_as<Expected<typename G::Notice>>;
};

}  // namespace arbiter
