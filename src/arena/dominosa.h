// The Dominosa race's entry in the game list (arena/registry.h): a real-time race
// (arena/realtime_entry.h).
#pragma once

#include "arena/registry.h"

namespace arbiter {

GameEntry dominosa_entry();

}  // namespace arbiter
