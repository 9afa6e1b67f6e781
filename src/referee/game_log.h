// GameLog: the replayable record of a match, one JSON object per line (JSON Lines):
//   {"type":"match", "game", "seed", "config", "seats":[names], "per_call_ms", "format":1,
//    "clock"?: "60s+1s", "hosting"?: {"programs": {name: terms}}}
//   {"type":"call", "seat", "call", "args", "reply"?, "verdict", "detail"?, "elapsed_us",
//    "clock_us"? (a clocked match: the seat's bank when the call started)}
//   {"type":"result", "winners":[seats], "ejections":[{seat, why, call, detail}], "scores"}
// "verdict" is "ok" or an Ejection reason (exception, timeout, malformed, foul, hang-up,
// memory-limit, process-limit, output-limit, cpu-limit, time-bank-exhausted).
// Timing lives only in "elapsed_us" and "clock_us" (and how it was hosted in "hosting"), so two runs of one
// seed differ in nothing else.
// The format is documented in docs/protocol.md.
// GameLog is also the match's observer hook: every referee style records through it, and each
// line goes to the attached MatchObservers too (referee/observer.h).
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/json.h"
#include "referee/observer.h"

namespace arbiter {

inline constexpr int kGameLogFormat = 1;

class GameLog {
 public:
  // Records nowhere: a hub for observers only.
  GameLog() = default;
  // Writes each line to `out` (if any) as it happens and flushes it; keeps a copy in memory
  // when `keep` (replay compares those).
  explicit GameLog(std::ostream* out, bool keep = false) : out_(out), keep_(keep) {}
  // Writes each line to `file` as it happens; a failed write is kept in the file (its owner
  // checks it after the match) and the match goes on.
  explicit GameLog(OutputFile* file) : file_(file) {}

  // Records the line: to the stream or file, the kept copy, then every observer.
  void write(const Json& line);
  // The same for a line given as its text, exactly as dump() writes it (a CallRecord's): parsed
  // only when the kept copy or an observer wants the Json. REQUIRES: not a "match" line.
  void write_text(std::string text);
  // An empty string with the capacity of the last line given to write_text(), for building the
  // next one: a match writes a line per call, and most are alike in size.
  std::string line_buffer() {
    std::string buffer = std::move(spare_);
    buffer.clear();
    return buffer;
  }

  // Adds an observer of every line and frame from now on. REQUIRES: called before the match
  // starts; `observer` outlives the match. Not thread-safe against write().
  void watch(MatchObserver& observer);
  // Removes an observer added by watch().
  void unwatch(MatchObserver& observer);
  // A frame for the observers that want frames (nothing is recorded).
  void show(const Json& frame);
  // Whether any observer wants frames: a game builds them only then.
  bool shows_frames() const { return frames_wanted_; }

  // How the match is hosted, for people reading the log: added as "hosting" to the "match" line
  // when it is written (set it before the match starts). Like timing, it is not part of what a
  // replay compares.
  void set_hosting(Json hosting) { hosting_ = std::move(hosting); }
  const std::vector<Json>& lines() const { return lines_; }

 private:
  // Sends one line on: `text` to the stream, the file and the observers that take text; `line`
  // (given when wants_lines()) to the kept copy and the others.
  void emit(const std::string& text, const Json* line);
  bool wants_text() const;
  bool wants_lines() const;

  std::ostream* out_ = nullptr;
  OutputFile* file_ = nullptr;
  bool keep_ = false;
  std::vector<Json> lines_;
  Json hosting_;
  std::vector<MatchObserver*> observers_;
  bool frames_wanted_ = false;
  std::string spare_;  // line_buffer()
};

// Reads a game log: every non-empty line must be one JSON object with a "type".
Expected<std::vector<Json>> read_game_log(std::string_view text);
Expected<std::vector<Json>> read_game_log(std::istream& in);

// The line without its timing fields.
Json without_timing(const Json& line);
// Whether two lines are equal but for their timing (without_timing(a) == without_timing(b)),
// without copying either.
bool same_without_timing(const Json& a, const Json& b);

// The first line where two logs differ apart from timing, described in one line; nothing if
// they are the same.
std::optional<std::string> first_difference(const std::vector<Json>& expected,
                                            const std::vector<Json>& actual);

}  // namespace arbiter
