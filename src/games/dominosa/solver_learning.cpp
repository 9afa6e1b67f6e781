// The learning search: conflict-driven clause learning over the placements.
//
// Model. One Boolean per placement (an orthogonally adjacent pair of cells; its domino is fixed by
// the two values). Every cell and every domino takes exactly one placement: "at least one" is a
// clause, "at most one" is native (a placement set true sets every other placement of its two
// cells and its domino false, the reason being the binary clause "not both"). On top of unit
// propagation, a matching propagator keeps a perfect matching of the grid graph (cells, and the
// placements not yet false): the grid is bipartite (checkerboard colours), so when a matched
// placement turns false an augmenting path repairs the matching, and when none exists the
// alternating search has found a set S of cells of one colour whose live neighbours are fewer
// than S (Hall). That is a conflict whose clause is "one of the false placements leaving S
// towards a cell that S cannot reach must be true", which the solver learns from like any
// other; no SAT encoding of the puzzle sees it.
//
// Search: VSIDS branching, first-UIP learning with clause minimization, restarts (on rising glue
// in the focused mode, on a Luby schedule in the stable one), and a learned-clause database whose
// worse half by glue (LBD) is dropped whenever it has grown by a tenth, so it grows slowly. Counting: each solution found is blocked by the negation of its decisions
// (the propagation is sound, so it is the only solution that extends them), which keeps the
// count exact; the search ends when the blocked space is empty or the limit is reached.
#include "games/dominosa/solver_learning.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/solver_internal.h"

namespace arbiter::dominosa {
namespace {

using Lit = int;  // 2*v for "placement v is used", 2*v+1 for "is not"
constexpr Lit yes(int v) { return 2 * v; }
constexpr Lit no(int v) { return 2 * v + 1; }
constexpr int var_of(Lit l) { return l >> 1; }
constexpr Lit negation(Lit l) { return l ^ 1; }

constexpr int kDecision = -1;  // reason of a decision or a fact at level 0
// Any other reason: a clause index >= 0, or -(x+2) for "placement x is used" (at most one).
constexpr int amo_reason(int x) { return -(x + 2); }
constexpr int amo_var(int reason) { return -reason - 2; }


}  // namespace

class LearningSearch::Impl {
 public:
  Impl(const Puzzle& p, std::int64_t limit, std::uint64_t seed, bool share)
      : limit_(std::max<std::int64_t>(1, limit)), share_(share) {
    build(p, seed);
  }

  bool run(std::int64_t conflicts, const StopFn& stop, std::int64_t work);
  std::int64_t work() const { return work_; }
  const LearningResult& result() const { return out_; }
  std::vector<SharedClause> take_shared();
  void add_shared(const std::vector<SharedClause>& clauses);

 private:
  struct Clause {
    int start = 0;
    int size = 0;
    int lbd = 0;
    bool learnt = false;
    bool removed = false;
  };

  void build(const Puzzle& p, std::uint64_t seed);
  void learn(const std::vector<Lit>& learnt, int lbd);
  bool found_solution();
  bool should_restart();
  void finish(bool complete);
  int level() const { return static_cast<int>(trail_lim_.size()); }
  // 1 true, 0 false, -1 unassigned.
  int value(Lit l) const {
    const int v = val_[var_of(l)];
    return v < 0 ? -1 : (v ^ (l & 1));
  }
  void assign(Lit l, int reason);
  bool add_clause(std::vector<Lit> lits, bool learnt, int lbd);
  bool propagate();
  bool propagate_units();
  bool repair_matching();
  void analyze(std::vector<Lit>& learnt, int& back_level, int& lbd);
  bool redundant(Lit l, std::vector<int>& touched);
  void reason_lits(int v, int r, std::vector<Lit>& out) const;
  std::vector<int> minimize_stack_;
  std::vector<Lit> antecedents_;
  void cancel_until(int lvl);
  void bump(int v);
  void reduce_and_compact();
  Solution solution() const;

  // The order heap (max activity first).
  void heap_insert(int v);
  int heap_pop();
  void heap_up(int i);
  void heap_down(int i);

  std::int64_t limit_;
  LearningResult out_;
  int cells_ = 0, vars_ = 0;
  std::vector<int> first_, second_;  // a placement's cells, top/left first
  std::vector<int> white_;           // its cell of colour 0
  std::vector<int> group_start_, group_vars_;  // cells 0..cells-1, then dominoes
  std::vector<int> var_groups_;                // three groups per placement
  std::vector<std::uint8_t> is_white_;

