// Player: the referee protocol as an interface, one method per wire message (named as on the
// wire). Implementations: house bots in process, RemotePlayer (codec over a Channel), and the
// replay player. The referee calls a Player only through guarded_call (referee/guarded_call.h),
// which turns a throw, a timeout or a hang into an Ejection; implementations need not be
// defensive about the referee, and the referee is never defensive about them elsewhere.
// Thread-safety: the referee calls one Player from one thread at a time, never concurrently.
#pragma once

#include <stdexcept>
#include <string>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/rules.h"

namespace arbiter {

// Thrown by a Player implementation to report misbehaviour it detected on its side of the
// boundary with a specific reason (RemotePlayer: garbage on the wire is Why::malformed, a closed
// pipe Why::hang_up; the replay player: the recorded verdict). Any other exception from a player
// counts as Why::exception.
class PlayerFault : public std::runtime_error {
 public:
  PlayerFault(Why why, const std::string& detail) : std::runtime_error(detail), why_(why) {}
  Why why() const { return why_; }

 private:
  Why why_;
};

template <Rules G>
class Player {
 public:
  virtual ~Player() = default;

  // The name the player goes by in results (for remote players: the name it signed up with).
  virtual std::string name() = 0;

  // The game begins; `view` is all this seat may know (for games with hands: its hand too).
  // Games with a G::Setup (SetsUp) expect the seat's setup choice back; the others nothing.
  virtual SetupOf_t<G> setup(const typename G::View& view) = 0;

  // The seat's move in the position `view`.
  virtual typename G::Action take_turn(const typename G::View& view) = 0;

  // Games with hands: tiles dealt to this seat after its action was applied.
  virtual void new_tiles(const HandOf_t<G>& tiles) { (void)tiles; }

  // The game is over; `won` says whether this seat is among the winners.
  virtual void win(bool won) = 0;

  // Not protocol messages: how the referee hosts the player.
  // False for players whose calls bound themselves by call_deadline() (core/interrupt.h), such
  // as remote players doing deadline-bounded I/O: the referee calls them on its own thread
  // instead of an abandonable one.
  virtual bool in_process() const { return true; }
  // The meter of the CPU time the player's own processes use (a program's cgroup), for players
  // that are not in process; null where there is none (a tcp client, a machine without cgroups).
  // In-process players are measured on the thread that runs their calls.
  virtual const CpuMeter* cpu_meter() const { return nullptr; }
  // Called by the referee itself (never through guarded_call) on players that are not in
  // process, when it is done with the seat at the end of the match. Closes connections, kills
  // processes. Must not block for long.
  virtual void disconnect() {}
  // The same, right after the seat's ejection: tells the player why (best effort, without
  // waiting for it) before it is cut off.
  virtual void ejected(const Ejection& ejection) {
    (void)ejection;
    disconnect();
  }
};

}  // namespace arbiter
