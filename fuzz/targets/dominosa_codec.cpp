// Dominosa: the race's wire codec (game.h) on the input as JSON, and the puzzle parsers
// (puzzle.h) on the input as text. A parsed puzzle reads back the same from each of its three
// formats, and checking a solution against it never fails loudly.
#include "fuzz_support.h"
#include "games/dominosa/puzzle.h"
#include "games/dominosa/game.h"

using namespace arbiter;
using namespace arbiter::dominosa;

namespace {

void check_formats(const Puzzle& p) {
  auto from_id = parse_game_id(game_id(p));
  FUZZ_CHECK(from_id && *from_id == p, "game_id does not read back: " + game_id(p));
  auto from_text = parse_text(to_text(p));
  FUZZ_CHECK(from_text && *from_text == p, "to_text does not read back: " + to_text(p));
  auto from_json = parse_json_puzzle(to_json(p));
  FUZZ_CHECK(from_json && *from_json == p, "to_json does not read back: " + dump(to_json(p)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  auto puzzle = parse_puzzle(text);
  if (!puzzle) {
    fuzz::check_error(puzzle.error(), "puzzle");
  } else {
    check_formats(*puzzle);
    // Whatever letters follow the first line are judged as a solution.
    const auto newline = text.find('\n');
    const std::string_view letters = newline == text.npos ? "" : text.substr(newline + 1);
    (void)solution_problem(*puzzle, letters);
  }

  auto j = fuzz::json_of(data, size);
  if (!j) return 0;
  const auto rt = [&](auto decode, auto encode, const char* what) {
    fuzz::round_trip(*j, decode, encode, what);
  };
  rt(DominosaRace::decode_config, [](const RaceConfig& c) { return DominosaRace::encode(c); },
     "config");
  rt(DominosaRace::decode_message, [](const Solution& s) { return DominosaRace::encode(s); },
     "message");
  rt(DominosaRace::decode_notice, [](const Verdict& v) { return DominosaRace::encode(v); },
     "notice");
  auto view = fuzz::round_trip(
      *j, DominosaRace::decode_setup, [](const RaceView& v) { return DominosaRace::encode_setup(v); },
      "setup");
  if (view) check_formats(view->puzzle);
  return 0;
}