  std::vector<std::int8_t> val_, phase_, target_;
  std::size_t target_size_ = 0;
  std::vector<int> level_, reason_;
  std::vector<Lit> trail_;
  std::vector<int> trail_lim_;
  std::size_t qhead_ = 0;

  std::vector<Clause> clauses_;
  std::vector<Lit> arena_;
  std::vector<std::vector<int>> watches_;  // per literal: clauses to visit when it turns false
  std::vector<Lit> conflict_;
  bool unsat_ = false;
  int learnt_count_ = 0;

  std::vector<double> activity_;
  double var_inc_ = 1.0;
  std::vector<int> heap_, heap_pos_;

  // The matching propagator.
  std::vector<int> mate_;          // per cell: its matched placement, or -1
  std::vector<int> free_whites_;   // white cells whose matched placement turned false
  // Visit stamps (64 bits: they never wrap) and the placement reaching a black cell.
  std::vector<std::uint64_t> white_seen_, black_seen_;
  std::vector<int> via_;
  std::uint64_t stamp_ = 0;
  std::vector<int> queue_;

  std::vector<std::uint8_t> seen_;
  std::int64_t conflicts_ = 0, decisions_ = 0;
  std::int64_t work_ = 0;  // see LearningSearch::run

  // Restarts and modes: the search alternates between a focused mode (restarts when the recent
  // glue of learned clauses rises above its long-run average, saved phases) and a stable mode
  // (restarts on a Luby schedule of 1024 conflicts, branching toward the longest conflict-free
  // assignment of the mode: target phases), each mode twice as long as the last.
  bool stable_ = false;
  std::int64_t mode_ends_ = 1000, mode_length_ = 1000;
  std::int64_t stable_restarts_ = 0, until_restart_ = 0, since_restart_ = 0;
  double glue_fast_ = 0, glue_slow_ = 0;
  std::int64_t reduce_at_ = 2000;

  // Sharing: learned clauses since the last take_shared() that qualify; none after a solution.
  std::vector<SharedClause> shared_out_;
  bool share_ = false;
  bool blocked_ = false;
  std::vector<Lit> learnt_;
};

namespace {
constexpr std::size_t kShareSize = 16; // shared clauses: at most this long
constexpr int kShareGlue = 5;          // and of at most this glue
}  // namespace

void LearningSearch::Impl::build(const Puzzle& p, std::uint64_t seed) {
  const int h = p.rows(), w = p.cols();
  cells_ = p.cells();
  const int doms = domino_count(p.n);
  std::vector<std::vector<int>> groups(cells_ + doms);
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      const int a = r * w + c;
      for (const int b : {c + 1 < w ? a + 1 : -1, r + 1 < h ? a + w : -1}) {
        if (b < 0) continue;
        const int v = vars_++;
        first_.push_back(a);
        second_.push_back(b);
        white_.push_back((r + c) % 2 == 0 ? a : b);
        groups[a].push_back(v);
        groups[b].push_back(v);
        groups[cells_ + domino_index(p.grid[a], p.grid[b], p.n)].push_back(v);
      }
    }
  is_white_.resize(cells_);
  for (int a = 0; a < cells_; ++a) is_white_[a] = ((a / w) + (a % w)) % 2 == 0;
  var_groups_.assign(3 * vars_, -1);
  std::vector<int> filled(vars_, 0);
  group_start_.push_back(0);
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    for (const int v : groups[g]) {
      group_vars_.push_back(v);
      var_groups_[3 * v + filled[v]++] = g;
    }
    group_start_.push_back(static_cast<int>(group_vars_.size()));
  }
  val_.assign(vars_, -1);
  phase_.assign(vars_, 1);
  level_.assign(vars_, 0);
  target_.assign(vars_, -1);
  reason_.assign(vars_, kDecision);
  watches_.resize(2 * vars_);
  seen_.assign(vars_, 0);
  activity_.assign(vars_, 0.0);
  // A seeded tiny activity breaks the first ties; it never outweighs one conflict's bump.
  Rng rng(seed);
  for (int v = 0; v < vars_; ++v) activity_[v] = 1e-6 * static_cast<double>(rng.below(1000));
  heap_pos_.assign(vars_, -1);
  for (int v = 0; v < vars_; ++v) heap_insert(v);
  mate_.assign(cells_, -1);
  white_seen_.assign(cells_, 0);
  black_seen_.assign(cells_, 0);
  via_.assign(cells_, -1);
  for (int g = 0; g < static_cast<int>(groups.size()) && !unsat_; ++g) {
    std::vector<Lit> alo;
    for (const int v : groups[g]) alo.push_back(yes(v));
    if (!add_clause(std::move(alo), false, 0)) unsat_ = true;
  }
  for (int a = 0; a < cells_; ++a)
    if (is_white_[a]) free_whites_.push_back(a);
}

