// The concept a game satisfies. A game is deterministic and pure: no I/O, no clock, no threads;
// its only randomness comes from the Rng handed to start(). The referee (referee/) drives any
// game through this interface, and the registry (arena/registry.h) erases the template once.
#pragma once

#include <concepts>
#include <optional>
#include <string_view>
#include <variant>

#include "core/foul.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/seat.h"
#include "core/standings.h"

namespace arbiter {

// G names a game: G::Config, G::State, G::Action, G::View are its types.
//  start(c, rng)   the initial state (deal, shuffle); c may also pin the whole initial state.
//  to_move()       the seats whose action the game waits for: empty when the game is over, one
//                  for turn-based games, several for simultaneous moves.
//  turn_order()    the seats still in the game, in the order the referee addresses them (setup).
//  view(p)         all that seat p may know and nothing more; two states that differ only in what
//                  p cannot see give equal views (checked by the conformance suite).
//  check(p, a)     why a is illegal for p now, or nothing.
//  apply(p, a)     REQUIRES: p in to_move() and !check(p, a).
//  eject(p)        p is out (misbehaved at any point, also during setup or after the game ended):
//                  the game disposes of p's assets as its rules say; p leaves to_move/turn_order.
//  standings()     REQUIRES: to_move().empty(). Winners and losers among the seats still in.
template <class G>
concept Rules = requires(const typename G::State& s, typename G::State& m, Seat p,
                         const typename G::Action& a, const typename G::Config& c, Rng& rng) {
  { G::kName } -> std::convertible_to<std::string_view>;
  { G::start(c, rng) } -> std::same_as<typename G::State>;
  { s.to_move() } -> std::same_as<Seats>;
  { s.turn_order() } -> std::same_as<Seats>;
  { s.view(p) } -> std::same_as<typename G::View>;
  { s.check(p, a) } -> std::same_as<std::optional<Foul>>;
  { m.apply(p, a) } -> std::same_as<void>;
  { m.eject(p) } -> std::same_as<void>;
  { s.standings() } -> std::same_as<Standings>;
};

// Games whose players hold a private hand that the referee tops up after an action.
//  dealt(p)        the tiles dealt to p by the last apply that p has not been told about yet.
//  acknowledge(p)  p was told (new_tiles returned): the dealt tiles join p's hand.
// If p is ejected instead, eject(p) decides what becomes of the dealt tiles.
template <class G>
concept DealsHands = Rules<G> &&
    requires(const typename G::State& s, typename G::State& m, Seat p) {
  typename G::Hand;
  { s.dealt(p) } -> std::same_as<std::optional<typename G::Hand>>;
  { m.acknowledge(p) } -> std::same_as<void>;
};

// The wire and log format of a game: every type the referee sends or receives has an encoder and
// a decoder that rejects malformed input with a one-line Error. decode(encode(x)) == x.
template <class G>
concept Codec = requires(const typename G::Action& a, const typename G::View& v,
                         const typename G::Config& c, const Json& j) {
  { G::encode(a) } -> std::same_as<Json>;
  { G::encode(v) } -> std::same_as<Json>;
  { G::encode(c) } -> std::same_as<Json>;
  { G::decode_action(j) } -> std::same_as<Expected<typename G::Action>>;
  { G::decode_view(j) } -> std::same_as<Expected<typename G::View>>;
  { G::decode_config(j) } -> std::same_as<Expected<typename G::Config>>;
};

template <class G>
concept HandCodec = DealsHands<G> && requires(const typename G::Hand& h, const Json& j) {
  { G::encode(h) } -> std::same_as<Json>;
  { G::decode_hand(j) } -> std::same_as<Expected<typename G::Hand>>;
};

// A full game: rules plus codec. The referee, logs and registry work with Game types.
template <class G>
concept Game = Rules<G> && Codec<G>;

// Games whose players answer setup with a choice the rules judge (Battleship: where the fleet
// stands). G::Setup is the answer; check_setup/apply_setup judge and record it like an action.
template <class G>
concept SetsUp = Rules<G> && requires(const typename G::State& s, typename G::State& m, Seat p,
                                      const typename G::Setup& a, const Json& j) {
  { s.check_setup(p, a) } -> std::same_as<std::optional<Foul>>;
  { m.apply_setup(p, a) } -> std::same_as<void>;
  { G::encode(a) } -> std::same_as<Json>;
  { G::decode_setup(j) } -> std::same_as<Expected<typename G::Setup>>;
};

// G::Setup for games whose setup has an answer, void otherwise.
template <class G>
struct SetupOf {
  using type = void;
};
template <class G>
  requires requires { typename G::Setup; }
struct SetupOf<G> {
  using type = typename G::Setup;
};
template <class G>
using SetupOf_t = typename SetupOf<G>::type;

// G::Hand for games with hands, std::monostate otherwise.
template <class G>
struct HandOf {
  using type = std::monostate;
};
template <class G>
requires requires {
  typename G::Hand;
}
struct HandOf<G> {
  using type = typename G::Hand;
};
template <class G>
using HandOf_t = typename HandOf<G>::type;

// The optional hooks: what a game may add to the concepts above. Where a game lacks one, a
// default serves; each is asked for in exactly one place (named in brackets).

// G::config_for(given, seats): a match's config when the seat count goes into it (Q's
// "players"). Default: G::decode_config(given). [arena/turn_based_entry.h]
template <class G>
concept ConfiguresSeats = requires(const Json& given, std::size_t seats) {
  { G::config_for(given, seats) } -> std::same_as<Expected<typename G::Config>>;
};
// G::check_seats(config, seats): whether a decoded config goes with that many seats.
// Default: any count from kMinSeats to kMaxSeats. [arena/turn_based_entry.h]
template <class G>
concept ChecksSeats = requires(const typename G::Config& c, std::size_t seats) {
  { G::check_seats(c, seats) } -> std::same_as<Expected<void>>;
};
// G::write_json(out, value): appends the JSON text of what G::encode(value) gives, without
// building a Json (the game log's speed). Default: dump(G::encode(value)). [referee/turn_based.h]
template <class G, class T>
concept WritesJson = requires(std::string& out, const T& value) {
  G::write_json(out, value);
};
// G::LogWriter: one match's log writer, which may keep state from call to call (reuse what did
// not change). Default: write_json for every value. [referee/turn_based.h]
template <class G>
concept HasLogWriter = requires {
  typename G::LogWriter;
};
// G::wire_view(view, name): the view as sent to the seat called `name` (Q names the seat in
// it). Default: G::encode(view). [core/protocol.h]
template <class G>
concept WiresView = requires(const typename G::View& v, std::string_view name) {
  { G::wire_view(v, name) } -> std::convertible_to<Json>;
};
// G::setup_args(view, name): setup's arguments (Battleship sends the config alone). Default:
// [the view as sent]. [core/protocol.h]
template <class G>
concept ShapesSetupArgs = requires(const typename G::View& v, std::string_view name) {
  { G::setup_args(v, name) } -> std::convertible_to<Json>;
};
// G::decode_setup_args(args): the bot side of setup_args, the view it means. Default:
// G::decode_view(args[0]). [core/protocol.h]
template <class G>
concept DecodesSetupArgs = requires(const Json& args) {
  { G::decode_setup_args(args) } -> std::same_as<Expected<typename G::View>>;
};

}  // namespace arbiter
