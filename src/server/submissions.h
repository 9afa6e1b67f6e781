// The submission server's API behind login (docs/competition.md): an author uploads a bot
// archive, follows each version's build and check, reads its build log, retires or brings back
// its own versions. An organizer may do all of it for every bot. Nobody reads another author's
// build log or version details: 403, whatever the route.
//
// An upload is read and stored at once (stage_bot: a refusal is a 400 with the reason, and
// nothing is stored); the build and the check (admit_bot) run after the answer, on builder
// threads of their own, one version at a time each. Versions a previous server left building
// or checking are built again when this one starts.
//
// Thread-safety: any method from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "league/bots.h"
#include "league/check.h"
#include "server/api.h"
#include "server/rate_book.h"
#include "server/sessions.h"

namespace arbiter::server {

class SubmissionApi {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    league::AddOptions add;  // caps, build limits, the cache (author: set per upload)
    // The gate (league/check.h) each version must pass; its report is kept after the build log.
    // None: active once built.
    std::optional<league::CheckOptions> check;
    int builders = 1;
    std::size_t uploads_per_hour = 20;  // per author; organizers too
    // Per address (behind a proxy: the client it names), whoever is logged in: a course's lab
    // behind one NAT shares it.
    std::size_t uploads_per_address = 200;
    std::size_t tests_per_hour = 10;  // test matches an author may ask for (ladder_api.h)
    std::function<Clock::time_point()> now = [] { return Clock::now(); };
  };
  SubmissionApi(tournament::Store& store, Options options);
  ~SubmissionApi();  // waits for the builds under way; queued ones are built by the next start
  SubmissionApi(const SubmissionApi&) = delete;
  SubmissionApi& operator=(const SubmissionApi&) = delete;

  // 202 {"bot", "version", "status"}; 400 with the reason (nothing stored); 429 over a rate
  // (unless `counted`: note_upload counted it already). `address`: where it came from.
  ApiReply upload(const Principal& who, const std::string& address, std::string_view bytes,
                  const std::string& filename, bool counted = false);
  // Counts an upload of `author` from `address` now if both are under the hour's caps; else
  // counts nothing and says which cap it is over. The front door counts a big upload this way
  // when it lets its body in, so that one whose body never comes counts all the same.
  std::optional<std::string> note_upload(const std::string& author, const std::string& address);
  // Counts a test match of `author` now if it is under the hour's cap; else says why not.
  std::optional<std::string> take_test(const std::string& author);
  // Takes back the count of the last take_test (the match was refused).
  void give_back_test(const std::string& author);
  // Why one more upload of `author` from `address` is over a cap now; counts nothing.
  std::optional<std::string> over_cap(const std::string& author, const std::string& address);

  // The principal's bots (an organizer's: every bot), each version with its status and reason.
  ApiReply bots(const Principal& who);
  // One version: its row and build log. 403 for another author's, 404 for none.
  ApiReply version(const Principal& who, const std::string& name, std::int64_t version);
  // Retires an active version, or brings a retired one back. 403, 404, or 409 for a version in
  // another state.
  ApiReply set_active(const Principal& who, const std::string& name, std::int64_t version,
                      bool active);

  // What changed for `who` since `seen` (bot@version -> "status|reason"; updated): one JSON
  // line per version whose status or reason differs, {"bot", "version", "status", "reason"}.
  // The first call (an empty `seen`) only fills it. Errors: the store failed.
  Expected<std::vector<std::string>> changes(const Principal& who,
                                             std::map<std::string, std::string>& seen);

  // Blocks until no build is queued or under way (tests).
  void wait_idle();

 private:
  Expected<std::optional<tournament::BotVersion>> find(const std::string& name, std::int64_t v);
  void build_loop();
  void resume_unfinished();
  // Posts the version's new state to its author's webhook, if any (on a thread of its own).
  void notify(const tournament::BotVersion& v);
  // Keeps the check's report after the version's build log (its "build log" then holds both).
  void keep_report(const tournament::BotVersion& v, const std::string& report);
  void notify_loop();
  std::optional<std::string> over_cap_locked(const std::string& author, const std::string& address,
                                             Clock::time_point now);

  tournament::Store& store_;
  Options options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<league::StagedBot> queue_;
  int building_ = 0;
  bool stopping_ = false;
  RateBook by_author_;   // uploads of the last hour
  RateBook by_address_;  // uploads of the last hour
  RateBook tests_;       // test matches of the last hour, by author
  std::vector<std::thread> builders_;
  std::deque<std::pair<std::string, std::string>> outbox_;  // (author, JSON body), oldest first
  std::thread notifier_;
};

}  // namespace arbiter::server
