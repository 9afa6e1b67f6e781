// FdChannel: framed JSON over non-blocking descriptors, every wait bounded by poll().
#include "remote/fd_channel.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "remote/child_process.h"
#include "core/framer.h"
#include "remote/io.h"

namespace arbiter {
namespace {

constexpr std::size_t kChunk = 64 * 1024;

std::unexpected<ChannelFault> fault(Why why, std::string detail) {
  return std::unexpected(ChannelFault{why, std::move(detail)});
}

std::unexpected<ChannelFault> io_fault(const char* what, int err) {
  if (err == EPIPE || err == ECONNRESET) return fault(Why::hang_up, "connection closed by peer");
  return fault(Why::hang_up, fmt::format("{} failed: {}", what, std::strerror(err)));
}

}  // namespace

struct FdChannel::State {
  State(Framing framing, ChannelLimits limits) : framer(framing, limits), limits(limits) {}

  std::mutex mu;  // guards the fields up to `active`; close() comes from any thread
  int read_fd = -1;
  int write_fd = -1;
  int wake_fd = -1;  // eventfd that close() signals so that a poll() in progress returns
  bool closed = false;
  bool write_closed = false;
  int active = 0;  // calls in progress; the descriptors are closed only when none is

  // Used by the calling thread only.
  bool socket = false;
  bool eof = false;
  bool send_broken = false;
  std::uint64_t received = 0;  // a send timed out part way: the peer's stream is out of step
  Framer framer;
  ChannelLimits limits;
  std::unique_ptr<char[]> chunk = std::make_unique<char[]>(kChunk);

  void release_fds() {
    const bool shared = read_fd == write_fd;
    close_fd(read_fd);
    if (shared)
      write_fd = -1;
    else
      close_fd(write_fd);
  }

  // Reads what is available. true: bytes were appended or end of input was seen; false: nothing
  // available right now.
  ChannelResult<bool> read_some() {
    for (;;) {
      const ssize_t n = ::read(read_fd, chunk.get(), kChunk);
      if (n > 0) {
        received += static_cast<std::uint64_t>(n);
        if (limits.max_total != 0 && received > limits.max_total)
          return std::unexpected(ChannelFault{
              Why::output_limit,
              fmt::format("more than {} bytes of output on stdout", limits.max_total)});
        framer.append(std::string_view(chunk.get(), static_cast<std::size_t>(n)));
        return true;
      }
      if (n == 0) {
        eof = true;
        return true;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      return io_fault("read", errno);
    }
  }

  ChannelFault end_of_input() const {
    return {Why::hang_up,
            framer.partial() ? "end of input in the middle of a message" : "end of input"};
  }
};

namespace {

// Marks a call in progress for its duration, so that a concurrent close() leaves the
// descriptors open until the call has stopped using them.
template <class State>
class Call {
 public:
  explicit Call(State& s) : s_(s) {
    std::lock_guard lock(s_.mu);
    ok_ = !s_.closed;
    if (ok_) ++s_.active;
  }
  ~Call() {
    if (!ok_) return;
    std::lock_guard lock(s_.mu);
    if (--s_.active == 0 && s_.closed) s_.release_fds();
  }
  explicit operator bool() const { return ok_; }

