// ProcHostLoad: core/host_load.h read from this machine's /proc. A sampler thread reads the CPU
// pressure counter (/proc/pressure/cpu, "some ... total=" in microseconds) and the steal and
// total ticks of /proc/stat's first line every 50 ms and keeps the last 20 minutes; a window is
// measured from the last sample at or before its start to a reading taken then. Nothing is read
// on the referee's path until a call times out.
#pragma once

#include <optional>

#include "core/host_load.h"
#include "core/json.h"

namespace arbiter {

class ProcHostLoad final : public HostLoad {
 public:
  // The process's monitor, started on first use; null where the kernel has no CPU pressure to
  // read (available() says why).
  static const ProcHostLoad* instance();
  static Expected<void> available();

  std::optional<LoadReading> over_last(Duration window) const override;

  struct Sample;  // host_load.cpp
  struct Ring;

 private:
  ProcHostLoad();
  Ring* ring_;  // lives as long as the process (its sampler thread is never joined)
};

}  // namespace arbiter
