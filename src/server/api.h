// The viewer's read-only JSON API over a result store (docs/viewer.md has every route and
// shape). Pure reading: nothing here writes to the store or calls a player. Every answer is a
// status and a JSON body; an error is {"error": "one line"} with 400 (bad query), 404 (no such
// tournament or match) or 503 (the store failed). (The HTTP layer adds 405 for anything but GET
// and HEAD, 409 for a live match's log before its end, 503 for too many live streams.)
//
// What is read from the store is not taken on trust: damaged rows (integrity.h) are listed
// with their damage and never counted, and a log that fails its checksum is served only with
// its damage said in a header.
//
// Thread-safety: any method from any thread; a tournament's rows are read once per change of
// its progress and shared by all requests (many viewers cost the store one read).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/json.h"
#include "tournament/schedule.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::server {

struct ApiReply {
  int status = 200;
  Json body;
};

ApiReply api_error(int status, std::string message);
ApiReply store_failed(const Error& e);  // 503, "the store failed: ..."

// Fields of a JSON body the console sends: the string at `key` (`fallback` when absent), the
// whole number at `key` within [lo, hi]; an Error naming the key otherwise.
Expected<std::string> text_field(const Json& body, const char* key, std::string fallback);
Expected<std::int64_t> number_field(const Json& body, const char* key, std::int64_t fallback,
                                    std::int64_t lo, std::int64_t hi);
// Whether `name` may name a ladder or a tournament made from the console: 1 to 40 letters,
// digits, '_' and '-'.
bool console_name(const std::string& name);

// Why a finished match's log is not served yet (409): its seed group is not over.
std::string held_message(std::int64_t id, std::int64_t index);

// The filters and page of a match list: every field optional (empty or nullopt: any).
struct MatchQuery {
  std::string outcome;  // "win", "draw", "aborted", "error" or "damaged"
  std::string verdict;  // an ejection reason: some seat was ejected for it (foul, timeout, ...)
  std::string player;   // an entrant's name: it played in the match
  std::optional<bool> ejected;      // some seat was ejected (true) or none was (false)
  std::optional<std::int64_t> round;
  std::int64_t offset = 0;
  std::int64_t limit = 50;  // at most 500
};

// One finished match as the viewer lists it: index, round, seats (and stored versions), outcome,
// winners, scores, ejections; its seed only when not `held` (its seed group is still played),
// and then ejection details cut to their reason.
Json match_row(const tournament::TournamentSpec& spec, const tournament::StoredResult& row,
               bool held);

class StoreApi {
 public:
  explicit StoreApi(tournament::Store& store) : store_(store) {}

  ApiReply tournaments();
  // One tournament: its record, spec (players, schedule, seats, rounds) and progress.
  ApiReply tournament(std::int64_t id);
  // Standings (Elo with CIs, Glicko-2), the crosstable and the Elo of every entrant after each
  // round (the rating chart).
  ApiReply standings(std::int64_t id);
  ApiReply matches(std::int64_t id, const MatchQuery& query);
  // One match's row, its reproduce command and the game.
  ApiReply match(std::int64_t id, std::int64_t index);

  struct Log {
    // The log as stored (tournament/log_codec.h: about a tenth of its JSON lines), to be sent
    // inflated piece by piece (inflate_log), never whole. Plain JSON lines pass through as they are.
    std::string packed;
    std::string damage;  // why it cannot be believed; empty when it can
  };
  // A match's stored game log, checked in pieces (integrity.h: packed_log_damage); an error
  // reply when there is none.
  std::variant<Log, ApiReply> log(std::int64_t id, std::int64_t index);

  // The matches of a tournament being played now, by whichever process plays them (their live
  // lines in the store: tournament/live_feed.h), by index: {"matches": [{"tournament", "index",
  // "round", "seats", "lines", "stream"}]}.
  ApiReply live(std::int64_t id);
  struct Live {
    std::int64_t job = 0;  // the store's job, whose live lines the stream reads
    Json summary;          // a row of live() with "tournament_name" and "game"
  };
  // One match being played now; a 404 reply when it is not (not started, or its live lines not
  // written yet, or finished: then match() has it).
  std::variant<Live, ApiReply> live_match(std::int64_t id, std::int64_t index);

 private:
  struct Snapshot {
    tournament::TournamentRecord record;
    tournament::TournamentSpec spec;
    tournament::Progress progress;
    std::chrono::steady_clock::time_point checked;  // when it was last found current
    std::vector<tournament::StoredResult> results;  // by index
    // Which matches' seeds and logs may be shown (schedule.h): their seed groups are over.
    std::optional<tournament::SeedGroups> groups;
    bool over = false;  // the whole tournament: its master seed and program key may be shown
    std::once_flag standings_once;
    Json standings;  // computed on the first request for it
    std::once_flag rows_once;
    std::vector<Json> rows;  // match_row of every result, built on the first match list
  };
  // The tournament's rows as of at most kFresh ago: read again only when its progress changed,
  // and the progress itself looked at no more often than that, so that many viewers of a running
  // tournament cost its store one look a second and the standings one computation.
  static constexpr std::chrono::milliseconds kFresh{1000};
  std::variant<std::shared_ptr<Snapshot>, ApiReply> snapshot(
      std::int64_t id, std::chrono::milliseconds max_age = kFresh);
  Json match_row(const Snapshot& s, const tournament::StoredResult& row) const;
  Json live_row(const Snapshot& s, const tournament::LiveJob& job) const;
  std::variant<std::vector<tournament::LiveJob>, ApiReply> live_jobs(std::int64_t id);
  // A finished match of a tournament: its row, kept alive by its snapshot.
  struct Found {
    std::shared_ptr<Snapshot> snapshot;
    const tournament::StoredResult* row = nullptr;
  };
  std::variant<Found, ApiReply> find_match(std::int64_t id, std::int64_t index);

  tournament::Store& store_;
  std::mutex mu_;
  std::map<std::int64_t, std::shared_ptr<Snapshot>> cache_;
};

}  // namespace arbiter::server
