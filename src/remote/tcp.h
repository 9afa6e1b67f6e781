// TCP endpoints on top of FdChannel: a listener that accepts under a deadline, and a connector.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "remote/channel.h"

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
                                                       int backlog = 16);
  ~TcpListener();

  std::uint16_t port() const { return port_; }

  // Accepts one connection, waiting until the deadline: nothing if none came in time.
  Expected<std::optional<std::unique_ptr<Channel>>> accept(const Deadline& deadline,
                                                           Framing framing,
                                                           ChannelLimits limits = {});
  void close();

 private:
  TcpListener(int fd, std::uint16_t port) : fd_(fd), port_(port) {}
  int fd_;
  std::uint16_t port_;
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