void LearningSearch::Impl::assign(Lit l, int reason) {
  const int v = var_of(l);
  val_[v] = static_cast<std::int8_t>((l & 1) ? 0 : 1);
  level_[v] = level();
  reason_[v] = reason;
  trail_.push_back(l);
}

// Adds a clause at level 0 (false literals at level 0 are dropped, a satisfied clause is not
// kept). False when the clause is empty under the level-0 facts.
bool LearningSearch::Impl::add_clause(std::vector<Lit> lits, bool learnt, int lbd) {
  std::erase_if(lits, [&](Lit l) { return value(l) == 0 && level_[var_of(l)] == 0; });
  for (const Lit l : lits)
    if (value(l) == 1 && level_[var_of(l)] == 0) return true;
  if (lits.empty()) return false;
  if (lits.size() == 1) {
    if (value(lits[0]) == 0) return false;
    if (value(lits[0]) < 0) assign(lits[0], kDecision);
    return true;
  }
  const int ci = static_cast<int>(clauses_.size());
  clauses_.push_back({static_cast<int>(arena_.size()), static_cast<int>(lits.size()), lbd, learnt,
                      false});
  arena_.insert(arena_.end(), lits.begin(), lits.end());
  watches_[lits[0]].push_back(ci);
  watches_[lits[1]].push_back(ci);
  if (learnt) ++learnt_count_;
  return true;
}

bool LearningSearch::Impl::propagate_units() {
  while (qhead_ < trail_.size()) {
    const Lit p = trail_[qhead_++];
    const int v = var_of(p);
    ++work_;
    if ((p & 1) == 0) {
      for (int k = 0; k < 3; ++k) {
        const int g = var_groups_[3 * v + k];
        work_ += group_start_[g + 1] - group_start_[g];
        for (int i = group_start_[g]; i < group_start_[g + 1]; ++i) {
          const int u = group_vars_[i];
          if (u == v) continue;
          if (val_[u] == 1) {
            conflict_ = {no(v), no(u)};
            return false;
          }
          if (val_[u] < 0) assign(no(u), amo_reason(v));
        }
      }
    } else {
      const int white = white_[v];
      if (mate_[white] == v) {
        mate_[white] = -1;
        mate_[first_[v] == white ? second_[v] : first_[v]] = -1;
        free_whites_.push_back(white);
      }
    }
    const Lit falsified = negation(p);
    std::vector<int>& ws = watches_[falsified];
    work_ += static_cast<std::int64_t>(ws.size());
    std::size_t keep = 0;
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const int ci = ws[i];
      Clause& c = clauses_[ci];
      if (c.removed) continue;
      Lit* lits = &arena_[c.start];
      if (lits[0] == falsified) std::swap(lits[0], lits[1]);
      if (value(lits[0]) == 1) {
        ws[keep++] = ci;
        continue;
      }
      bool moved = false;
      for (int k = 2; k < c.size; ++k)
        if (value(lits[k]) != 0) {
          std::swap(lits[1], lits[k]);
          watches_[lits[1]].push_back(ci);
          moved = true;
          break;
        }
      if (moved) continue;
      ws[keep++] = ci;
      if (value(lits[0]) == 0) {
        conflict_.assign(lits, lits + c.size);
        for (++i; i < ws.size(); ++i) ws[keep++] = ws[i];
        ws.resize(keep);
        return false;
      }
      assign(lits[0], ci);
    }
    ws.resize(keep);
  }
  return true;
}

