// What a spectator may see of a match while it is played: each game-log line projected so that
// it holds nothing some seat may not know (docs/viewer.md). The in-process live viewer
// (server/live.h) and the live lines a worker writes to the store (tournament/live_feed.h) both
// show exactly this, so a stream from either leaks the same nothing.
#pragma once

#include "arena/registry.h"
#include "core/json.h"

namespace arbiter {

// The line as the game's own projection shows it (GameEntry::spectate); for a game without one
// (or null), every call's args and reply, every message and the match's teams and config are
// withheld. In either case a "detail" keeps only its reason (the text before the first ':'),
// since a detail may quote what a seat sent or holds, and the match line has no "seed" (every
// hidden hand follows from it). Never throws: a projection that fails shows only the line's
// type.
Json spectator_line(const GameEntry* game, const Json& line);

// A detail as a spectator may see it: its reason alone, the text before the first ':' (a Q
// foul's "no-fit: tile red/star at ..." names a tile of the seat's hand).
std::string detail_reason(const std::string& detail);

}  // namespace arbiter
