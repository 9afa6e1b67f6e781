#include "games/dominosa/bots.h"

#include <chrono>

#include "games/dominosa/game.h"
#include "games/dominosa/solver.h"

namespace arbiter::dominosa {

void PuzzleRacer::race(Link& link) {
  using namespace std::chrono_literals;
  auto first = link.receive(Deadline::after(clock_, 1h));
  if (!first) return;
  auto view = DominosaRace::decode_setup(*first);
  if (!view) return;
  const SolveResult r = solve(view->puzzle, 1);
  if (!r.first) return;
  const Deadline ready = Deadline::after(clock_, spec_.delay);
  while (!ready.passed()) {  // wait, but leave at once if the race is over
    auto m = link.receive(ready);
    if (m && m->is_array() && !m->empty() && (*m)[0] == "win") return;
    if (!m && link.closed()) return;
  }
  if (!link.send(DominosaRace::encode(*r.first))) return;
  while (auto m = link.receive(Deadline::after(clock_, 1h)))
    if (m->is_array() && !m->empty() && (*m)[0] == "win") return;
}

}  // namespace arbiter::dominosa