// Re-matches every free white cell by an augmenting path over the placements not yet false. A
// cell with none is a Hall conflict (see the top of the file).
bool LearningSearch::Impl::repair_matching() {
  while (!free_whites_.empty()) {
    const int u = free_whites_.back();
    if (mate_[u] >= 0) {
      free_whites_.pop_back();
      continue;
    }
    ++stamp_;
    queue_.clear();
    queue_.push_back(u);
    white_seen_[u] = stamp_;
    int end = -1;
    for (std::size_t qi = 0; qi < queue_.size() && end < 0; ++qi) {
      const int x = queue_[qi];
      for (int i = group_start_[x]; i < group_start_[x + 1]; ++i) {
        const int f = group_vars_[i];
        if (val_[f] == 0) continue;
        const int y = first_[f] == x ? second_[f] : first_[f];
        if (black_seen_[y] == stamp_) continue;
        black_seen_[y] = stamp_;
        via_[y] = f;
        if (mate_[y] < 0) {
          end = y;
          break;
        }
        const int x2 = white_[mate_[y]];
        if (white_seen_[x2] != stamp_) {
          white_seen_[x2] = stamp_;
          queue_.push_back(x2);
        }
      }
    }
    work_ += static_cast<std::int64_t>(queue_.size());
    if (end < 0) {
      conflict_.clear();
      for (const int x : queue_)
        for (int i = group_start_[x]; i < group_start_[x + 1]; ++i) {
          const int f = group_vars_[i];
          const int y = first_[f] == x ? second_[f] : first_[f];
          if (val_[f] == 0 && black_seen_[y] != stamp_) conflict_.push_back(yes(f));
        }
      return false;
    }
    for (int y = end;;) {
      const int f = via_[y];
      const int x = white_[f];
      const int old = mate_[x];
      mate_[x] = f;
      mate_[y] = f;
      if (old < 0) break;
      y = first_[old] == x ? second_[old] : first_[old];
    }
    free_whites_.pop_back();
  }
  return true;
}

bool LearningSearch::Impl::propagate() {
  if (!propagate_units()) return false;
  return repair_matching();
}

void LearningSearch::Impl::bump(int v) {
  if ((activity_[v] += var_inc_) > 1e100) {
    for (double& a : activity_) a *= 1e-100;
    var_inc_ *= 1e-100;
  }
  if (heap_pos_[v] >= 0) heap_up(heap_pos_[v]);
}

// Whether literal l of a learned clause follows from the others: every path back through the
// reasons ends in the clause or in facts (recursive minimization; `touched` collects the
// variables marked on the way so that analyze() clears them).
bool LearningSearch::Impl::redundant(Lit l, std::vector<int>& touched) {
  std::vector<int>& stack = minimize_stack_;
  stack.assign(1, var_of(l));
  const std::size_t top = touched.size();
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    const int r = reason_[v];
    reason_lits(v, r, antecedents_);
    for (const Lit q : antecedents_) {
      const int u = var_of(q);
      if (seen_[u] || level_[u] == 0) continue;
      if (reason_[u] == kDecision) {
        for (std::size_t i = top; i < touched.size(); ++i) seen_[touched[i]] = 0;
        touched.resize(top);
        return false;
      }
      seen_[u] = 1;
      touched.push_back(u);
      stack.push_back(u);
    }
  }
  return true;
}

// The false literals that made variable v's value follow (its reason without v itself).
void LearningSearch::Impl::reason_lits(int v, int r, std::vector<Lit>& out) const {
  out.clear();
  if (r >= 0) {
    const Clause& c = clauses_[r];
    for (int k = 0; k < c.size; ++k)
      if (var_of(arena_[c.start + k]) != v) out.push_back(arena_[c.start + k]);
  } else if (r != kDecision) {
    out.push_back(no(amo_var(r)));
  }
}

