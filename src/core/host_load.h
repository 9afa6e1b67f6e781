// HostLoad: how overloaded the machine was while a call ran, so that a timeout the player did
// not cause is not held against it. Two signs, each a share of the call's wall-clock time:
//  - pressure: the kernel's CPU pressure (PSI, /proc/pressure/cpu "some"): the share of time in
//    which some runnable task waited for a CPU;
//  - steal: the share of the CPUs' time the hypervisor gave to other machines (/proc/stat).
// A timeout is the host's doing when the host was overloaded during the call and the seat was
// deprived() of a CPU (a seat whose CPU time is unknown, a tcp client, never is). Injected into the
// referee (RefereeOptions::host_load) like its clock; remote/host_load.h reads the real machine.
#pragma once

#include <optional>
#include <string>

#include "core/clock.h"

namespace arbiter {

// Overloaded: at least a quarter of the call's time some task waited for a CPU, or at least a
// tenth of the CPUs' time was stolen.
inline constexpr double kOverloadPressure = 0.25;
inline constexpr double kOverloadSteal = 0.10;

// Whether a seat that used `cpu` of CPU time in `wall` of wall-clock time was kept from a CPU it
// wanted: it computed (at least 5 % of the time; a program sleeping or waiting for I/O was not
// held up by the load) but got less than 90 % of one CPU.
inline bool deprived(Duration cpu, Duration wall) {
  if (wall <= Duration::zero()) return false;
  const double share = static_cast<double>(cpu.count()) / static_cast<double>(wall.count());
  return share >= 0.05 && share < 0.9;
}

struct LoadReading {
  double pressure = 0;  // 0..1
  double steal = 0;     // 0..1
  bool overloaded() const { return pressure >= kOverloadPressure || steal >= kOverloadSteal; }
  std::string describe() const;  // "CPU pressure 83 %, steal 0 %"
};

class HostLoad {
 public:
  virtual ~HostLoad() = default;
  // The load over the last `window` of wall-clock time (ending now); nullopt when unknown.
  // Thread-safe.
  virtual std::optional<LoadReading> over_last(Duration window) const = 0;
};

}  // namespace arbiter
