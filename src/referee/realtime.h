// The real-time referee (docs/architecture.md, docs/games/speed_scrabble.md): every seat acts
// whenever it likes. One reader thread per seat waits on its channel; each arrival is stamped with
// the injected clock and a global ticket under one lock, so the queue order IS the arrival order,
// and the referee thread hands messages to the game in that order. Notices go out as the game makes
// them. Per seat: a size cap (the channel's), a rate cap and the game's own limits; garbage, a
// flood, a closed channel or a peer that does not read its notices ejects the seat and the game
// goes on. The game ends on its own (a win), by its deadline (stall, time limit), or when every
// seat is out. In-process players (Racer) run on their own threads over loopback channels, so
// they see exactly the wire messages a remote player sees.
//
// The log (GameLog), one object a line:
//   {"type":"match","game","seed","config","seats":[names],"style":"realtime","format":1}
//   {"type":"setup","seat","message"}                 what each seat was told at the start
//   {"type":"message","seat","ticket","at_us","message"}   an arrival, in ticket order
//   {"type":"notice","seat","message"}                what the game pushed in reply
//   {"type":"fault","seat","why","call","detail","at_us"}  a channel fault (not derived from a
//   message)
//   {"type":"ejection","seat","why","call","detail"}  every ejection, derived ones included
//   {"type":"end","at_us","ending"}                   when and why the game ended
//   {"type":"result",...}                             as for every style (referee/match.h)
// at_us is part of the record, not timing noise: the game's decisions depend on it. Replay
// (replay_realtime) feeds the messages, faults and end back through the same code and checks
// that it writes the same log.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/channel.h"
#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "core/protocol.h"
#include "core/racer.h"
#include "core/realtime.h"
#include "core/rng.h"
#include "referee/game_log.h"
#include "referee/match.h"
#include "referee/replay.h"