void LearningSearch::Impl::analyze(std::vector<Lit>& learnt, int& back_level, int& lbd) {
  learnt.assign(1, 0);
  int open = 0;
  Lit p = -1;
  std::size_t index = trail_.size();
  std::vector<Lit> reason = conflict_;
  std::vector<int> touched;
  for (;;) {
    for (const Lit q : reason) {
      const int u = var_of(q);
      if (p >= 0 && u == var_of(p)) continue;
      if (seen_[u] || level_[u] == 0) continue;
      seen_[u] = 1;
      touched.push_back(u);
      bump(u);
      if (level_[u] == level())
        ++open;
      else
        learnt.push_back(q);
    }
    do --index;
    while (!seen_[var_of(trail_[index])] || level_[var_of(trail_[index])] != level());
    p = trail_[index];
    const int v = var_of(p);
    --open;
    if (open == 0) break;
    const int r = reason_[v];
    reason.clear();
    if (r >= 0) {
      const Clause& c = clauses_[r];
      reason.assign(arena_.begin() + c.start, arena_.begin() + c.start + c.size);
    } else {
      assert(r != kDecision);  // only the UIP, which ends the loop, can be a decision
      reason.push_back(no(amo_var(r)));
    }
    work_ += static_cast<std::int64_t>(reason.size());
  }
  learnt[0] = negation(p);
  std::size_t keep = 1;
  for (std::size_t i = 1; i < learnt.size(); ++i)
    if (reason_[var_of(learnt[i])] == kDecision || !redundant(learnt[i], touched))
      learnt[keep++] = learnt[i];
  learnt.resize(keep);
  for (const int u : touched) seen_[u] = 0;
  back_level = 0;
  std::size_t at = 1;
  for (std::size_t i = 1; i < learnt.size(); ++i)
    if (level_[var_of(learnt[i])] > back_level) {
      back_level = level_[var_of(learnt[i])];
      at = i;
    }
  if (learnt.size() > 1) std::swap(learnt[1], learnt[at]);
  std::vector<int> levels;
  for (const Lit l : learnt) levels.push_back(level_[var_of(l)]);
  std::sort(levels.begin(), levels.end());
  lbd = static_cast<int>(std::unique(levels.begin(), levels.end()) - levels.begin());
  var_inc_ /= 0.95;
}

void LearningSearch::Impl::cancel_until(int lvl) {
  if (level() <= lvl) return;
  const std::size_t to = static_cast<std::size_t>(trail_lim_[lvl]);
  for (std::size_t i = trail_.size(); i-- > to;) {
    const int v = var_of(trail_[i]);
    phase_[v] = val_[v];
    val_[v] = -1;
    reason_[v] = kDecision;
    if (heap_pos_[v] < 0) heap_insert(v);
  }
  trail_.resize(to);
  trail_lim_.resize(lvl);
  qhead_ = std::min(qhead_, to);
}

// At level 0: drops the worse half of the learned clauses (by glue, then length; glue <= 2 always
// stays), every clause satisfied by a fact, and the false facts inside clauses; then rebuilds the
// arena and the watches.
void LearningSearch::Impl::reduce_and_compact() {
  work_ += static_cast<std::int64_t>(arena_.size());
  std::vector<int> learnt;
  for (int ci = 0; ci < static_cast<int>(clauses_.size()); ++ci)
    if (clauses_[ci].learnt && clauses_[ci].lbd > 2) learnt.push_back(ci);
  std::sort(learnt.begin(), learnt.end(), [&](int a, int b) {
    const Clause &x = clauses_[a], &y = clauses_[b];
    return x.lbd != y.lbd ? x.lbd > y.lbd : x.size > y.size;
  });
  for (std::size_t i = 0; i < learnt.size() / 2; ++i) clauses_[learnt[i]].removed = true;
  std::vector<Clause> old = std::move(clauses_);
  std::vector<Lit> old_arena = std::move(arena_);
  clauses_.clear();
  arena_.clear();
  for (auto& ws : watches_) ws.clear();
  learnt_count_ = 0;
  for (int v = 0; v < vars_; ++v)
    if (val_[v] >= 0) reason_[v] = kDecision;
  for (const Clause& c : old) {
    if (c.removed) continue;
    std::vector<Lit> lits(old_arena.begin() + c.start, old_arena.begin() + c.start + c.size);
    if (!add_clause(std::move(lits), c.learnt, c.lbd)) unsat_ = true;
  }
}

Solution LearningSearch::Impl::solution() const {
  Solution s(static_cast<std::size_t>(cells_), '?');
  for (int v = 0; v < vars_; ++v) {
    if (val_[v] != 1) continue;
    const bool across = second_[v] == first_[v] + 1;
    s[first_[v]] = across ? 'L' : 'T';
    s[second_[v]] = across ? 'R' : 'B';
  }
  return s;
}

