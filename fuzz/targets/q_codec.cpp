// Q's wire and log codec (games/q/codec.h, Q::decode_config): every decoder on the input as JSON,
// with the round trip, the tile/coordinate/placement parts included.
#include "fuzz_support.h"
#include "games/q/codec.h"
#include "games/q/game.h"

using namespace arbiter;
using namespace arbiter::q;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = fuzz::json_of(data, size);
  if (!j) return 0;
  const auto rt = [&](auto decode, auto encode, const char* what) {
    fuzz::round_trip(*j, decode, encode, what);
  };
  rt(decode_tile, encode_tile, "tile");
  rt(decode_tiles, encode_tiles, "tiles");
  rt(decode_coord, encode_coord, "coord");
  rt(decode_map, encode_map, "map");
  rt(decode_placement, encode_placement, "placement");
  rt(decode_placements, encode_placements, "placements");
  rt(decode_action, encode_action, "action");
  rt(decode_view, encode_view, "view");
  rt(decode_table, encode_table, "table");
  rt(Q::decode_config, [](const Q::Config& c) { return Q::encode(c); }, "config");
  // A wire message's argument list holds these one level down.
  if (j->is_array())
    for (const Json& part : *j) {
      fuzz::round_trip(part, decode_action, encode_action, "action in a list");
      fuzz::round_trip(part, decode_view, encode_view, "view in a list");
    }
  return 0;
}
