// Nim on the wire and in logs (README.md, "On the wire"):
//   Action  {"heap": 0, "take": 2}
//   View    {"heaps": [3, 4, 5], "max_take": 3, "you": 0}
//   Config  {"heaps": [3, 4, 5], "max_take": 3}   (both keys optional when decoding)
// Decoders reject anything else with a one-line Error.
#pragma once

#include "core/json.h"
#include "state.h"

namespace arbiter::nim {

Json encode_action(const Action& a);
Json encode_view(const View& v);
Json encode_config(const Config& c);
Expected<Action> decode_action(const Json& j);
Expected<View> decode_view(const Json& j);
Expected<Config> decode_config(const Json& j);

}  // namespace arbiter::nim