void LearningSearch::Impl::heap_up(int i) {
  const int v = heap_[i];
  while (i > 0) {
    const int parent = (i - 1) / 2;
    if (activity_[heap_[parent]] >= activity_[v]) break;
    heap_[i] = heap_[parent];
    heap_pos_[heap_[i]] = i;
    i = parent;
  }
  heap_[i] = v;
  heap_pos_[v] = i;
}

void LearningSearch::Impl::heap_down(int i) {
  const int v = heap_[i];
  const int size = static_cast<int>(heap_.size());
  for (;;) {
    int child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && activity_[heap_[child + 1]] > activity_[heap_[child]]) ++child;
    if (activity_[heap_[child]] <= activity_[v]) break;
    heap_[i] = heap_[child];
    heap_pos_[heap_[i]] = i;
    i = child;
  }
  heap_[i] = v;
  heap_pos_[v] = i;
}

void LearningSearch::Impl::heap_insert(int v) {
  heap_pos_[v] = static_cast<int>(heap_.size());
  heap_.push_back(v);
  heap_up(heap_pos_[v]);
}

int LearningSearch::Impl::heap_pop() {
  const int top = heap_[0];
  heap_pos_[top] = -1;
  const int last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) {
    heap_[0] = last;
    heap_pos_[last] = 0;
    heap_down(0);
  }
  return top;
}

void LearningSearch::Impl::finish(bool complete) {
  out_.complete = complete;
  out_.conflicts = conflicts_;
  out_.decisions = decisions_;
  out_.learned_kept = learnt_count_;
}

void LearningSearch::Impl::learn(const std::vector<Lit>& learnt, int lbd) {
  if (share_ && !blocked_ &&
      (learnt.size() == 1 || (learnt.size() <= kShareSize && lbd <= kShareGlue)))
    shared_out_.emplace_back(learnt.begin(), learnt.end());
  if (learnt.size() == 1) {
    assign(learnt[0], kDecision);
    return;
  }
  const int ci = static_cast<int>(clauses_.size());
  clauses_.push_back({static_cast<int>(arena_.size()), static_cast<int>(learnt.size()), lbd, true,
                      false});
  arena_.insert(arena_.end(), learnt.begin(), learnt.end());
  watches_[learnt[0]].push_back(ci);
  watches_[learnt[1]].push_back(ci);
  ++learnt_count_;
  assign(learnt[0], ci);
}

// Records the solution the assignment is; false when the count is final. Otherwise blocks it by
// "not all of its decisions again" (the propagation is sound, so no other solution extends
// them) and goes on.
bool LearningSearch::Impl::found_solution() {
  if (out_.solutions.size() < 2) out_.solutions.push_back(solution());
  blocked_ = true;
  if (++out_.count >= limit_ || level() == 0) return false;
  std::vector<Lit> block;
  for (int lvl = level(); lvl >= 1; --lvl) block.push_back(negation(trail_[trail_lim_[lvl - 1]]));
  cancel_until(level() - 1);
  if (block.size() == 1) {
    cancel_until(0);
    return add_clause(std::move(block), false, 0);
  }
  const int ci = static_cast<int>(clauses_.size());
  clauses_.push_back({static_cast<int>(arena_.size()), static_cast<int>(block.size()), 0, false,
                      false});
  arena_.insert(arena_.end(), block.begin(), block.end());
  watches_[block[0]].push_back(ci);
  watches_[block[1]].push_back(ci);
  assign(block[0], ci);
  return true;
}

bool LearningSearch::Impl::should_restart() {
  if (conflicts_ >= mode_ends_) {
    stable_ = !stable_;
    mode_length_ *= 2;
    mode_ends_ = conflicts_ + mode_length_;
    target_size_ = 0;
    std::fill(target_.begin(), target_.end(), -1);
    stable_restarts_ = 0;
    until_restart_ = 1024 * luby(1);
    return true;
  }
  if (stable_) {
    if (until_restart_ > 0) return false;
    until_restart_ = 1024 * luby(++stable_restarts_ + 1);
    return true;
  }
  return since_restart_ >= 50 && glue_fast_ > 1.25 * glue_slow_;
}

