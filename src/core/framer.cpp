// Framer: incremental message splitting for Framing::lines and Framing::values.
#include "core/framer.h"

#include <fmt/format.h>

#include "core/json.h"

namespace arbiter {
namespace {

bool all_space(std::string_view text) {
  for (char c : text)
    if (!is_json_space(c)) return false;
  return true;
}

}  // namespace

std::string Framer::encode(const Json& message) {
  std::string text = dump(message);
  text += '\n';
  return text;
}

void Framer::append(std::string_view bytes) {
  if (poisoned_) return;
  compact();
  buf_.append(bytes);
}

void Framer::compact() {
  // Dropping consumed bytes costs a move of the rest; do it once they are the larger part.
  if (start_ == 0) return;
  if (start_ == buf_.size() || (start_ >= 4096 && start_ * 2 >= buf_.size())) {
    buf_.erase(0, start_);
    scan_ = scan_ > start_ ? scan_ - start_ : 0;
    start_ = 0;
  }
}

bool Framer::partial() const {
  return !poisoned_ && !all_space(std::string_view(buf_).substr(start_));
}

ChannelFault Framer::too_large() {
  ChannelFault fault{Why::malformed,
                     fmt::format("message larger than {} bytes", limits_.max_message)};
  poisoned_ = fault;
  buf_.clear();
  buf_.shrink_to_fit();
  start_ = scan_ = 0;
  return fault;
}

ChannelResult<std::optional<Json>> Framer::next() {
  if (poisoned_) return std::unexpected(*poisoned_);
  return framing_ == Framing::lines ? next_line() : next_value();
}

ChannelResult<std::optional<Json>> Framer::decode(std::string_view text) {
  if (text.size() > limits_.max_message) {
    // Complete, so already consumed: the stream itself is still in step.
    return std::unexpected(ChannelFault{
        Why::malformed, fmt::format("message larger than {} bytes", limits_.max_message)});
  }
  auto value = parse_json(text);
  if (!value) return std::unexpected(ChannelFault{Why::malformed, value.error().message});
  return std::optional<Json>(std::move(*value));
}

ChannelResult<std::optional<Json>> Framer::next_line() {
  for (;;) {
    const std::size_t newline = buf_.find('\n', std::max(scan_, start_));
    if (newline == std::string::npos) {
      scan_ = buf_.size();
      if (buf_.size() - start_ > limits_.max_message) return std::unexpected(too_large());
      return std::optional<Json>();
    }
    const std::string_view line(buf_.data() + start_, newline - start_);
    start_ = scan_ = newline + 1;
    if (all_space(line)) continue;
    return decode(line);
  }
}

ChannelResult<std::optional<Json>> Framer::next_value() {
  for (;;) {
    if (!in_value_) {
      while (start_ < buf_.size() && is_json_space(buf_[start_])) ++start_;
      if (start_ == buf_.size()) return std::optional<Json>();
      const char c = buf_[start_];
      in_value_ = true;
      token_ = !(c == '"' || c == '{' || c == '[');
      in_string_ = escaped_ = false;
      depth_ = 0;
      scan_ = start_;
    }
    std::size_t end = std::string::npos;
    for (std::size_t k = scan_; k < buf_.size() && end == std::string::npos; ++k) {
      const char d = buf_[k];
      if (token_) {
        // A number or literal has no closing mark: it ends where something else begins.
        if (is_json_space(d) || d == '{' || d == '[' || d == '"') end = k;
      } else if (in_string_) {
        if (escaped_) {
          escaped_ = false;
        } else if (d == '\\') {
          escaped_ = true;
        } else if (d == '"') {
          in_string_ = false;
          if (depth_ == 0) end = k + 1;
        }
      } else if (d == '"') {
        in_string_ = true;
      } else if (d == '{' || d == '[') {
        ++depth_;
      } else if (d == '}' || d == ']') {
        if (depth_ <= 1) end = k + 1;  // parse_json judges whether the brackets match
        if (depth_ > 0) --depth_;
      }
    }
    if (end == std::string::npos) {
      scan_ = buf_.size();
      if (buf_.size() - start_ > limits_.max_message) return std::unexpected(too_large());
      return std::optional<Json>();
    }
    const std::string_view text(buf_.data() + start_, end - start_);
    start_ = scan_ = end;
    in_value_ = false;
    return decode(text);
  }
}

}  // namespace arbiter
