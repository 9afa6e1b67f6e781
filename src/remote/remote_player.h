// RemotePlayer<G>: the referee's side of a player in another process: the game's codec over a
// Channel, optionally owning the child process at the other end. Each call is bounded by the
// deadline of the referee's guarded call (call_deadline()), so the referee runs it on its own
// thread; every failure is a PlayerFault with its Ejection reason (timeout, hang-up, malformed).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "core/interrupt.h"
#include "core/player.h"
#include "core/channel.h"
#include "remote/child_process.h"
#include "remote/wire.h"

namespace arbiter {

template <Game G>
class RemotePlayer final : public Player<G> {
 public:
  // `child` (if any) is the process behind `channel`; it is killed on disconnect().
  // `tell_ejection`: send the wire::ejected notice on ejection (the Q course's clients do not
  // know it).
  RemotePlayer(std::string name, std::unique_ptr<Channel> channel,
               std::shared_ptr<ChildProcess> child = nullptr, bool tell_ejection = true)
      : name_(std::move(name)),
        channel_(std::move(channel)),
        child_(std::move(child)),
        tell_ejection_(tell_ejection) {}
  ~RemotePlayer() override {
    disconnect();
    if (child_) child_->kill();
  }

  std::string name() override { return name_; }

  SetupOf_t<G> setup(const typename G::View& view) override {
    const Json reply = call(wire::kSetup, wire::setup_args<G>(view, name_));
    if constexpr (SetsUp<G>) {
      auto choice = G::decode_setup(reply);
      if (!choice)
        throw PlayerFault(Why::malformed, fmt::format("setup reply: {}", choice.error().message));
      return std::move(*choice);
    } else {
      expect_void(wire::kSetup, reply);
    }
  }

  typename G::Action take_turn(const typename G::View& view) override {
    const Json reply = call(wire::kTakeTurn, wire::take_turn_args<G>(view, name_));
    auto action = G::decode_action(reply);
    if (!action)
      throw PlayerFault(Why::malformed, fmt::format("take-turn reply: {}", action.error().message));
    return std::move(*action);
  }

  void new_tiles(const HandOf_t<G>& tiles) override {
    if constexpr (HandCodec<G>)
      expect_void(wire::kNewTiles, call(wire::kNewTiles, Json::array({G::encode(tiles)})));
  }

  void win(bool won) override { expect_void(wire::kWin, call(wire::kWin, Json::array({won}))); }

  bool in_process() const override { return false; }
  const CpuMeter* cpu_meter() const override { return child_ ? child_->cpu_meter() : nullptr; }

  // Closes the channel; the child has wire::kLastMessageGrace to see its input end and exit by
  // itself (bot check's "exits") before it is killed. It is reaped when the player is destroyed
  // (reaping can wait for the kernel to free a large child's memory).
  void disconnect() override {
    if (channel_) channel_->close();
    if (child_) child_->stop_after(wire::kLastMessageGrace);
  }

  // The notice, then the channel closed at once; the program has wire::kLastMessageGrace to read
  // it and exit before it is killed.
  void ejected(const Ejection& ejection) override {
    if (!tell_ejection_) return disconnect();
    if (channel_) wire::tell_ejected(*channel_, ejection);
    if (child_) child_->stop_after(wire::kLastMessageGrace);
  }

  ChildProcess* child() { return child_.get(); }

 private:
  Json call(std::string_view method, Json args) {
    const Deadline* deadline = call_deadline();
    // Outside the referee (tests, tools) a call gets the protocol's default limit.
    std::optional<Deadline> fallback;
    if (deadline == nullptr)
      deadline =
          &fallback.emplace(Deadline::after(SteadyClock::instance(), std::chrono::seconds(6)));
    auto reply = channel_->exchange(wire::call(method, std::move(args)), *deadline);
    if (!reply) wire::throw_fault(reply.error(), child_.get());
    return std::move(*reply);
  }

  static void expect_void(std::string_view method, const Json& reply) {
    if (reply != wire::kVoid)
      throw PlayerFault(Why::malformed,
                        fmt::format("{} reply must be \"void\", got {}", method, excerpt(reply)));
  }

  std::string name_;
  std::unique_ptr<Channel> channel_;
  std::shared_ptr<ChildProcess> child_;
  bool tell_ejection_;
};

// A seat whose program could not be started: every call fails with hang_up and the reason, so
// the referee ejects it at setup like any player that never answers, and the match goes on.
template <Game G>
class UnstartedPlayer final : public Player<G> {
 public:
  UnstartedPlayer(std::string name, std::string why)
      : name_(std::move(name)), why_(std::move(why)) {}
  std::string name() override { return name_; }
  SetupOf_t<G> setup(const typename G::View&) override { fail(); }
  typename G::Action take_turn(const typename G::View&) override { fail(); }
  void win(bool) override { fail(); }
  bool in_process() const override { return false; }

 private:
  [[noreturn]] void fail() { throw PlayerFault(Why::hang_up, why_); }
  std::string name_;
  std::string why_;
};

}  // namespace arbiter