 private:
  State& s_;
  bool ok_ = false;
};

}  // namespace

FdChannel::FdChannel(int read_fd, int write_fd, Framing framing, ChannelLimits limits,
                     std::string description)
    : s_(std::make_unique<State>(framing, limits)), description_(std::move(description)) {
  s_->read_fd = read_fd;
  s_->write_fd = write_fd;
  // A descriptor that is not open shows up as a hang_up on first use.
  make_nonblocking_cloexec(read_fd);
  if (write_fd != read_fd) make_nonblocking_cloexec(write_fd);
  struct stat st {};
  s_->socket = ::fstat(write_fd, &st) == 0 && S_ISSOCK(st.st_mode);
  // write() to a pipe whose reader is gone raises SIGPIPE, which must not end the referee.
  if (!s_->socket) ChildProcess::ignore_sigpipe();
  s_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

FdChannel::~FdChannel() {
  close();
  close_fd(s_->wake_fd);
}

void FdChannel::close() {
  std::lock_guard lock(s_->mu);
  if (s_->closed) return;
  s_->closed = true;
  if (s_->wake_fd >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(s_->wake_fd, &one, sizeof one);
  }
  if (s_->active == 0) s_->release_fds();
}

void FdChannel::close_write() {
  std::lock_guard lock(s_->mu);
  if (s_->closed || s_->write_closed) return;
  s_->write_closed = true;
  if (s_->write_fd == s_->read_fd)
    ::shutdown(s_->write_fd, SHUT_WR);
  else
    close_fd(s_->write_fd);
}

ChannelResult<void> FdChannel::send(const Json& message, const Deadline& deadline) {
  return send_text(Framer::encode(message), deadline);
}

ChannelResult<void> FdChannel::send_text(std::string_view text, const Deadline& deadline) {
  Call<State> call(*s_);
  if (!call) return fault(Why::hang_up, "channel closed");
  State& s = *s_;
  int fd;
  {
    std::lock_guard lock(s.mu);
    if (s.write_closed) return fault(Why::hang_up, "channel closed for writing");
    fd = s.write_fd;
  }
  if (s.send_broken)
    return fault(Why::timeout, "an earlier message was only partly sent before its deadline");

  std::size_t done = 0;
  while (done < text.size()) {
    const char* p = text.data() + done;
    const std::size_t left = text.size() - done;
    const ssize_t n = s.socket ? ::send(fd, p, left, MSG_NOSIGNAL) : ::write(fd, p, left);
    if (n >= 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return io_fault("write", errno);
    switch (wait_for(fd, POLLOUT, s.wake_fd, deadline)) {
      case Ready::ready:
        break;
      case Ready::woken:
        return fault(Why::hang_up, "channel closed");
      case Ready::invalid:
        return fault(Why::hang_up, "channel descriptor not open");
      case Ready::timeout:
        if (done > 0) s.send_broken = true;
        return fault(Why::timeout, fmt::format("peer did not take the message before the "
                                               "deadline ({} of {} bytes sent)",
                                               done, text.size()));
    }
  }
  return {};
}

ChannelResult<Json> FdChannel::receive(const Deadline& deadline) {
  Call<State> call(*s_);
  if (!call) return fault(Why::hang_up, "channel closed");
  State& s = *s_;
  for (bool first = true;; first = false) {
    auto message = s.framer.next();
    if (!message) return std::unexpected(message.error());
    if (*message) return std::move(**message);
    if (s.eof) return std::unexpected(s.end_of_input());
    // Checked after reading, not before, so that a message already sent is taken even at the
    // deadline; a peer that keeps sending partial data cannot keep us past it.
    if (!first && deadline.passed()) break;
    switch (wait_for(s.read_fd, POLLIN, s.wake_fd, deadline)) {
      case Ready::ready:
        break;
      case Ready::woken:
        return fault(Why::hang_up, "channel closed");
      case Ready::invalid:
        return fault(Why::hang_up, "channel descriptor not open");
      case Ready::timeout:
        return fault(Why::timeout, s.framer.partial() ? "only part of a message before the deadline"
                                                      : "no message before the deadline");
    }
    if (auto got = s.read_some(); !got) return std::unexpected(got.error());
  }
  return fault(Why::timeout, "only part of a message before the deadline");
}

ChannelResult<std::optional<Json>> FdChannel::try_receive() {
  Call<State> call(*s_);
  if (!call) return fault(Why::hang_up, "channel closed");
  State& s = *s_;
  // Bounded, so that a peer streaming blank lines cannot keep a non-blocking call busy.
  const std::size_t budget = s.limits.max_message + 2 * kChunk;
  for (std::size_t reads = 0;; ++reads) {
    auto message = s.framer.next();
    if (!message || *message) return message;
    if (s.eof) return std::unexpected(s.end_of_input());
    if (reads * kChunk > budget) return std::optional<Json>();
    auto got = s.read_some();
    if (!got) return std::unexpected(got.error());
    if (!*got) return std::optional<Json>();
  }
}

}  // namespace arbiter
