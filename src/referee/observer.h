// MatchObserver: the hook through which anything watches a match as it is played, in every
// referee style (turn-based, real-time, lockstep): the game-log writer's lines, the Abalone GUI
// stream and the live viewer all read the same events. Observers are attached to the match's
// GameLog (referee/game_log.h), which every style records through.
#pragma once

#include <string_view>

#include "core/json.h"

namespace arbiter {

class MatchObserver {
 public:
  virtual ~MatchObserver() = default;
  // Every game-log line the moment it is recorded, in order: the "match" header first, the
  // "result" line last (docs/protocol.md, Game logs).
  virtual void on_line(const Json& line) = 0;
  // An observer that only keeps lines for later (the live feed) may take each as the JSON text
  // the log writes instead: when wants_text(), on_text() is called in place of on_line(), with
  // text the log makes anyway (a deep copy of a large line would cost the match more).
  virtual bool wants_text() const { return false; }
  virtual void on_text(std::string_view line) { (void)line; }
  // What a viewer draws, for games that show frames (Abalone: the GUI commands that bring a
  // viewer from the last frame to this cycle); frames are not part of the log and not replayed.
  // Sent only when some observer wants_frames().
  virtual void on_frame(const Json& frame) { (void)frame; }
  virtual bool wants_frames() const { return false; }
};
// Called on the thread that records the match, one event at a time; an observer must not throw
// and must not block for long (a slow watcher slows the match: it should drop what it cannot
// deliver, as the GUI stream does).

}  // namespace arbiter
