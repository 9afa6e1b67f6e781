// Channel: one JSON message out, one back, within a deadline: the transport under every remote
// player and every in-process racer. The interface and the in-memory loopback live here, so that
// the referee seats in-process players over the same wire format without depending on a
// transport; FdChannel (a pipe pair to a child process, or a TCP socket) is in src/remote.
// Everything a peer can do wrong arrives as a ChannelFault with the Ejection reason it deserves:
// timeout (nothing complete by the deadline), hang_up (closed, reset, died), malformed (not
// JSON, or a message larger than the size cap).
// Thread-safety: one thread uses a channel at a time; close() may be called from any thread.
#pragma once

#include <cstddef>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/racer.h"

namespace arbiter {

struct ChannelFault {
  Why why = Why::hang_up;  // timeout, hang_up, malformed, a cap, or foul (unsolicited)
  std::string detail;      // one line, e.g. "message larger than 1048576 bytes"
};

template <class T>
using ChannelResult = std::expected<T, ChannelFault>;

// How messages are delimited on a byte stream.
enum class Framing {
  lines,   // one compact JSON value per '\n'-terminated line (arbiter's own protocol)
  values,  // JSON values back to back, whitespace optional between self-delimiting values
           // (the Q course's TCP protocol); a bare number or literal needs trailing whitespace
};

struct ChannelLimits {
  std::size_t max_message = 1 << 20;  // bytes in one message (without the newline)
  std::uint64_t max_total = 0;  // bytes received over the channel's life (0: no cap); more is
                                // Why::output_limit
};

class Channel {
 public:
  virtual ~Channel() = default;

  // Writes one message (compact JSON; with Framing::lines followed by '\n'), waiting for room
  // until the deadline; a peer that does not read gets a timeout, a closed one a hang_up.
  virtual ChannelResult<void> send(const Json& message, const Deadline& deadline) = 0;

  // Waits until one complete message has arrived, or the deadline passes.
  virtual ChannelResult<Json> receive(const Deadline& deadline) = 0;

  // Never blocks: a complete message if one has arrived, nothing if not yet.
  virtual ChannelResult<std::optional<Json>> try_receive() = 0;

  // Closes both directions; later calls fail with hang_up. Idempotent, never blocks.
  virtual void close() = 0;

  // For logs and messages: "pipe to pid 1234", "tcp 127.0.0.1:40123".
  virtual std::string describe() const = 0;

  // send() then receive() under one deadline: the reply is the first message that arrives after
  // the request. A message already waiting before the request goes out answers nothing the
  // peer has seen, so it is never taken as the reply: the exchange fails with Why::foul
  // "unsolicited: ..." (a fault already waiting, such as a malformed line, is returned as is).
  // A message the peer sends after the request but before it has read it cannot be told apart.
  ChannelResult<Json> exchange(const Json& request, const Deadline& deadline);
};

// Two channels connected back to back in memory; what one sends the other receives, as text
// through the same framing and size cap as the byte-stream channels.
std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> loopback_pair(
    ChannelLimits limits = {});

// A racer's Link (core/racer.h) over a channel: the loopback end of an in-process racer, or
// stdio / a socket in an external bot program. A fault other than a timeout closes the link.
class ChannelLink final : public Link {
 public:
  explicit ChannelLink(Channel& channel, Duration send_timeout = std::chrono::seconds(5))
      : channel_(channel), send_timeout_(send_timeout) {}
  std::optional<Json> receive(const Deadline& deadline) override;
  bool send(const Json& message) override;
  bool closed() const override { return closed_; }

 private:
  Channel& channel_;
  Duration send_timeout_;
  bool closed_ = false;
};

}  // namespace arbiter
