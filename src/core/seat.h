// Seat: a player's place in one match, the index into the match's roster (0-based, in the order
// the players were given). Seats are stable for the whole match, also after an ejection.
#pragma once

#include <cstdint>
#include <vector>

namespace arbiter {

using Seat = std::int32_t;
using Seats = std::vector<Seat>;

}  // namespace arbiter
