// Speed Scrabble's house racers (docs/games/speed_scrabble.md §4): `solver` builds a board from its
// tiles as fast as it can and extends it as tiles arrive; `slow` is the same solver waiting a
// fixed time before every submission (for tests and demos). They play over a Link (core/racer.h),
// in process or as the external program speed-scrabble-bot.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/json.h"
#include "core/racer.h"
#include "core/seat.h"
#include "games/speed_scrabble/distributor.h"
#include "games/speed_scrabble/solver.h"

namespace arbiter::speed_scrabble {

// Where a racer's solver index comes from: shared (in process: built once per match), or built
// from the dictionary the setup message names (an external program).
class SolverRacer final : public Racer {
 public:
  // `index`: null to load the setup's dictionary. `tiles`, `seat`: in process, the match's
  // distributor, read directly from the racer's thread (new-tiles notices then only wake it);
  // null to take tiles from the notices.
  SolverRacer(std::string name, RacerSpec spec, std::shared_ptr<const SolverIndex> index,
              std::shared_ptr<const Distributor> tiles = nullptr, Seat seat = 0,
              const Clock& clock = SteadyClock::instance());

  std::string name() override { return name_; }
  void race(Link& link) override;

 private:
  std::string name_;
  RacerSpec spec_;
  std::shared_ptr<const SolverIndex> index_;
  std::shared_ptr<const Distributor> distributor_;
  Seat seat_;
  const Clock& clock_;
};

}  // namespace arbiter::speed_scrabble
