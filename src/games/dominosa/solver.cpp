// The Dominosa solver and grader (docs/games/dominosa.md §3, §5).
//
// Model. A *placement* is an orthogonally adjacent pair of cells; its domino is fixed by the two
// values, so placements are the edges of the grid graph, each labelled with a domino. A solution
// picks a perfect matching of the grid graph that uses every domino label exactly once. The state
// is the set of placements still alive; deductions only remove placements (placing one removes
// every overlapping placement and every other placement of its domino), and a trail undoes them
// for search.
//
// Deductions (each a sound rule; the levels of §3 are sets of them, see rules_for):
//   trivial  a cell or a domino with one placement left takes it.
//   basic    (local) a cell whose placements are all one domino D: D's other placements go; every
//            placement of D overlaps P: P goes; P goes when placing it would leave a neighbouring
//            cell nothing (its placements all overlap P or are copies of P's domino);
//            (bridges) in the graph of unplaced cells and alive placements a component of odd
//            size is a contradiction, a bridge with even sides goes, one with odd sides is placed.
//   hard     per value k, Hall filtering between the k-cells that cannot take the double (k,k)
//            and the non-double dominoes (k,j) (each covers exactly one k-cell): a maximum
//            matching, then Régin's alternating-path / strongly-connected-component test removes
//            every (cell, domino) pair that lies in no matching saturating those cells, and
//            removes from the remaining k-cells the dominoes that every such matching uses. This
//            is the fixpoint of the naked-subset rule ("m cells only form m dominoes") without
//            the double, where it would be unsound.
//   extreme  double-aware Hall per value: all n+2 k-cells against the n non-double dominoes
//            (capacity 1) and the double (capacity 2, two copies): a perfect assignment, pairs in
//            none are removed. Forcing chains: a cell with exactly two placements links them as
//            "exactly one"; the links form parity classes (union-find with parity), a class that
//            would place one domino twice or overlap itself is false and all its placements go.
//   (search) perfect-matching pruning of the grid graph: with a perfect matching in hand, a
//            placement outside it lies in some perfect matching iff its ends are in one strongly
//            connected component of the alternating graph (Dulmage–Mendelsohn); others go.
// The solver propagates local + double-aware Hall + perfect-matching pruning (which imply bridges
// and single Hall) from work queues: local rules per changed cell/domino, Hall per changed value,
// the global passes only when the state changed since their last run, cheapest first. Grading
// runs the levels in turn, each from the previous level's fixpoint (the rules are monotone), and
// never searches: deductions that finish a puzzle prove it unique.
//
// Search (solve): binary branching on a placement of the cell or domino with the fewest
// placements per conflict weight (dom/wdeg), randomized ties from a fixed seed (deterministic),
// restarts on a Luby schedule with nogood recording so that the search stays complete and counts
// exactly (see solve()). Random layouts are hard instances: Dominosa is NP-complete and a random
// layout's solutions are the planted tiling and a few local variants, so the search time grows
// exponentially with n (bench/dominosa_bench.cpp); generated puzzles solve by propagation alone.
#include "games/dominosa/solver.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/solver_internal.h"

