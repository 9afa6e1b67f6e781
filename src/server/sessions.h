// Who is asking (the submission server, docs/competition.md): an author's token, given once to
// log a browser in (a session cookie) or with every API call (Authorization: Bearer TOKEN).
//
// A session is a random id (32 bytes from the kernel) the browser holds in an HttpOnly,
// SameSite=Strict cookie, with a CSRF token of its own that every state-changing request made
// with the cookie must echo in the X-CSRF-Token header (a bearer call carries no cookie and
// needs none). Sessions live in this process only (a restart logs everyone out), expire after
// `lifetime`, and end when their author is revoked: the author is looked up in the store on
// every request.
//
// Thread-safety: every method from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "server/rate_book.h"
#include "tournament/store.h"

namespace arbiter::server {

// Someone logged in, and how.
struct Principal {
  std::string name;
  std::string role;  // "author" or "organizer"
  bool by_cookie = false;
  std::string csrf;  // the session's CSRF token (by cookie only)
  bool organizer() const { return role == "organizer"; }
};

class SessionBook {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    std::chrono::seconds lifetime{12 * 3600};
    std::size_t max_sessions = 10'000;  // the oldest goes first beyond this
    std::size_t max_per_author = 16;    // an author's own oldest goes first beyond this, so
                                        // that no one can push the others' sessions out
    // Refused tokens from one address (login or bearer) before it is throttled; a token has
    // 256 secret bits, so this only keeps a guesser from costing the store a lookup each.
    std::size_t max_refused = 30;
    std::chrono::seconds refused_window{600};
    std::function<Clock::time_point()> now = [] { return Clock::now(); };
  };
  SessionBook(tournament::Store& store, Options options);

  // Logs `token` in: a new session's id and CSRF token, or nothing for a refused token. An
  // Error only when the store failed.
  struct Opened {
    std::string id;
    Principal who;
  };
  // A refused token counts against `address` (the caller's).
  Expected<std::optional<Opened>> open(std::string_view token, const std::string& address);
  // The principal of a live session whose author still stands; nothing otherwise.
  Expected<std::optional<Principal>> find(std::string_view id);
  // The principal of a bearer token; nothing for a refused one, which counts against `address`.
  Expected<std::optional<Principal>> bearer(std::string_view token, const std::string& address);
  // Whether `address` had too many tokens refused lately: its tokens are not even looked at.
  bool throttled(const std::string& address);
  // What a throttled caller is told.
  std::string throttled_message() const;
  void close(std::string_view id);

 private:
  struct Session {
    std::string author;
    std::string csrf;
    Clock::time_point expires;
    std::uint64_t order = 0;
  };
  // The author as stored now, if it stands (not revoked).
  Expected<std::optional<tournament::Author>> standing(const std::string& name);

  tournament::Store& store_;
  Options options_;
  std::mutex mu_;
  std::map<std::string, Session> sessions_;  // by the SHA-256 of the id
  std::uint64_t opened_ = 0;
  RateBook refused_;  // by address
};

// The value of cookie `name` in a Cookie header; empty when absent.
std::string cookie_value(std::string_view header, std::string_view name);

}  // namespace arbiter::server
