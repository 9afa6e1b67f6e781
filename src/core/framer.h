// Framer: cuts a byte stream into JSON messages per Framing under the size cap; the one wire format
// shared by FdChannel (src/remote) and the in-memory loopback.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/channel.h"

namespace arbiter {

class Framer {
 public:
  Framer(Framing framing, ChannelLimits limits) : framing_(framing), limits_(limits) {}

  // The bytes that carry `message` on the wire (either framing): compact JSON and a newline.
  static std::string encode(const Json& message);

  void append(std::string_view bytes);

  // Takes the next complete message out of the buffer. Nothing when more bytes are needed;
  // malformed for a message that is not JSON (it is consumed, the stream goes on) or one over
  // the cap (the stream cannot be resynchronised, so every later call fails the same way).
  ChannelResult<std::optional<Json>> next();

  // Whether the buffer holds part of a message (at end of input: a truncated one).
  bool partial() const;
  std::size_t buffered() const { return buf_.size() - start_; }

 private:
  ChannelResult<std::optional<Json>> next_line();
  ChannelResult<std::optional<Json>> next_value();
  ChannelResult<std::optional<Json>> decode(std::string_view text);
  ChannelFault too_large();
  void compact();

  Framing framing_;
  ChannelLimits limits_;
  std::optional<ChannelFault> poisoned_;
  std::string buf_;
  std::size_t start_ = 0;  // first byte not yet consumed
  std::size_t scan_ = 0;   // bytes before this were already scanned for the current message
  // Framing::values: the scanner's state inside the current value.
  bool in_value_ = false;
  bool token_ = false;  // a number or literal rather than a string, array or object
  bool in_string_ = false;
  bool escaped_ = false;
  std::size_t depth_ = 0;
};

}  // namespace arbiter
