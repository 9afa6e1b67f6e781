// Battleship's codec (games/battleship/codec.h): every decoder with its round trip, and the
// setup arguments a bot decodes.
#include "fuzz_support.h"
#include "games/battleship/codec.h"
#include "games/battleship/game.h"

using namespace arbiter;
using namespace arbiter::battleship;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = fuzz::json_of(data, size);
  if (!j) return 0;
  const auto rt = [&](auto decode, auto encode, const char* what) {
    fuzz::round_trip(*j, decode, encode, what);
  };
  rt(decode_config, encode_config, "config");
  rt(decode_cell, encode_cell, "cell");
  rt(decode_ship, encode_ship, "ship");
  rt(decode_fleet, encode_fleet, "fleet");
  rt(decode_shots, encode_shots, "shots");
  rt(decode_shot_result, encode_shot_result, "shot result");
  auto view = fuzz::round_trip(*j, decode_view, encode_view, "view");
  auto setup = Battleship::decode_setup_args(*j);
  if (!setup) {
    fuzz::check_error(setup.error(), "setup args");
  } else {
    const Json args = Battleship::setup_args(*setup, "x");
    auto again = Battleship::decode_setup_args(args);
    FUZZ_CHECK(again && encode_view(*again) == encode_view(*setup),
               "setup args do not survive setup_args: " + dump(args));
  }
  (void)view;
  return 0;
}
