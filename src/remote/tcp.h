// TCP endpoints on top of FdChannel: a listener that accepts under a deadline, and a connector.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/json.h"
#include "remote/channel.h"

namespace arbiter {

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

// Connects to host:port within the deadline.
Expected<std::unique_ptr<Channel>> tcp_connect(const std::string& host, std::uint16_t port,
                                               const Deadline& deadline, Framing framing,
                                               ChannelLimits limits = {});

}  // namespace arbiter
