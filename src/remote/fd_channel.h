// FdChannel: a Channel over file descriptors: a child's stdout/stdin pipes, or one TCP socket.
// Reads and writes are non-blocking and bounded by the deadline with poll(); nothing waits for
// the peer to cooperate. Frames per Framing; a message over the size cap is malformed.
#pragma once

#include <string>
#include <string_view>

#include "core/channel.h"

namespace arbiter {

class FdChannel final : public Channel {
 public:
  // Takes ownership of both descriptors (read_fd may equal write_fd, as for a socket) and makes
  // them non-blocking and close-on-exec. For a pipe it makes the process ignore SIGPIPE
  // (ChildProcess::ignore_sigpipe), so that a reader's death is a hang_up, not our death.
  FdChannel(int read_fd, int write_fd, Framing framing, ChannelLimits limits,
            std::string description);
  ~FdChannel() override;

  ChannelResult<void> send(const Json& message, const Deadline& deadline) override;
  // Writes `text` as it is, unframed: for test fixtures that must send what is not JSON.
  ChannelResult<void> send_text(std::string_view text, const Deadline& deadline);
  ChannelResult<Json> receive(const Deadline& deadline) override;
  ChannelResult<std::optional<Json>> try_receive() override;
  void close() override;
  std::string describe() const override { return description_; }

  // Stops sending but keeps receiving (shutdown(SHUT_WR) for sockets, closing the write end of a
  // pipe pair): the peer sees end of input.
  void close_write();

 private:
  struct State;
  std::unique_ptr<State> s_;
  std::string description_;
};

}  // namespace arbiter
