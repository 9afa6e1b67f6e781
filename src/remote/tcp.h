// TCP endpoints on top of FdChannel: a listener that accepts under a deadline, a sign-up desk
// that reads every new connection's first message at once, and a connector.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/channel.h"

namespace arbiter {

struct Address {
  std::string host;
  std::uint16_t port = 0;
};

// "HOST:PORT" (the port in decimal, 0 allowed only when `any_port`, meaning: any free one).
// The Error names `what` (e.g. "--listen") and says what was expected.
Expected<Address> parse_address(std::string_view text, std::string_view what, bool any_port);

class TcpListener {
 public:
  // Listens on host:port (port 0 picks a free one), SO_REUSEADDR set.
  static Expected<std::unique_ptr<TcpListener>> listen(const std::string& host, std::uint16_t port,
                                                       int backlog = 128);
  ~TcpListener();

  std::uint16_t port() const { return port_; }

  // Accepts one connection, waiting until the deadline: nothing if none came in time.
  Expected<std::optional<std::unique_ptr<Channel>>> accept(const Deadline& deadline,
                                                           Framing framing,
                                                           ChannelLimits limits = {});
  void close();

  // For a poll() loop of the caller's (SignUpDesk, the viewer's RequestDesk): the listening
  // socket (non-blocking), and one connection from its queue if there is one, never waiting,
  // as a non-blocking, close-on-exec socket the caller owns.
  struct Accepted {
    int fd;
    std::string host;  // the peer's IP address, without the port
    std::string peer;  // host and port, for describe()
  };
  int fd() const { return fd_; }
  Expected<std::optional<Accepted>> accept_now();

 private:
  TcpListener(int fd, std::uint16_t port) : fd_(fd), port_(port) {}
  int fd_;
  std::uint16_t port_;
};

// The rule both desks (SignUpDesk, the viewer's RequestDesk) keep their pending connections by:
// which one to drop so that one more from `host` may wait, or nothing while there is room. At
// most `max_pending` wait, at most `max_per_host` from one address; beyond that the one silent
// the longest goes, of `host` if it has its share, else of all. So a client that sends promptly
// is never the one dropped, and one address cannot push out the others' clients.
// `Pending` has `host` (std::string) and `heard` (when it last sent bytes, or was accepted).
struct PendingLimits {
  std::size_t max_pending = 64;
  std::size_t max_per_host = 16;
};
template <class Pending>
std::optional<std::size_t> pending_to_drop(const std::vector<Pending>& pending,
                                           const std::string& host, PendingLimits limits) {
  std::size_t of_host = 0;
  for (const Pending& p : pending) of_host += p.host == host ? 1 : 0;
  const bool host_full = of_host >= limits.max_per_host;
  if (!host_full && pending.size() < limits.max_pending) return std::nullopt;
  std::optional<std::size_t> quietest;
  for (std::size_t i = 0; i < pending.size(); ++i)
    if ((!host_full || pending[i].host == host) &&
        (!quietest || pending[i].heard < pending[*quietest].heard))
      quietest = i;
  return quietest;
}

// Sign-up over TCP where no client waits for another. Every connection the listener accepts is
// pending until it has sent one complete message (its sign-up); all pending connections are read
// at once, in one poll() with the listener, so an idle or slow connection delays nobody.
// - Each pending connection has `wait` from when it was accepted to send its message.
// - At most `max_pending` connections are pending at once, and at most `max_pending_per_host`
//   from one IP address. A connection that arrives when its address (else the desk) is full takes
//   the place of the pending one of that address (else of any) that has been silent the longest.
//   So a client that sends its sign-up promptly always gets in, however many idle connections
//   anyone holds open, and one address cannot push out the others' pending clients.
// Used by one thread.
class SignUpDesk {
 public:
  struct Rules {
    Duration wait = std::chrono::seconds(2);
    std::size_t max_pending = 64;           // at least 1
    std::size_t max_pending_per_host = 16;  // at least 1
  };
  struct Arrival {
    std::unique_ptr<Channel> channel;  // its owner decides: seat it, or refuse and close it
    // The sign-up, or why none came: timeout (its wait passed, or it was dropped to make room,
    // which the detail says), hang_up, malformed.
    ChannelResult<Json> hello;
    std::uint64_t number = 0;  // its place in the order the desk accepted connections, from 0
  };

  // Channels get `framing` and `limits`; the listener must outlive the desk.
  SignUpDesk(TcpListener& listener, Framing framing, Rules rules, ChannelLimits limits = {});
  ~SignUpDesk();

  // The next connection to be done with signing up, in the order that happened (accepting new
  // connections meanwhile); nothing if none is by the deadline. An Error only when the listener
  // fails.
  Expected<std::optional<Arrival>> next(const Deadline& deadline);

  std::size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    std::unique_ptr<Channel> channel;
    int fd;  // the channel's socket, polled while it is pending
    std::string host;
    Instant heard;  // when it was accepted or last sent bytes
    Instant until;  // its wait ends
    std::uint64_t number;
  };
  void admit(TcpListener::Accepted accepted, Instant now);
  void conclude(std::size_t index, ChannelResult<Json> hello);

  TcpListener& listener_;
  Framing framing_;
  Rules rules_;
  ChannelLimits limits_;
  std::vector<Pending> pending_;
  std::deque<Arrival> done_;
  std::uint64_t accepted_ = 0;
};

// A secret for claiming a tcp seat: "SEAT-" and 32 hex digits from the kernel's random source
// (never from a match's seed, which is no secret).
std::string make_token(std::string_view seat);

// Whether `given` is `expected`, in time that does not depend on where they differ.
bool tokens_match(std::string_view expected, std::string_view given);

// Connects to host:port within the deadline.
Expected<std::unique_ptr<Channel>> tcp_connect(const std::string& host, std::uint16_t port,
                                               const Deadline& deadline, Framing framing,
                                               ChannelLimits limits = {});

}  // namespace arbiter
