// RequestDesk: the viewer's front door. One thread accepts connections and reads every request's
// head (and body, up to a cap) from all of them at once, in one poll() loop; only complete
// requests go to the request threads. So a client that trickles its request a byte at a time (a
// slowloris), however many connections it opens, holds no request thread and delays nobody.
//  - Each connection has `head_wait` from being accepted to send its whole head; a body must
//    then follow within `head_wait` plus its size at `min_body_rate`.
//  - At most `max_pending` connections wait at once, at most `max_pending_per_host` from one
//    address; a newcomer beyond that takes the place of the one silent the longest, of its
//    address if it has its share, else of all (remote/tcp.h: pending_to_drop).
//  - A complete request waits for a request thread in a queue of at most `max_queued`; beyond
//    that it is answered 503 at once. At most `max_active_per_host` requests of one address are
//    queued or served at once (a client that reads its answers slowly holds a thread each);
//    one more is answered 503 at once.
//  - stop() shuts every connection a request thread serves, so that none waits on its client.
// A connection carries one request (the answer says Connection: close). Heads over `max_head`,
// bodies over `max_body` and chunked bodies are answered 431, 413 and 411 by the desk itself.
//
// Thread-safety: run() on one thread; stop() from any.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "remote/tcp.h"
#include "server/link.h"

namespace arbiter::server {

class RequestDesk {
 public:
  // What big_body says of a head: whom it vouches for, or the status and words of a refusal.
  struct Verdict {
    std::optional<std::string> who;
    int status = 413;
    std::string message;
  };
  struct Rules {
    std::chrono::milliseconds head_wait{5000};
    std::size_t min_body_rate = 64 << 10;  // bytes a second
    std::size_t max_head = 16 << 10;
    std::size_t max_body = 64 << 10;
    std::size_t max_pending = 512;
    std::size_t max_pending_per_host = 64;
    std::size_t max_queued = 256;
    std::size_t max_active_per_host = 0;  // 0: three quarters of the request threads, at least 4
    // A request whose head `big_body` vouches for (the submission server: an upload by someone
    // logged in, told from its head alone; it names them) may carry a body of up to
    // `max_upload` bytes. A head it refuses is answered 413 before a byte of the body is read.
    // `big_body` runs on a thread of its own (it may wait on a store), never on the desk's, and
    // has `gate_wait` to answer. At most `max_uploads` big bodies are read at once, one per
    // name; a vouched connection is never dropped to make room for another.
    std::size_t max_upload = 0;
    // `host`: the sender's address (behind a proxy: the client's, as the proxy says).
    std::function<Verdict(std::string_view head, const std::string& host)> big_body;
    // Told each time a big body is let in (after big_body, once there is room for it): the
    // submission server counts the upload then, so that a refusal for room costs nothing.
    std::function<void(const std::string& who, const std::string& host)> let_in;
    std::size_t max_uploads = 4;  // big bodies being read (heads still at the gate do not count)
    std::size_t max_gating = 64;  // heads waiting for big_body at once; beyond: 503
    std::chrono::milliseconds gate_wait{30'000};
    // Every connection speaks TLS with this certificate (its handshake is part of its head's
    // time). Null: plain HTTP.
    std::shared_ptr<TlsContext> tls;
    // Behind a reverse proxy: only connections from this address are taken (any other is
    // closed at once); the per-address caps do not count the proxy as one client, and a
    // request's address is the last one its X-Forwarded-For names. Empty: clients connect
    // themselves.
    std::string proxy;
  };
  // A complete request: its bytes as they came (head and body; an Expect: 100-continue already
  // answered), and its connection (non-blocking), which the desk closes once the handler
  // returns.
  struct Request {
    Link link;
    std::string bytes;
    std::string host;  // the peer's address (behind a proxy: the client's, as the proxy says)
    int port = 0;
  };
  using Handler = std::function<void(Request)>;

  // `threads` request threads each call `handler` with one request at a time.
  RequestDesk(std::unique_ptr<TcpListener> listener, Rules rules, std::size_t threads,
              Handler handler);
  ~RequestDesk();
  RequestDesk(const RequestDesk&) = delete;
  RequestDesk& operator=(const RequestDesk&) = delete;

  std::uint16_t port() const { return listener_->port(); }

  // Accepts and reads until stop(); then closes what waits and joins the request threads once
  // their requests end.
  void run();
  void stop();

 private:
  struct Pending {
    Link link;
    std::string host;
    int port;
    std::string bytes;
    std::chrono::steady_clock::time_point heard;  // accepted, or last sent bytes
    std::chrono::steady_clock::time_point until;  // its wait ends
    std::size_t body_at = 0;                      // where the body starts, once the head is in
    std::size_t length = 0;                       // the body's length, once the head is in
    std::size_t head_end = 0;  // while big_body decides: where its body will start
    bool gating = false;       // big_body is deciding; nothing is read meanwhile
    std::string vouched_for;   // whom big_body vouched for (a big body is being read)
    std::chrono::steady_clock::time_point vouched_at;  // when: its body's pace counts from then
    std::uint64_t serial = 0;  // unique in this desk (a socket's number is reused)
  };
  enum class Step { waiting, complete, answered };
  Step read_some(Pending& p);
  // The head is in (it ends at `head_end`) and its body is `length` bytes: read it from now.
  Step begin_body(Pending& p, std::size_t head_end, std::size_t length);
  void hand_over(Pending& p);
  void serve_queue();
  void gate_loop();
  // Applies big_body's verdicts that came in; true for each pending that is gone.
  void take_verdicts(std::vector<bool>& gone);
  std::optional<std::size_t> to_drop(const std::string& host) const;
  std::string behind_pace(const Pending& p, std::chrono::steady_clock::time_point now) const;

  struct GateJob {
    std::uint64_t serial;
    std::string head;
    std::string host;
  };
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  std::deque<GateJob> gate_jobs_;
  std::map<std::uint64_t, Verdict> verdicts_;  // by serial
  std::uint64_t accepted_ = 0;
  bool gate_stopping_ = false;
  std::thread gate_;

  std::unique_ptr<TcpListener> listener_;
  const Rules rules_;
  const Handler handler_;
  int wake_fd_ = -1;
  std::vector<Pending> pending_;
  std::mutex mu_;
  std::condition_variable work_;
  std::deque<Request> queue_;
  std::map<std::string, std::size_t> active_;  // requests queued or served, by address
  std::set<int> serving_;                      // sockets a request thread has now
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Answers `status` with a one-line JSON error and closes the connection, never waiting on the
// peer.
void answer_and_close(Link& link, int status, const std::string& message);

}  // namespace arbiter::server
