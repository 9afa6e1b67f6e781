// The Dominosa race's house racer (docs/games/dominosa.md §5): solves the puzzle with the exact
// solver and submits, at once ("solver") or after a delay ("slow", "slow=SECONDS").
#pragma once

#include <string>

#include "core/clock.h"
#include "core/racer.h"

namespace arbiter::dominosa {

// The house racer: solves the puzzle with the exact solver and submits (after spec.delay).
class PuzzleRacer final : public Racer {
 public:
  PuzzleRacer(std::string name, RacerSpec spec, const Clock& clock = SteadyClock::instance())
      : name_(std::move(name)), spec_(spec), clock_(clock) {}
  std::string name() override { return name_; }
  void race(Link& link) override;

 private:
  std::string name_;
  RacerSpec spec_;
  const Clock& clock_;
};

}  // namespace arbiter::dominosa
