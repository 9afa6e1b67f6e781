// Speed Scrabble's wire codec (games/speed_scrabble/game.h, words.h's board): config, the
// player's submit, the referee's notices and setup, each with its round trip.
#include "fuzz_support.h"
#include "games/speed_scrabble/game.h"
#include "games/speed_scrabble/words.h"

using namespace arbiter;
using namespace arbiter::speed_scrabble;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = fuzz::json_of(data, size);
  if (!j) return 0;
  const auto rt = [&](auto decode, auto encode, const char* what) {
    fuzz::round_trip(*j, decode, encode, what);
  };
  rt(SpeedScrabble::decode_config, [](const Config& c) { return SpeedScrabble::encode(c); },
     "config");
  rt(SpeedScrabble::decode_message, [](const Message& m) { return SpeedScrabble::encode(m); },
     "message");
  rt(SpeedScrabble::decode_notice, [](const Notice& n) { return SpeedScrabble::encode(n); },
     "notice");
  rt(SpeedScrabble::decode_setup, [](const View& v) { return SpeedScrabble::encode_setup(v); },
     "setup");
  rt(decode_board, encode_board, "board");
  return 0;
}
