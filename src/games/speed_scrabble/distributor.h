// Speed Scrabble's tile distributor (docs/games/speed_scrabble.md §2, the seed design): every
// player's tiles are dealt before the game and never change; one flag per ordinal, valid[k], says
// that somebody submitted a valid k-board, which unlocks ordinal k+1 for every player at once.
// There are no shared counters and no locks: reading a tile is one acquire load, unlocking one
// release exchange, so any number of threads (the referee, in-process house bots) may read while
// the referee unlocks.
//
// Semantics, exactly (k is a 1-based ordinal, `start` the tiles everybody holds from the start):
// - try_get_tile(k, p) is player p's tile k iff 1 <= k <= hand, 0 <= p < players and
//   (k <= start or valid[k-1]). It looks at valid[k-1] alone, as in the seed design.
// - unlock(k) sets valid[k] and nothing else (1 <= k <= hand; anything else is ignored).
// - So an out-of-order unlock, say unlock(9) while valid[8] is still clear (start 7), makes
//   ordinal 10 readable through try_get_tile but not ordinal 9: availability is per ordinal, and
//   a gap is possible. The game never creates one (a valid 9-board needs tile 9, which needs
//   valid[8]), but the distributor does not rely on that. The two prefix-shaped views hide gaps:
//   available() is the longest gap-free prefix, and a TileCursor only ever hands out a gap-free
//   prefix, so it waits at 9 and hands out 9 and 10 together once unlock(8) arrives.
// - Entitlement only grows: a flag, once set, is never cleared; unlocking again changes nothing.
//
// Memory order: unlock writes its flag with release ordering and try_get_tile (and available,
// is_unlocked) read with acquire ordering, so whatever the thread that set valid[k] wrote before
// its unlock(k) (a log record, the validator's state) is visible to any thread that has since
// got tile k+1. The tiles themselves are written only by the constructor: build the Distributor
// before the threads that read it start (or hand it over with some other synchronization).
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/seat.h"

namespace arbiter::speed_scrabble {

class Distributor {
 public:
  // dealt[p]: player p's tiles in ordinal order (ordinal 1 = dealt[p][0]), all the same length,
  // hand >= 1. start: how many tiles every player sees at once, 1..hand. Throws
  // std::invalid_argument otherwise (no players, ragged or empty hands, start out of range).
  Distributor(std::vector<std::string> dealt, int start);

  Distributor(const Distributor&) = delete;
  Distributor& operator=(const Distributor&) = delete;

  int players() const { return players_; }
  int hand() const { return hand_; }
  int start() const { return start_; }

  // Player p's tile with ordinal k (1-based) if it is unlocked: k <= start, or valid[k-1] is
  // set. Nothing for a locked tile, k outside 1..hand or p outside 0..players-1. Wait-free, any
  // thread.
  std::optional<char> try_get_tile(int k, Seat p) const {
    if (k < 1 || k > hand_ || p < 0 || p >= players_) return std::nullopt;
    if (k > start_ && !valid_[k - 1].load(std::memory_order_acquire)) return std::nullopt;
    return tiles_[static_cast<std::size_t>(p) * hand_ + (k - 1)];
  }

  // A valid k-board was accepted: sets valid[k], so ordinal k+1 becomes available to everyone.
  // Idempotent; k outside 1..hand is ignored (unlock(hand), the winning board, unlocks nothing
  // but is recorded). Returns whether this call set the flag (false if it was already set or k
  // is out of range). Wait-free, any thread.
  bool unlock(int k);

  // Whether valid[k] is set (false for k outside 1..hand). Wait-free, any thread.
  bool is_unlocked(int k) const {
    return k >= 1 && k <= hand_ && valid_[k].load(std::memory_order_acquire);
  }

  // The highest ordinal n such that every ordinal 1..n is available: start, plus one for each
  // of valid[start], valid[start+1], ... that is set, up to the first clear one. A gap stops it:
  // with start 7 and valid[7], valid[9] set (valid[8] clear) it is 8, although ordinal 10 is
  // available. Wait-free (at most hand loads), any thread.
  int available() const;

  // All of player p's tiles, locked or not: for the validator, which checks a k-board against
  // the first k tiles actually dealt (REQUIRES: 0 <= p < players). Never changes.
  std::string_view dealt(Seat p) const {
    return std::string_view(tiles_).substr(static_cast<std::size_t>(p) * hand_, hand_);
  }

 private:
  int players_;
  int hand_;
  int start_;
  std::string tiles_;                     // player p's tile k at p * hand + k - 1; immutable
  std::vector<std::atomic<bool>> valid_;  // valid_[k] for k in 1..hand; valid_[0] unused
};

// A per-player cursor: the next ordinal the player has not taken yet; it advances only on
// success. Owned by one thread (the player's); the Distributor it reads may be shared.
class TileCursor {
 public:
  // The tiles newly available to p since the last call, in ordinal order (possibly several:
  // catching up; the first call returns at least the start tiles), advancing the cursor past
  // them. Stops at the first ordinal that is not available, so it never skips over a gap.
  // Empty for a bad seat. Use one cursor with one distributor and one seat.
  std::string take_new(const Distributor& d, Seat p);

  // The ordinal take_new will try first (1 before the first call; hand + 1 once all are taken).
  int next() const { return next_; }

 private:
  int next_ = 1;
};

}  // namespace arbiter::speed_scrabble
