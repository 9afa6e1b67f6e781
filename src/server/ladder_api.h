// The viewer's read-only JSON API over a store's ladders (league/ladder.h; docs/viewer.md has
// every route and shape): the list, a ladder's leaderboard, one entrant's page (its bot's
// versions with their build state, its rating after each match, its recent matches, its
// ejections by reason, and, when the server was told so, the tail of its own stderr per match)
// and two entrants head to head.
//
// What a spectator may not know yet stays hidden: a match's seed, log and stderr only once its
// seed group (every rotation dealt from its seed) is over; the ladder's master seed never while
// it runs. Reads cost what the page shows (an entrant's last matches, found through its rating
// history), not the ladder's length.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/api.h"
#include "tournament/store.h"

namespace arbiter::server {

class LadderApi {
 public:
  // `show_stderr`: entrant pages carry the tail of the entrant's own stderr of each finished
  // match (ServerOptions::show_stderr).
  LadderApi(tournament::Store& store, bool show_stderr)
      : store_(store), show_stderr_(show_stderr) {}

  // {"ladders": [{"id", "name", "game", "state", "entrants", "rated"}]}
  ApiReply ladders();
  // The leaderboard (league::leaderboard_json) with "id" and "seats".
  ApiReply ladder(std::int64_t id);
  // One entrant: {"ladder", "entrant": {index, name, bot, status, mu, sigma, conservative,
  // games}, "versions": [...], "history": [{match, mu, sigma, games, place}], "recent": [match
  // rows, newest first], "ejections": {reason: count}, "ejections_over": matches counted,
  // "stderr": [{match, bytes, tail}] or absent}.
  // The stderr tails are also there for `reader`, the logged-in author of the entrant's stored
  // bot, and for an organizer (submissions.h), whatever `show_stderr`.
  ApiReply entrant(std::int64_t id, std::int64_t entrant, const std::string& reader = {},
                   bool organizer = false);
  // Two entrants' meetings: {"a", "b", "meetings", "a_points", "b_points", "wins", "draws",
  // "losses" (a's), "matches": [match rows, newest first]}.
  // The organizer's pause (from running) and resume (from paused): 409 from any other state,
  // 404 for no ladder. The one write of this class (submissions.h checks who asks).
  ApiReply set_state(std::int64_t id, const std::string& from, const std::string& to);

  ApiReply head_to_head(std::int64_t id, std::int64_t a, std::int64_t b);

  // An unrated test match (league::add_test_match) of the entrants named in `seats`, asked for
  // by `who`: one seat at least must be an entrant of `who`'s own bots (an organizer: any).
  // 202 {"ladder", "index", "match" (the match page)}; 400 with the reason, 403, 404.
  ApiReply request_test(std::int64_t id, const std::vector<std::string>& seats,
                        const std::string& who, bool organizer);
  // The test matches `who` asked for (an organizer: everyone's) among the last kTestSpan jobs
  // of each ladder, newest first: {"tests": [{"ladder", "ladder_name", "index", "by", "seats",
  // "state": "queued"|"playing"|"over", "result" (once over)}]}.
  ApiReply tests(const std::string& who, bool organizer);
  static constexpr std::int64_t kTestSpan = 5000;

  // The organizer's new ladder from a JSON body {"name", "game", "seats": "2" or "2-4",
  // "anchors": [{"name", "bot"}] (house bots of the game only: no program runs from a web
  // form)}. 201 {"id", "name"}; 400 with the reason (nothing stored).
  ApiReply create(const Json& body);
  // The organizer's finals (league::draw_finals: the ladder is frozen) from {"top", "rounds"}:
  // 201 {"tournament", "matches", "entrants"}; 400, 404.
  ApiReply finals(std::int64_t id, const Json& body);

  static constexpr std::size_t kRecent = 20;          // matches listed on an entrant's page
  static constexpr std::size_t kEjectionSpan = 200;   // its matches the ejections count over
  static constexpr std::size_t kHistoryPoints = 400;  // rating points sent for the chart
  static constexpr std::size_t kMeetings = 500;       // meetings a head-to-head reads

 private:
  tournament::Store& store_;
  bool show_stderr_;
};

}  // namespace arbiter::server
