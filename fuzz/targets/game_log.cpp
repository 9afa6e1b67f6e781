// The game-log reader (referee/game_log.h) and the replay it feeds (referee/replay.h, for the
// turn-based games Q and Battleship). Properties: an accepted log has one record per non-blank
// line, each the line parsed alone as one JSON object with a string "type", and dumping the
// records reads back the same; a refused one says why in one line; a replay ends with a report
// or a one-line error, and a replay that says "identical" replayed every call of the log.
#include "fuzz_support.h"
#include "games/battleship/game.h"
#include "games/q/game.h"
#include "referee/game_log.h"
#include "referee/replay.h"

using namespace arbiter;

namespace {

template <class G>
void replay_as(const std::vector<Json>& log) {
  auto report = replay<G>(log);
  if (!report) {
    fuzz::check_error(report.error(), "replay");
    return;
  }
  std::size_t calls = 0;
  for (const Json& line : log) calls += string_or(line, "type") == "call" ? 1 : 0;
  FUZZ_CHECK(report->calls == calls, "the replay counts other calls than the log has");
  if (!report->identical) fuzz::check_error(Error{report->difference}, "replay difference");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  auto log = read_game_log(text);
  if (!log) {
    fuzz::check_error(log.error(), "read_game_log");
    return 0;
  }

  std::size_t k = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == rest.npos ? rest.size() : end + 1);
    if (line.find_first_not_of(" \t\r") == rest.npos) continue;
    auto alone = parse_json(line);
    FUZZ_CHECK(alone.has_value(), "an accepted line is not one JSON value: " + std::string(line));
    FUZZ_CHECK(alone->is_object() && alone->contains("type") && (*alone)["type"].is_string(),
               "an accepted line is not a record with a type: " + std::string(line));
    FUZZ_CHECK(k < log->size() && (*log)[k] == *alone, "the records are not the lines");
    ++k;
  }
  FUZZ_CHECK(k == log->size(), "more records than non-blank lines");

  std::string again;
  for (const Json& line : *log) again += dump(line) + "\n";
  auto reread = read_game_log(again);
  FUZZ_CHECK(reread && *reread == *log, "the dumped records do not read back");

  const std::string game = string_or((*log)[0], "game");
  if (game == "q") replay_as<q::Q>(*log);
  if (game == "battleship") replay_as<battleship::Battleship>(*log);
  return 0;
}
