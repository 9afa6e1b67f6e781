// Player: the referee protocol as an interface, one method per wire message (named as on the
// wire). Implementations: house bots in process, RemotePlayer (codec over a Channel), and the
// replay player. The referee calls a Player only through guarded_call (referee/guarded_call.h),
// which turns a throw, a timeout or a hang into an Ejection; implementations need not be
// defensive about the referee, and the referee is never defensive about them elsewhere.
// Thread-safety: the referee calls one Player from one thread at a time, never concurrently.
#pragma once

#include <string>

#include "core/rules.h"

namespace arbiter {

template <Rules G>
class Player {
 public:
  virtual ~Player() = default;

  // The name the player goes by in results (for remote players: the name it signed up with).
  virtual std::string name() = 0;

  // The game begins; `view` is all this seat may know (for games with hands: its hand too).
  virtual void setup(const typename G::View& view) = 0;

  // The seat's move in the position `view`.
  virtual typename G::Action take_turn(const typename G::View& view) = 0;

  // Games with hands: tiles dealt to this seat after its action was applied.
  virtual void new_tiles(const HandOf_t<G>& tiles) { (void)tiles; }

  // The game is over; `won` says whether this seat is among the winners.
  virtual void win(bool won) = 0;
};

}  // namespace arbiter
