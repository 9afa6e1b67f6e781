// Channel::exchange and the in-memory loopback pair (in-process racers, tests).
#include "core/channel.h"

#include <condition_variable>
#include <mutex>

#include <fmt/format.h>

#include "core/framer.h"

namespace arbiter {

ChannelResult<Json> Channel::exchange(const Json& request, const Deadline& deadline) {
  auto early = try_receive();
  if (!early) return std::unexpected(early.error());
  if (*early)
    return std::unexpected(ChannelFault{
        Why::foul, fmt::format("unsolicited: {} arrived before the call it would answer was made",
                               excerpt(**early))});
  if (auto sent = send(request, deadline); !sent) return std::unexpected(sent.error());
  return receive(deadline);
}

namespace {

// The state both ends share: what is in flight towards each side, and which sides closed.
struct Loop {
  std::mutex mu;
  std::condition_variable cv;
  std::string inbox[2];
  bool closed[2] = {false, false};
};

class LoopbackEnd final : public Channel {
 public:
  LoopbackEnd(std::shared_ptr<Loop> loop, int side, ChannelLimits limits)
      : loop_(std::move(loop)), me_(side), peer_(1 - side), framer_(Framing::lines, limits) {}
  ~LoopbackEnd() override { close(); }

  ChannelResult<void> send(const Json& message, const Deadline&) override {
    std::string text = Framer::encode(message);
    std::lock_guard lock(loop_->mu);
    if (loop_->closed[me_]) return std::unexpected(ChannelFault{Why::hang_up, "channel closed"});
    if (loop_->closed[peer_]) return std::unexpected(ChannelFault{Why::hang_up, "peer closed"});
    loop_->inbox[peer_] += text;
    loop_->cv.notify_all();
    return {};
  }

  ChannelResult<Json> receive(const Deadline& deadline) override {
    for (;;) {
      auto got = take(/*wait=*/&deadline);
      if (!got) return std::unexpected(got.error());
      if (*got) return std::move(**got);
    }
  }

  ChannelResult<std::optional<Json>> try_receive() override { return take(nullptr); }

  void close() override {
    std::lock_guard lock(loop_->mu);
    loop_->closed[me_] = true;
    loop_->cv.notify_all();
  }

  std::string describe() const override { return fmt::format("loopback end {}", me_); }

 private:
  // One step of receiving: a buffered message, else whatever text has arrived (waiting for some
  // until the deadline when `deadline` is given). Nothing means "try the framer again" when
  // waiting, "no message yet" when not.
  ChannelResult<std::optional<Json>> take(const Deadline* deadline) {
    {
      std::lock_guard lock(loop_->mu);
      if (loop_->closed[me_]) return std::unexpected(ChannelFault{Why::hang_up, "channel closed"});
    }
    auto message = framer_.next();
    if (!message || *message) return message;

    std::unique_lock lock(loop_->mu);
    auto ready = [&] {
      return loop_->closed[me_] || loop_->closed[peer_] || !loop_->inbox[me_].empty();
    };
    if (deadline) deadline->clock().wait_until(lock, loop_->cv, deadline->at(), ready);
    if (loop_->closed[me_]) return std::unexpected(ChannelFault{Why::hang_up, "channel closed"});
    if (!loop_->inbox[me_].empty()) {
      std::string text = std::move(loop_->inbox[me_]);
      loop_->inbox[me_].clear();
      lock.unlock();
      framer_.append(text);
      auto next = framer_.next();
      if (!next || *next || !deadline || !deadline->passed()) return next;
      // Only part of a message by the deadline (a peer that trickles bytes cannot hold us).
      return std::unexpected(ChannelFault{Why::timeout, "no complete message before the deadline"});
    }
    if (loop_->closed[peer_]) {
      return std::unexpected(
          ChannelFault{Why::hang_up, framer_.partial() ? "peer closed in the middle of a message"
                                                       : "peer closed"});
    }
    if (!deadline) return std::optional<Json>();
    return std::unexpected(ChannelFault{Why::timeout, "no message before the deadline"});
  }

  std::shared_ptr<Loop> loop_;
  int me_;
  int peer_;
  Framer framer_;
};

}  // namespace

std::pair<std::unique_ptr<Channel>, std::unique_ptr<Channel>> loopback_pair(ChannelLimits limits) {
  auto loop = std::make_shared<Loop>();
  return {std::make_unique<LoopbackEnd>(loop, 0, limits),
          std::make_unique<LoopbackEnd>(loop, 1, limits)};
}

std::optional<Json> ChannelLink::receive(const Deadline& deadline) {
  if (closed_) return std::nullopt;
  auto m = channel_.receive(deadline);
  if (m) return std::move(*m);
  if (m.error().why != Why::timeout) closed_ = true;
  return std::nullopt;
}

bool ChannelLink::send(const Json& message) {
  if (closed_) return false;
  if (!channel_.send(message, Deadline::after(SteadyClock::instance(), send_timeout_)))
    closed_ = true;
  return !closed_;
}

}  // namespace arbiter