namespace arbiter::dominosa {
namespace {

constexpr unsigned kTrivialRules = 0;
constexpr unsigned kBasicRules = kLocal | kBridges;
constexpr unsigned kHardRules = kBasicRules | kHallSingle;
constexpr unsigned kExtremeRules = kHardRules | kHallDouble | kChains;
constexpr unsigned kAllRules = kExtremeRules | kMatching;
// Search: bridges and single Hall are implied by matching pruning and double Hall.
constexpr unsigned kSearchRules = kLocal | kHallDouble | kMatching;

unsigned rules_for(Level level) {
  switch (level) {
    case Level::trivial:
      return kTrivialRules;
    case Level::basic:
      return kBasicRules;
    case Level::hard:
      return kHardRules;
    case Level::extreme:
      return kExtremeRules;
    case Level::ambiguous:
      break;
  }
  return kAllRules;
}

}  // namespace

// Search: binary branching (place a placement / remove it) from the fixpoint of the search
// rules, dom/wdeg variable choice, restarts on a Luby schedule. At each restart the explored part
// of the tree is kept as nogoods (reduced nld-nogoods: for each right branch "not e" on the path,
// the placements decided before it plus e cannot all hold), so the search stays complete and
// counts every solution once: a solution is a leaf that is backtracked from like a failure, and
// the nogoods of the next restart exclude it.
SolveResult solve(const Puzzle& p, std::int64_t limit, const SolveLimits& limits) {
  SolveResult r;
  limit = std::max<std::int64_t>(limit, 1);
  Engine eng(p);
  if (!eng.valid()) return r;
  eng.set_rules(kSearchRules);
  if (!eng.propagate()) return r;
  auto record = [&] {
    ++r.count;
    if (!r.first) {
      r.first = eng.solution();
    } else if (!r.second) {
      r.second = eng.solution();
    }
  };
  if (eng.unplaced() == 0) {
    record();
    return r;
  }
  eng.enable_search();
  Rng rng(0x646f6d696e6f7361ULL);  // fixed: the same puzzle is always searched alike
  struct Decision {
    std::size_t mark;  // trail before the decision
    int e;
    bool positive;  // placed (left branch) or removed (right branch)
    int cell, dom;  // the variable chosen
  };
  std::vector<Decision> path;
  std::vector<int> nogood;
  std::size_t root = eng.mark();
  for (std::int64_t run = 1;; ++run) {
    const std::int64_t cutoff = limits.restart_nodes > 0 ? limits.restart_nodes * luby(run)
                                                         : std::numeric_limits<std::int64_t>::max();
    std::int64_t run_nodes = 0;
    bool failed = false;  // the current node is a contradiction or a counted solution
    for (;;) {
      if (failed) {
        while (!path.empty() && !path.back().positive) path.pop_back();
        if (path.empty()) return r;  // exhausted: the count is exact
        Decision& d = path.back();
        eng.undo(d.mark);
        d.positive = false;
        if (limits.max_nodes >= 0 && r.nodes >= limits.max_nodes) {
          r.complete = false;
          return r;
        }
        ++r.nodes;
        ++run_nodes;
        eng.set_choice(d.cell, d.dom);
        failed = !eng.refute(d.e);
        if (failed) eng.bump();
      } else if (eng.unplaced() == 0) {
        record();
        if (r.count >= limit) return r;
        run_nodes = 0;  // a productive run goes on: nearby solutions come cheaply
        failed = true;
      } else if (run_nodes >= cutoff) {
        break;  // restart
      } else {
        if (limits.max_nodes >= 0 && r.nodes >= limits.max_nodes) {
          r.complete = false;
          return r;
        }
        const int e = eng.choose(rng);
        eng.remember_choice();
        path.push_back({eng.mark(), e, true, eng.choice_cell(), eng.choice_dom()});
        ++r.nodes;
        ++run_nodes;
        failed = !eng.decide(e);
        if (failed) eng.bump();
      }
    }
    // Restart: keep what this run proved, then start again from the root.
    eng.undo(root);
    std::vector<int> positives;
    bool exhausted = false;
    for (const Decision& d : path) {
      if (d.positive) {
        positives.push_back(d.e);
        continue;
      }
      nogood = positives;
      nogood.push_back(d.e);
      if (!eng.add_nogood(nogood)) exhausted = true;
    }
    path.clear();
    if (exhausted || !eng.propagate()) return r;
    if (eng.unplaced() == 0) {
      record();  // the nogoods forced the last solution left
      return r;
    }
    root = eng.mark();
  }
}

GradeDetail grade_detail(const Puzzle& p) {
  GradeDetail g;
  Engine eng(p);
  if (!eng.valid()) {
    g.contradiction = true;
    return g;
  }
  static constexpr Level kLevels[] = {Level::trivial, Level::basic, Level::hard, Level::extreme};
  for (int i = 0; i < 4; ++i) {
    eng.set_rules(rules_for(kLevels[i]));
    if (!eng.propagate()) {
      g.contradiction = true;
      for (int j = i; j < 4; ++j) g.unplaced[j] = p.cells();
      return g;
    }
    g.unplaced[i] = eng.unplaced();
    if (eng.unplaced() == 0) {
      g.level = kLevels[i];
      for (int j = i + 1; j < 4; ++j) g.unplaced[j] = 0;
      return g;
    }
  }
  return g;
}

Level grade(const Puzzle& p) {
  return grade_detail(p).level;
}

bool solves_with(const Puzzle& p, Level level) {
  Engine eng(p);
  if (!eng.valid()) return false;
  eng.set_rules(rules_for(level));
  return eng.propagate() && eng.unplaced() == 0;
}

}  // namespace arbiter::dominosa