namespace arbiter {

struct RealtimeOptions {
  const Clock* clock = &SteadyClock::instance();
  GameLog* log = nullptr;
  // A seat that does not take a notice off its channel within this long is out (timeout); a
  // seat's own limit where `seat_send_timeout` has one (a tournament entrant's per_call).
  Duration send_timeout = std::chrono::seconds(2);
  std::vector<std::optional<Duration>> seat_send_timeout;
  Duration send_timeout_of(Seat p) const {
    const auto i = static_cast<std::size_t>(p);
    return i < seat_send_timeout.size() && seat_send_timeout[i] ? *seat_send_timeout[i]
                                                                : send_timeout;
  }
  int max_rate = 200;  // messages per second per seat; one more ejects (foul "flood")
  // For in-process seats' loopback channels (remote channels carry their own).
  ChannelLimits limits;
  // The order in which seats are sent their setup (empty: seat order). A start line has to be
  // crossed in some order; the registry draws it from the match seed so that no seat is first
  // by construction.
  std::vector<Seat> setup_order;
  // Where one arrival makes notices for several seats (a tile for everyone), the seats are sent
  // theirs in an order drawn afresh from this seed for every batch: whoever is told first gets a
  // head start on a busy machine, so no seat may be first by construction. Only the sending
  // order is drawn; the log keeps the game's order, so replay does not depend on it.
  std::uint64_t notice_order_seed = 0;
};

// One seat: either a remote channel (the referee's end), or an in-process racer, or nothing
// (a seat that could not be started: ejected at once with `failed`).
struct RealtimeSeat {
  std::string name;
  std::unique_ptr<Channel> channel;
  std::shared_ptr<Racer> racer;
  std::function<void()> disconnect;  // remote seats: at the end, kill the process
  std::function<void()> ejected;     // remote seats: after an ejection, stop the process
  std::optional<Ejection> failed;
};

namespace detail {

inline std::int64_t micros(Duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

// Messages to send: (seat, wire message).
using Sends = std::vector<std::pair<Seat, Json>>;

// The order in which to send a batch (indices into `sends`): the seats in an order drawn from
// `rng`, each seat's messages in the order they were made.
inline std::vector<std::size_t> sending_order(const Sends& sends, Rng& rng) {
  std::vector<Seat> seats;
  for (const auto& [p, m] : sends)
    if (std::find(seats.begin(), seats.end(), p) == seats.end()) seats.push_back(p);
  if (seats.size() > 1) rng.shuffle(seats.begin(), seats.end());
  std::vector<std::size_t> order;
  order.reserve(sends.size());
  for (Seat q : seats)
    for (std::size_t i = 0; i < sends.size(); ++i)
      if (sends[i].first == q) order.push_back(i);
  return order;
}

// The deterministic part of the referee: given arrivals, faults and time, it drives the game,
// decides ejections and writes the log. The live referee and the replay share it.
template <RealtimeGame G>
class RealtimeCore {
 public:
  RealtimeCore(typename G::State& state, GameLog* log, int seats, int max_rate)
      : state_(state), log_(log), max_rate_(max_rate), recent_(seats), out_(seats, false) {}

  // The live referee sends the Sends and reports failures back through fault().
  using Sends = detail::Sends;

  Sends setup() {
    Sends sends;
    for (Seat p : state_.seats()) {
      Json m = G::encode_setup(state_.view(p));
      write({{"type", "setup"}, {"seat", p}, {"message", m}});
      sends.emplace_back(p, std::move(m));
    }
    return sends;
  }

  bool in(Seat p) const { return !out_[p] && !state_.over(); }
  // Not ejected: still told things, also the notices of the message that ended the game.
  bool connected(Seat p) const { return !out_[p]; }

  // An arrival. The game first catches up with time (it may have ended before `at`).
  Sends message(Seat p, std::uint64_t ticket, Duration at, const Json& message) {
    Sends sends;
    tick(at);
    if (!in(p)) return sends;
    // A replayed record of a long malformed message stands for that message (logged_message).
    const std::optional<std::string> replayed = replayed_malformed(message);
    auto decoded =
        replayed ? Expected<typename G::Message>(fail(*replayed)) : G::decode_message(message);
    write(
        {{"type", "message"},
         {"seat", p},
         {"ticket", ticket},
         {"at_us", micros(at)},
         {"message", replayed ? message
                              : logged_message(message, decoded ? std::nullopt
                                                                : std::optional<std::string>(
                                                                      decoded.error().message))}});
    auto& window = recent_[p];
    window.push_back(at);
    while (!window.empty() && window.front() <= at - std::chrono::seconds(1)) window.pop_front();
    if (static_cast<int>(window.size()) > max_rate_) {
      eject(p, Why::foul, "message",
            fmt::format("flood: more than {} messages in a second", max_rate_));
      return sends;
    }
    if (!decoded) {
      eject(p, Why::malformed, "message", decoded.error().message);
      return sends;
    }
    auto reaction = state_.receive(p, *decoded, at);
    for (auto& [seat, notice] : reaction.notices) {
      if (out_[seat]) continue;
      Json m = G::encode(notice);
      write({{"type", "notice"}, {"seat", seat}, {"message", m}});
      sends.emplace_back(seat, std::move(m));
    }
    if (reaction.foul)
      eject(p, Why::foul, "message",
            fmt::format("{}: {}", reaction.foul->code, reaction.foul->detail));
    if (state_.over()) end(at);
    return sends;
  }

  // A channel fault or a failed send: not derived from a message, so the log records it.
  void fault(Seat p, Why why, std::string call, std::string detail, Duration at) {
    if (out_[p] || state_.over()) return;
    write({{"type", "fault"},
           {"seat", p},
           {"why", to_string(why)},
           {"call", call},
           {"detail", detail},
           {"at_us", micros(at)}});
    eject(p, why, std::move(call), std::move(detail));
    if (state_.over()) end(at);
  }

  void tick(Duration at) {
    if (state_.over()) return;
    state_.tick(at);
    if (state_.over()) end(at);
  }

  MatchResult result(const std::vector<bool>& told_win) const {
    MatchResult r;
    const Standings s = state_.standings();
    for (Seat w : s.winners)
      if (told_win[w]) r.winners.push_back(w);
    r.ejections = ejections_;
    r.scores = s.scores;
    return r;
  }

  const std::vector<Ejection>& ejections() const { return ejections_; }
  void write(const Json& line) {
    if (log_) log_->write(line);
  }

 private:
  void eject(Seat p, Why why, std::string call, std::string detail) {
    out_[p] = true;
    Ejection e{p, why, std::move(call), std::move(detail)};
    write({{"type", "ejection"},
           {"seat", p},
           {"why", to_string(e.why)},
           {"call", e.call},
           {"detail", e.detail}});
    ejections_.push_back(std::move(e));
    state_.eject(p);
  }
  void end(Duration at) {
    if (ended_) return;
    ended_ = true;
    write({{"type", "end"}, {"at_us", micros(at)}});
  }

  typename G::State& state_;
  GameLog* log_;
  int max_rate_;
  std::vector<std::deque<Duration>> recent_;
  std::vector<bool> out_;
  std::vector<Ejection> ejections_;
  bool ended_ = false;
};

}  // namespace detail

// Runs a match of the real-time game G to its end. `state` is the dealt game; seats[p] plays
// seat p. Every in-process racer's thread has been joined when this returns.
template <RealtimeGame G>
MatchResult run_realtime(typename G::State& state, std::vector<RealtimeSeat>& seats,
                         const RealtimeOptions& options) {
  using namespace std::chrono_literals;
  const Clock& clock = *options.clock;
  const int n = static_cast<int>(seats.size());
  detail::RealtimeCore<G> core(state, options.log, n, options.max_rate);

  // In-process racers get a loopback channel and a thread.
  std::vector<std::unique_ptr<Channel>> racer_ends(n);
  std::vector<std::thread> racers;
  for (int p = 0; p < n; ++p) {
    if (!seats[p].racer || seats[p].failed) continue;
    auto [ours, theirs] = loopback_pair(options.limits);
    seats[p].channel = std::move(ours);
    racer_ends[p] = std::move(theirs);
    racers.emplace_back([racer = seats[p].racer, end = racer_ends[p].get()] {
      ChannelLink link(*end);
      try {
        racer->race(link);
      } catch (...) {
      }
      end->close();
    });
  }

  const Instant t0 = clock.now();
  auto since = [&] { return clock.now() - t0; };
  std::vector<bool> told_win(n, false);
  auto send = [&](Seat p, const Json& m, const char* call) {
    if (!seats[p].channel) return false;
    auto ok = seats[p].channel->send(m, Deadline::after(clock, options.send_timeout_of(p)));
    if (!ok) core.fault(p, ok.error().why, call, ok.error().detail, since());
    return static_cast<bool>(ok);
  };
  Rng notice_order(options.notice_order_seed);
  auto send_all = [&](const detail::Sends& sends) {
    for (std::size_t i : detail::sending_order(sends, notice_order))
      if (core.connected(sends[i].first)) send(sends[i].first, sends[i].second, "notice");
  };

  // An ejected seat is cut off at once: told why (best effort), its channel closed (its reader
  // ends), its process stopped.
  std::size_t cut = 0;
  auto cut_off_ejected = [&] {
    for (; cut < core.ejections().size(); ++cut) {
      const Ejection& e = core.ejections()[cut];
      RealtimeSeat& seat = seats[e.seat];
      if (seat.channel) wire::tell_ejected(*seat.channel, e);
      if (seat.ejected) std::exchange(seat.ejected, nullptr)();
    }
  };

  auto setup = core.setup();
  for (int p = 0; p < n; ++p)
    if (seats[p].failed) core.fault(p, seats[p].failed->why, "setup", seats[p].failed->detail, 0ns);
  std::vector<Seat> order = options.setup_order;
  if (order.size() != static_cast<std::size_t>(n)) {
    order.resize(n);
    for (int p = 0; p < n; ++p) order[p] = p;
  }
  for (Seat p : order)
    for (const auto& [seat, m] : setup)
      if (seat == p && core.in(p)) send(p, m, "setup");
  cut_off_ejected();

  // Readers: one per seat, stamping arrivals under the inbox lock.
  struct Arrival {
    Seat seat;
    std::uint64_t ticket;
    Instant stamp;
    ChannelResult<Json> message;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Arrival> inbox;
  std::uint64_t tickets = 0;
  std::vector<std::thread> readers;
  for (int p = 0; p < n; ++p) {
    if (!seats[p].channel || !core.in(p)) continue;
    readers.emplace_back([&, p, channel = seats[p].channel.get()] {
      for (;;) {
        auto m = channel->receive(Deadline::after(SteadyClock::instance(), 24h));
        if (!m && m.error().why == Why::timeout) continue;
        const bool last = !m;
        {
          std::lock_guard lock(mu);
          inbox.push_back({p, tickets++, clock.now(), std::move(m)});
        }
        cv.notify_one();
        if (last) return;
      }
    });
  }

  while (!state.over()) {
    std::optional<Arrival> next;
    {
      std::unique_lock lock(mu);
      const Duration wait = std::min<Duration>(state.deadline() - since(), 20ms);
      if (inbox.empty() && wait > 0ns) cv.wait_for(lock, wait, [&] { return !inbox.empty(); });
      if (!inbox.empty()) {
        next = std::move(inbox.front());
        inbox.pop_front();
      }
    }
    if (!next) {
      core.tick(since());
      continue;
    }
    const Duration at = next->stamp - t0;
    if (!next->message) {
      core.tick(at);
      core.fault(next->seat, next->message.error().why, "message", next->message.error().detail,
                 at);
    } else {
      send_all(core.message(next->seat, next->ticket, at, *next->message));
    }
    cut_off_ejected();
  }

  const Standings standings = state.standings();
  for (Seat p : state.seats()) {
    const bool won =
        std::find(standings.winners.begin(), standings.winners.end(), p) != standings.winners.end();
    if (seats[p].channel &&
        seats[p].channel->send(Json::array({"win", Json::array({won})}),
                               Deadline::after(clock, options.send_timeout_of(p))))
      told_win[p] = true;
  }
  for (auto& seat : seats) {
    if (seat.channel) seat.channel->close();
    if (seat.disconnect) seat.disconnect();
  }
  for (auto& t : readers) t.join();
  for (auto& t : racers) t.join();
  MatchResult result = core.result(told_win);
  core.write(encode_result(result));
  return result;
}

// Replays a real-time match from its log: the dealt `state` (from the logged seed and config)
// is driven by the logged arrivals, faults and end, through the same code as the live referee,
// which writes a new log; the report says whether it matches the recorded one. Which seats heard
// their win is taken from the recorded result (it is the only thing replay cannot re-derive).
template <RealtimeGame G>
ReplayReport replay_realtime(typename G::State& state, const std::vector<Json>& lines) {
  ReplayReport report;
  GameLog log(nullptr, true);
  int seats = 0;
  std::vector<bool> told_win;
  for (const Json& line : lines)
    if (string_or(line, "type") == "match") {
      log.write(line);
      const Json names = field_or_null(line, "seats");
      seats = names.is_array() ? static_cast<int>(names.size()) : 0;
    }
  told_win.assign(seats, false);
  detail::RealtimeCore<G> core(state, &log, seats,
                               static_cast<int>(int_or(
                                   [&] {
                                     for (const Json& line : lines)
                                       if (string_or(line, "type") == "match")
                                         return field_or_null(line, "config");
                                     return Json();
                                   }(),
                                   "max_rate", 200)));
  core.setup();
  auto in_range = [&](std::int64_t seat) { return seat >= 0 && seat < seats; };
  for (const Json& line : lines) {
    const std::string type = string_or(line, "type");
    const std::int64_t seat = int_or(line, "seat", -1);
    const Duration at = std::chrono::microseconds(int_or(line, "at_us", 0));
    if (type == "message" && in_range(seat)) {
      ++report.calls;
      core.message(static_cast<Seat>(seat), static_cast<std::uint64_t>(int_or(line, "ticket", 0)),
                   at, field_or_null(line, "message"));
    } else if (type == "fault" && in_range(seat)) {
      const auto why = why_from_string(string_or(line, "why"));
      core.fault(static_cast<Seat>(seat), why.value_or(Why::exception), string_or(line, "call"),
                 string_or(line, "detail"), at);
    } else if (type == "end") {
      core.tick(at);
    } else if (type == "result") {
      const Json winners = field_or_null(line, "winners");
      if (winners.is_array())
        for (const Json& w : winners)
          if (w.is_number_integer() && in_range(w.get<std::int64_t>()))
            told_win[w.get<int>()] = true;
    }
  }
  report.result = core.result(told_win);
  core.write(encode_result(report.result));
  if (auto diff = first_difference(lines, log.lines()))
    report.difference = *diff;
  else
    report.identical = true;
  return report;
}

}  // namespace arbiter
