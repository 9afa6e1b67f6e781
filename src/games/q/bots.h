// In-process Q players: the house player (a strategy) and the course's scripted bad actors
// (docs/games/q.md §4.2) that raise, never return, or cheat, plus the JActorSpec codec that names
// them. The bad actors behave exactly like the course's so that the harness outputs match.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/player.h"
#include "games/q/game.h"
#include "games/q/strategy.h"

namespace arbiter::q {

enum class Method { setup, take_turn, new_tiles, win };
enum class Cheat { non_adjacent_coordinate, tile_not_owned, not_a_line, bad_ask_for_tiles, no_fit };

std::string_view to_string(Method m);  // wire names: "setup" "take-turn" "new-tiles" "win"
std::string_view to_string(Cheat c);   // "non-adjacent-coordinate" ...

struct ActorSpec {
  std::string name;
  Strategy strategy = Strategy::dag;
  std::optional<Method> fails_on;  // with hang_after == 0: raises on the first call to it
  int hang_after = 0;              // k >= 1: never returns from the k-th call to fails_on
  std::optional<Cheat> cheat;      // cheats on every take-turn where the cheat is possible
  friend bool operator==(const ActorSpec&, const ActorSpec&) = default;
};

// Which JActorSpec forms a harness accepts: M7 [n, s] | [n, s, JExn]; M8 adds
// [n, s, "a cheat", JCheat]; M9 and later add [n, s, JExn, Count] with Count 1..7.
enum class Dialect { m7, m8, m9 };

// With `lax_names` any JSON string is a name (the M10 client harness sends bad names on purpose
// for the server to reject).
Expected<ActorSpec> decode_actor_spec(const Json& j, Dialect dialect, bool lax_names = false);
// A JActors list: 1 or more specs with distinct names.
Expected<std::vector<ActorSpec>> decode_actors(const Json& j, Dialect dialect,
                                               bool lax_names = false);
Json encode_actor_spec(const ActorSpec& spec);

// A player that behaves as `spec` says. Scripted "never returns" blocks until the referee
// abandons the call (core/interrupt.h) instead of spinning.
std::shared_ptr<Player<Q>> make_actor(const ActorSpec& spec);

// A house bot as organizers name it, STRATEGY[+cheat=JCheat | +raise=JExn | +hang=JExn/K] (e.g.
// "ldasg", "dag+cheat=no-fit", "dag+hang=take-turn/3"), as the ActorSpec of a seat called `name`;
// a one-line Error naming the bot text when it is not one.
Expected<ActorSpec> parse_bot(const std::string& name, std::string_view text);

}  // namespace arbiter::q
