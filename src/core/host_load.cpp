#include "core/host_load.h"

#include <cmath>

#include <fmt/format.h>

namespace arbiter {

std::string LoadReading::describe() const {
  return fmt::format("CPU pressure {} %, steal {} %", std::lround(pressure * 100),
                     std::lround(steal * 100));
}

}  // namespace arbiter
