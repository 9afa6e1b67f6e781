// Deadline shorthands for the transport tests.
#pragma once

#include <chrono>

#include "core/clock.h"

namespace arbiter::testing_time {

using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;

// A deadline `d` from now on the real clock.
inline Deadline in(Duration d) {
  return Deadline::after(SteadyClock::instance(), d);
}

// Whole milliseconds since `start`.
inline Ms since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - start);
}

}  // namespace arbiter::testing_time