bool LearningSearch::Impl::run(std::int64_t conflicts, const StopFn& stop, std::int64_t work) {
  if (out_.complete) return true;
  if (unsat_) {
    finish(true);
    return true;
  }
  const std::int64_t budget_end = conflicts < 0 ? -1 : conflicts_ + conflicts;
  const std::int64_t work_end = work < 0 ? -1 : work_ + work;
  for (;;) {
    if (!propagate()) {
      ++conflicts_;
      int top = 0;
      for (const Lit l : conflict_) top = std::max(top, level_[var_of(l)]);
      if (top == 0) {
        finish(true);
        return true;
      }
      cancel_until(top);
      if (stable_ && !trail_lim_.empty() &&
          static_cast<std::size_t>(trail_lim_.back()) > target_size_) {
        target_size_ = static_cast<std::size_t>(trail_lim_.back());
        for (std::size_t i = 0; i < target_size_; ++i)
          target_[var_of(trail_[i])] = (trail_[i] & 1) ? 0 : 1;
      }
      int back_level = 0, lbd = 0;
      analyze(learnt_, back_level, lbd);
      glue_fast_ += (lbd - glue_fast_) / 32.0;
      glue_slow_ += (lbd - glue_slow_) / 4096.0;
      ++since_restart_;
      --until_restart_;
      cancel_until(back_level);
      learn(learnt_, lbd);
      if ((budget_end >= 0 && conflicts_ >= budget_end) || (work_end >= 0 && work_ >= work_end)) {
        finish(false);
        return false;
      }
      if (stop && conflicts_ % 64 == 0 && stop()) {
        finish(false);
        return false;
      }
      continue;
    }
    if (should_restart()) {
      since_restart_ = 0;
      cancel_until(0);
      if (learnt_count_ > reduce_at_) {
        reduce_and_compact();
        reduce_at_ += reduce_at_ / 10;
        if (unsat_) {
          finish(true);
          return true;
        }
        continue;
      }
    }
    int next = -1;
    while (!heap_.empty()) {
      const int v = heap_pop();
      if (val_[v] < 0) {
        next = v;
        break;
      }
    }
    if (next < 0) {
      if (!found_solution()) {
        finish(true);
        return true;
      }
      // Many solutions in a row can come without a conflict: the bounds are looked at here too.
      if ((work_end >= 0 && work_ >= work_end) || (stop && stop())) {
        finish(false);
        return false;
      }
      continue;
    }
    ++decisions_;
    trail_lim_.push_back(static_cast<int>(trail_.size()));
    const int phase = stable_ && target_[next] >= 0 ? target_[next] : phase_[next];
    assign(phase == 0 ? no(next) : yes(next), kDecision);
  }
}

std::vector<SharedClause> LearningSearch::Impl::take_shared() {
  return std::exchange(shared_out_, {});
}

void LearningSearch::Impl::add_shared(const std::vector<SharedClause>& clauses) {
  cancel_until(0);
  for (const SharedClause& c : clauses) {
    if (unsat_) break;
    const bool foreign = std::any_of(c.begin(), c.end(), [&](int l) { return l < 0 || var_of(l) >= vars_; });
    if (foreign) continue;  // not a clause of this puzzle: ignored
    const int lbd = static_cast<int>(c.size());
    if (!add_clause(std::vector<Lit>(c.begin(), c.end()), c.size() > 1, lbd)) unsat_ = true;
  }
  since_restart_ = 0;
}

LearningSearch::LearningSearch(const Puzzle& p, std::int64_t limit, std::uint64_t seed,
                               bool share)
    : impl_(std::make_unique<Impl>(p, limit, seed, share)) {}
LearningSearch::~LearningSearch() = default;
LearningSearch::LearningSearch(LearningSearch&&) noexcept = default;
LearningSearch& LearningSearch::operator=(LearningSearch&&) noexcept = default;

bool LearningSearch::run(std::int64_t conflicts, const StopFn& stop, std::int64_t work) {
  return impl_->run(conflicts, stop, work);
}
std::int64_t LearningSearch::work() const {
  return impl_->work();
}
const LearningResult& LearningSearch::result() const {
  return impl_->result();
}
std::vector<SharedClause> LearningSearch::take_shared() {
  return impl_->take_shared();
}
void LearningSearch::add_shared(const std::vector<SharedClause>& clauses) {
  impl_->add_shared(clauses);
}

LearningResult count_learning(const Puzzle& p, std::int64_t limit, std::uint64_t seed,
                              std::int64_t max_conflicts, const StopFn& stop) {
  LearningSearch search(p, limit, seed);
  search.run(max_conflicts, stop);
  return search.result();
}

}  // namespace arbiter::dominosa
