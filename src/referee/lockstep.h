// The lockstep referee style (Concurrent Abalone): the game's own scheduler steps every scripted
// piece a fixed budget per clock cycle; the referee hosts it. It records the match through the
// one GameLog (and so its observers: frames for viewers included), and it is the one place that
// calls a seat played from outside (an OutsideSeat: a program or a TCP client answering the
// referee protocol's setup / take-turn / win), through guarded_call and the one call record, or,
// in a replay, from the recorded calls with the same matching as the turn-based replay.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/player.h"
#include "core/seat.h"
#include "referee/call_record.h"
#include "referee/call_runner.h"
#include "referee/game_log.h"
#include "referee/guarded_call.h"
#include "referee/match.h"
#include "referee/replay.h"

namespace arbiter {

// A seat of a lockstep game played from outside the referee. The game's scheduler asks it
// through call(); every call is logged as a call record, and a seat whose call failed is out:
// no call follows. Called on the scheduler's thread, one call at a time.
class OutsideSeat {
 public:
  virtual ~OutsideSeat() = default;

  // One call: `decode` turns the reply into a T or says why it is malformed. Returns the T or
  // the Ejection (already logged).
  template <class T, class Decode>
  std::expected<T, Ejection> call(const char* call, std::string_view method, Json args,
                                  Decode decode) {
    CallRecord record(seat_, call, [&](std::string& out) {
      if (log_ != nullptr) out += dump(args);
    });
    Duration elapsed{};
    std::expected<T, Ejection> out = std::unexpected(Ejection{});
    if (failure_) {
      out = std::unexpected(*failure_);
    } else if (auto reply = exchange(call, method, args, elapsed)) {
      // A replayed record of a long malformed reply stands for that reply (logged_message).
      const std::optional<std::string> replayed = replayed_malformed(*reply);
      auto decoded = replayed ? decltype(decode(*reply))(fail(*replayed)) : decode(*reply);
      record.set_reply(dump(
          replayed ? *reply
                   : logged_message(
                         *reply, decoded ? std::nullopt
                                         : std::optional<std::string>(decoded.error().message))));
      if (decoded)
        out = std::move(*decoded);
      else
        out = std::unexpected(Ejection{seat_, Why::malformed, call, decoded.error().message});
    } else {
      out = std::unexpected(reply.error());
    }
    if (!out && !failure_) failure_ = out.error();
    if (log_ != nullptr)
      log_->write_text(std::move(record).text(out ? nullptr : &out.error(), elapsed));
    return out;
  }

  // The end of the match, for a seat still in it: the "win" call, which must be answered
  // "void". Its ejection if the call fails.
  std::optional<Ejection> win(bool won);

  bool failed() const { return failure_.has_value(); }

  // The seat is out (a failed call, or a foul its game judged): it hears why once; no call
  // follows.
  void ejected(const Ejection& ejection) {
    if (told_) return;
    told_ = true;
    if (!failure_) failure_ = ejection;
    tell(ejection);
  }

 protected:
  OutsideSeat(Seat seat, GameLog* log) : seat_(seat), log_(log) {}
  // One exchange: the reply, or why it failed.
  virtual std::expected<Json, Ejection> exchange(const char* call, std::string_view method,
                                                 const Json& args, Duration& elapsed) = 0;
  // How the seat hears that it is out; a replayed seat does not.
  virtual void tell(const Ejection& ejection) { (void)ejection; }

  Seat seat_;

 private:
  GameLog* log_;
  std::optional<Ejection> failure_;
  bool told_ = false;
};

// An outside seat live: `ask(request)` sends the referee protocol's call ([method, args]) and
// returns the reply, throwing PlayerFault for what went wrong (the transport's verdicts); every
// call runs under guarded_call within the per-call limit. `tell` delivers the ejection notice.
class LiveSeat final : public OutsideSeat {
 public:
  using Ask = std::function<Json(const Json& request)>;
  using Tell = std::function<void(const Ejection&)>;
  // `unstarted`: why the seat's program could not be started, if so (its first call is then a
  // hang-up with this detail).
  LiveSeat(Seat seat, GameLog* log, Ask ask, Tell tell, const Clock& clock, Duration per_call,
           std::string unstarted = {})
      : OutsideSeat(seat, log),
        ask_(std::move(ask)),
        tell_(std::move(tell)),
        clock_(clock),
        per_call_(per_call),
        unstarted_(std::move(unstarted)) {}

 private:
  std::expected<Json, Ejection> exchange(const char* call, std::string_view method,
                                         const Json& args, Duration& elapsed) override;
  void tell(const Ejection& ejection) override {
    if (tell_) tell_(ejection);
  }

  Ask ask_;
  Tell tell_;
  const Clock& clock_;
  Duration per_call_;
  std::string unstarted_;
  CallRunner runner_{Isolation::inline_call};
};

// An outside seat in a replay: answers from the recorded calls (detail::ReplayScript::next, the
// same matching as the turn-based replay).
class ScriptedSeat final : public OutsideSeat {
 public:
  ScriptedSeat(Seat seat, GameLog* log, std::shared_ptr<detail::ReplayScript> script)
      : OutsideSeat(seat, log), script_(std::move(script)) {}

 private:
  std::expected<Json, Ejection> exchange(const char* call, std::string_view method,
                                         const Json& args, Duration& elapsed) override;
  std::shared_ptr<detail::ReplayScript> script_;
};

// How the game's scheduler ended the match.
struct LockstepEnd {
  std::vector<std::int64_t> scores;             // by seat
  std::vector<std::optional<Ejection>> ejected;  // by seat: why a seat forfeited, if it did
  std::optional<Seat> winner;
};

// What the scheduler reports as it plays: its events (log lines) and, when watched, frames.
struct LockstepRecord {
  std::function<void(const Json&)> event;  // always set
  std::function<void(const Json&)> frame;  // null when no observer wants frames
};

// Hosts one lockstep match: writes `header` to `log`, runs `play(record) -> LockstepEnd` (the
// game's scheduler), then calls win() on every outside seat still in (a failed win call ejects
// it; only a winner that heard it wins), and writes the result line. `outside[seat]` is null
// for a seat the scheduler runs itself. `log` may be null (nothing recorded, nobody watches).
template <class Play>
MatchResult run_lockstep(const Json& header, const std::vector<OutsideSeat*>& outside,
                         GameLog* log, Play play) {
  if (log != nullptr) log->write(header);
  LockstepRecord record;
  record.event = [log](const Json& e) {
    if (log != nullptr) log->write(e);
  };
  if (log != nullptr && log->shows_frames())
    record.frame = [log](const Json& frame) { log->show(frame); };
  const LockstepEnd end = play(record);
  MatchResult result;
  result.scores = end.scores;
  for (const auto& e : end.ejected)
    if (e) result.ejections.push_back(*e);
  for (std::size_t i = 0; i < outside.size() || i < end.scores.size(); ++i) {
    const bool won = end.winner && static_cast<std::size_t>(*end.winner) == i;
    OutsideSeat* seat = i < outside.size() ? outside[i] : nullptr;
    if (seat != nullptr && !seat->failed()) {
      if (auto ejection = seat->win(won)) {
        seat->ejected(*ejection);
        result.ejections.push_back(*ejection);
        continue;
      }
    }
    if (won) result.winners.push_back(static_cast<Seat>(i));
  }
  if (log != nullptr) log->write(encode_result(result));
  return result;
}

}  // namespace arbiter
