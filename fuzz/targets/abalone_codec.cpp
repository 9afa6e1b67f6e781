// Concurrent Abalone's codec for external teams (world.h's config, match.h's commitments):
// both with their round trip.
#include "fuzz_support.h"
#include "games/abalone/game.h"
#include "games/abalone/world.h"

using namespace arbiter;
using namespace arbiter::abalone;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = fuzz::json_of(data, size);
  if (!j) return 0;
  fuzz::round_trip(*j, decode_config, encode_config, "config");
  fuzz::round_trip(*j, decode_commitments, encode_commitments, "commitments");
  return 0;
}
