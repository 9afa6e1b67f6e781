// Standings: how a finished game ranks the seats still in it. Ejected seats are not listed; the
// referee reports them separately, in elimination order.
#pragma once

#include <cstdint>
#include <vector>

#include "core/seat.h"

namespace arbiter {

struct Standings {
  Seats winners;                     // in the order the game announces results to them
  Seats losers;                      // likewise, announced after the winners
  std::vector<std::int64_t> scores;  // by seat, for every seat of the roster (0 if scoreless)
  friend bool operator==(const Standings&, const Standings&) = default;
};

}  // namespace arbiter
