// The Dominosa generator: see generator.h for the plan of an attempt.
#include "games/dominosa/generator.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/solver.h"

namespace arbiter::dominosa {
namespace {

// One attempt's working state: the intended tiling, the values on it, and the scratch space of
// the generator's own trivial-deduction pass. Everything is allocated once in the constructor;
// the loops of an attempt (moves, deductions, repairs) allocate nothing of their own (the
// solver's calls are the solver's business).
class Builder {
 public:
  Builder(int n, std::uint64_t seed) : n_(n), h_(n + 1), w_(n + 2), cells_(h_ * w_), rng_(seed) {
    tiles_ = cells_ / 2;
    doms_ = domino_count(n);
    assert(tiles_ == doms_);
    mate_.resize(cells_);
    val_.resize(cells_);
    tile_of_.resize(cells_);
    tile_cell_.resize(2 * tiles_);
    // Edges: every orthogonally adjacent pair, each cell's incident edges in cell_edges_.
    deg_.assign(cells_, 0);
    cell_edges_.assign(4 * cells_, -1);
    for (int c = 0; c < cells_; ++c) {
      if (c % w_ + 1 < w_) add_edge(c, c + 1);
      if (c / w_ + 1 < h_) add_edge(c, c + w_);
    }
    const int edges = static_cast<int>(eu_.size());
    edom_.resize(edges);
    alive_.resize(edges);
    dstart_.resize(doms_ + 1);
    dfill_.resize(doms_ + 1);
    dlist_.resize(edges);
    dcount_.resize(doms_);
    dplaced_.resize(doms_);
    ccount_.resize(cells_);
    resolved_.resize(cells_);
    queue_.resize(cells_ + doms_ + 2);
    stalled_.reserve(cells_);
    dom_lo_.resize(doms_);
    dom_hi_.resize(doms_);
    for (int a = 0; a <= n_; ++a)
      for (int b = a; b <= n_; ++b) {
        const int d = domino_index(a, b, n_);
        dom_lo_[d] = a;
        dom_hi_[d] = b;
      }
    perm_.resize(doms_);
    amate_.assign(cells_, -1);
    alt_.resize(cells_);
    dused_.assign(doms_, 0);
    region_.reserve(cells_);
    region_doms_.reserve(doms_);
    cycle_.reserve(tiles_ + 1);
  }

  Rng& rng() { return rng_; }
  void reseed(std::uint64_t seed) { rng_ = Rng(seed); }

  // Takes the tiling of `o` (a builder of the same n) and its values.
  void copy_tiling(const Builder& o) {
    mate_ = o.mate_;
    tile_of_ = o.tile_of_;
    tile_cell_ = o.tile_cell_;
    copy_values(o);
  }
  void copy_values(const Builder& o) { std::copy(o.val_.begin(), o.val_.end(), val_.begin()); }

  int n() const { return n_; }
  int cells() const { return cells_; }
  int tiles() const { return tiles_; }
  int tile_of(int c) const { return tile_of_[c]; }
  int tile_cell(int t, int k) const { return tile_cell_[2 * t + k]; }
  int value(int c) const { return val_[c]; }
  const std::vector<int>& stalled() const { return stalled_; }

  // A random tiling: all horizontal (or all vertical when the width is odd), then `flips` random
  // 2x2 flips; then the double-n set dealt to the tiles in random order and orientation.
  void randomize(std::int64_t flips) {
    const bool horizontal = w_ % 2 == 0;
    for (int c = 0; c < cells_; ++c) {
      const int r = c / w_, col = c % w_;
      mate_[c] = horizontal ? (col % 2 == 0 ? c + 1 : c - 1) : (r % 2 == 0 ? c + w_ : c - w_);
    }
    if (h_ >= 2 && w_ >= 2) {
      for (std::int64_t i = 0; i < flips; ++i) {
        const int r = static_cast<int>(rng_.below(h_ - 1));
        const int col = static_cast<int>(rng_.below(w_ - 1));
        const int x = r * w_ + col, y = x + 1, z = x + w_, u = z + 1;
        if (mate_[x] == y && mate_[z] == u) {
          link(x, z);
          link(y, u);
        } else if (mate_[x] == z && mate_[y] == u) {
          link(x, y);
          link(z, u);
        }
      }
    }
    int t = 0;
    for (int c = 0; c < cells_; ++c)
      if (mate_[c] > c) {
        tile_cell_[2 * t] = c;
        tile_cell_[2 * t + 1] = mate_[c];
        tile_of_[c] = tile_of_[mate_[c]] = t;
        ++t;
      }
    for (int d = 0; d < doms_; ++d) perm_[d] = d;
    rng_.shuffle(perm_.begin(), perm_.end());
    for (t = 0; t < tiles_; ++t) {
      const int d = perm_[t];
      set_tile(t, dom_lo_[d], dom_hi_[d], rng_.below(2) == 0);
    }
  }

  void set_tile(int t, int x, int y, bool turned) {
    if (turned) std::swap(x, y);
    val_[tile_cell_[2 * t]] = x;
    val_[tile_cell_[2 * t + 1]] = y;
  }

  // The generator's own pass of the trivial deductions (docs/games/dominosa.md §3): a domino with
  // one placement left is placed, a cell with one placement left is placed; placing removes the
  // overlapping placements and the domino's other ones. Returns the number of cells left
  // unresolved; their list is stalled() after commit_stalled(). Sound, so the intended tiling is
  // never cut.
  int trivial_unresolved() {
    const int edges = static_cast<int>(eu_.size());
    std::fill(dcount_.begin(), dcount_.end(), 0);
    for (int e = 0; e < edges; ++e) {
      const int d = domino_index(val_[eu_[e]], val_[ev_[e]], n_);
      edom_[e] = d;
      ++dcount_[d];
    }
    dstart_[0] = 0;
    for (int d = 0; d < doms_; ++d) dstart_[d + 1] = dstart_[d] + dcount_[d];
    std::copy(dstart_.begin(), dstart_.end(), dfill_.begin());
    for (int e = 0; e < edges; ++e) dlist_[dfill_[edom_[e]]++] = e;
    std::fill(alive_.begin(), alive_.end(), 1);
    std::fill(dplaced_.begin(), dplaced_.end(), 0);
    std::fill(resolved_.begin(), resolved_.end(), 0);
    qhead_ = qtail_ = 0;
    for (int c = 0; c < cells_; ++c) {
      ccount_[c] = deg_[c];
      if (deg_[c] == 1) push(c);
    }
    for (int d = 0; d < doms_; ++d)
      if (dcount_[d] == 1) push(cells_ + d);
    int unresolved = cells_;
    while (qhead_ < qtail_) {
      const int x = queue_[qhead_++];
      int found = -1;
      if (x < cells_) {
        if (resolved_[x] || ccount_[x] != 1) continue;
        for (int k = 0; k < deg_[x]; ++k) {
          const int e = cell_edges_[4 * x + k];
          if (alive_[e]) {
            found = e;
            break;
          }
        }
      } else {
        const int d = x - cells_;
        if (dplaced_[d] || dcount_[d] != 1) continue;
        for (int i = dstart_[d]; i < dstart_[d + 1]; ++i)
          if (alive_[dlist_[i]]) {
            found = dlist_[i];
            break;
          }
      }
      if (found < 0) continue;  // cannot happen while the intended tiling is a solution
      place(found);
      unresolved -= 2;
    }
    return unresolved;
  }

  // Records the unresolved cells of the last trivial_unresolved() as stalled().
  void commit_stalled() {
    stalled_.clear();
    for (int c = 0; c < cells_; ++c)
      if (!resolved_[c]) stalled_.push_back(c);
  }

  // A change of values that keeps the intended tiling a solution: tile t1 turned around (t2 < 0),
  // or the values of tiles t1 and t2 exchanged, each put down in a random orientation.
  struct Move {
    int t1 = -1, t2 = -1;
    int old[4] = {0, 0, 0, 0};
  };

  bool is_double(int t) const { return val_[tile_cell_[2 * t]] == val_[tile_cell_[2 * t + 1]]; }

  void apply(Move& m) {
    const int a1 = tile_cell_[2 * m.t1], b1 = tile_cell_[2 * m.t1 + 1];
    m.old[0] = val_[a1];
    m.old[1] = val_[b1];
    if (m.t2 < 0) {
      std::swap(val_[a1], val_[b1]);
      return;
    }
    const int a2 = tile_cell_[2 * m.t2], b2 = tile_cell_[2 * m.t2 + 1];
    m.old[2] = val_[a2];
    m.old[3] = val_[b2];
    set_tile(m.t1, m.old[2], m.old[3], rng_.below(2) == 0);
    set_tile(m.t2, m.old[0], m.old[1], rng_.below(2) == 0);
  }

  void undo(const Move& m) {
    val_[tile_cell_[2 * m.t1]] = m.old[0];
    val_[tile_cell_[2 * m.t1 + 1]] = m.old[1];
    if (m.t2 < 0) return;
    val_[tile_cell_[2 * m.t2]] = m.old[2];
    val_[tile_cell_[2 * m.t2 + 1]] = m.old[3];
  }

  // A random tile whose first cell lies within `radius` rows and columns of cell c.
  int tile_near(int c, int radius) {
    const int r = c / w_, col = c % w_;
    const int r0 = std::max(0, r - radius), r1 = std::min(h_ - 1, r + radius);
    const int c0 = std::max(0, col - radius), c1 = std::min(w_ - 1, col + radius);
    const int rr = r0 + static_cast<int>(rng_.below(r1 - r0 + 1));
    const int cc = c0 + static_cast<int>(rng_.below(c1 - c0 + 1));
    return tile_of_[rr * w_ + cc];
  }

  int random_tile() { return static_cast<int>(rng_.below(tiles_)); }

  // Exact uniqueness from the last trivial_unresolved(): its deductions are sound, so every
  // solution agrees with the intended one on the cells they resolved, and only the stalled cells
  // (with the dominoes not yet placed) are searched: depth first, always on the cell or the
  // domino with the fewest placements left. Returns 1 when the intended solution is the only one, 2
  // when there is another (left in alt()), and -1 when the region has more than `max_region` cells
  // or the search more than `node_limit` nodes (unknown).
  int count_local(int max_region, std::int64_t node_limit) {
    nodes_ = 0;
    region_.clear();
    for (int c = 0; c < cells_; ++c)
      if (!resolved_[c]) {
        if (static_cast<int>(region_.size()) >= max_region) return -1;
        region_.push_back(c);
        amate_[c] = -1;
      }
    if (region_.empty()) return 1;
    region_doms_.clear();
    for (int d = 0; d < doms_; ++d)
      if (!dplaced_[d]) region_doms_.push_back(d);
    found_ = 0;
    other_ = false;
    aborted_ = false;
    node_limit_ = node_limit;
    search(static_cast<int>(region_.size()));
    if (other_) return 2;
    return aborted_ ? -1 : 1;
  }

  // The other solution count_local() found, as a partner per cell.
  const std::vector<int>& alt() const { return alt_; }
  std::int64_t nodes() const { return nodes_; }

  // Whether alt() still uses every domino once with the current values.
  bool alt_still_solves() {
    std::fill(dcount_.begin(), dcount_.end(), 0);
    for (int c = 0; c < cells_; ++c) {
      const int m = alt_[c];
      if (m < c) continue;
      if (++dcount_[domino_index(val_[c], val_[m], n_)] > 1) return false;
    }
    return true;
  }

  // The intended tiles on one alternating cycle of the difference between the intended solution
  // and alt(), starting from a random differing cell; into cycle().
  void find_cycle() {
    cycle_.clear();
    int differing = 0;
    for (int c = 0; c < cells_; ++c)
      if (alt_[c] != mate_[c]) ++differing;
    if (differing == 0) return;
    auto k = rng_.below(differing);
    int start = -1;
    for (int c = 0; c < cells_ && start < 0; ++c)
      if (alt_[c] != mate_[c] && k-- == 0) start = c;
    int x = start;
    do {
      cycle_.push_back(tile_of_[x]);
      x = alt_[mate_[x]];
    } while (x != start && static_cast<int>(cycle_.size()) <= tiles_);
  }
  const std::vector<int>& cycle() const { return cycle_; }

  // The values into p (of the same n; no allocation) and the intended solution.
  void write(Puzzle& p) const { std::copy(val_.begin(), val_.end(), p.grid.begin()); }
  Solution solution() const {
    Solution s(cells_, '?');
    for (int c = 0; c < cells_; ++c) s[c] = letter(c, mate_[c]);
    return s;
  }
  char letter(int c, int m) const {
    if (m == c + 1) return 'L';
    if (m == c - 1) return 'R';
    if (m == c + w_) return 'T';
    return 'B';
  }

 private:
  // The depth-first search of count_local over the `left` unassigned region cells.
  void search(int left) {
    if (left == 0) {
      ++found_;
      for (int c : region_)
        if (amate_[c] != mate_[c]) {
          std::copy(mate_.begin(), mate_.end(), alt_.begin());
          for (int r : region_) alt_[r] = amate_[r];
          other_ = true;
          break;
        }
      return;
    }
    if (++nodes_ > node_limit_) {
      aborted_ = true;
      return;
    }
    // Branch on the cell or the domino with the fewest placements; none left is a dead end.
    for (int d : region_doms_) dcount_[d] = 0;
    int best = -1, best_count = 5;
    for (int c : region_) {
      if (amate_[c] >= 0) continue;
      int k = 0;
      for (int i = 0; i < deg_[c]; ++i) {
        const int e = cell_edges_[4 * c + i];
        if (!viable(c, e)) continue;
        ++k;
        if (eu_[e] == c) ++dcount_[edom_[e]];
      }
      if (k == 0) return;
      if (k < best_count) {
        best = c;
        best_count = k;
      }
    }
    int best_dom = -1;
    for (int d : region_doms_) {
      if (dused_[d]) continue;
      if (dcount_[d] == 0) return;
      if (dcount_[d] < best_count) {
        best_dom = d;
        best_count = dcount_[d];
      }
    }
    if (best_dom >= 0) {
      for (int i = dstart_[best_dom]; i < dstart_[best_dom + 1]; ++i) {
        const int e = dlist_[i];
        if (!alive_[e] || amate_[eu_[e]] >= 0 || amate_[ev_[e]] >= 0) continue;
        try_edge(e, left);
        if (other_ || aborted_) return;
      }
      return;
    }
    for (int i = 0; i < deg_[best]; ++i) {
      const int e = cell_edges_[4 * best + i];
      if (!viable(best, e)) continue;
      try_edge(e, left);
      if (other_ || aborted_) return;
    }
  }

  void try_edge(int e, int left) {
    const int u = eu_[e], v = ev_[e];
    amate_[u] = v;
    amate_[v] = u;
    dused_[edom_[e]] = 1;
    search(left - 2);
    dused_[edom_[e]] = 0;
    amate_[u] = amate_[v] = -1;
  }

  bool viable(int c, int e) const {
    if (!alive_[e] || dused_[edom_[e]]) return false;
    return amate_[eu_[e] == c ? ev_[e] : eu_[e]] < 0;
  }

  void add_edge(int u, int v) {
    const int e = static_cast<int>(eu_.size());
    eu_.push_back(u);
    ev_.push_back(v);
    cell_edges_[4 * u + deg_[u]++] = e;
    cell_edges_[4 * v + deg_[v]++] = e;
  }
  void link(int a, int b) {
    mate_[a] = b;
    mate_[b] = a;
  }
  void push(int x) { queue_[qtail_++] = x; }

  void kill(int e) {
    if (!alive_[e]) return;
    alive_[e] = 0;
    const int d = edom_[e];
    if (--dcount_[d] == 1 && !dplaced_[d]) push(cells_ + d);
    for (int c : {eu_[e], ev_[e]})
      if (--ccount_[c] == 1 && !resolved_[c]) push(c);
  }

  void place(int e) {
    const int u = eu_[e], v = ev_[e], d = edom_[e];
    assert(mate_[u] == v);  // sound deductions never leave the intended solution
    dplaced_[d] = 1;
    resolved_[u] = resolved_[v] = 1;
    for (int k = 0; k < deg_[u]; ++k) kill(cell_edges_[4 * u + k]);
    for (int k = 0; k < deg_[v]; ++k) kill(cell_edges_[4 * v + k]);
    for (int i = dstart_[d]; i < dstart_[d + 1]; ++i) kill(dlist_[i]);
  }

  int n_, h_, w_, cells_, tiles_ = 0, doms_ = 0;
  Rng rng_;
  std::vector<int> mate_, val_, tile_of_, tile_cell_;
  std::vector<int> eu_, ev_, deg_, cell_edges_;
  std::vector<int> edom_, dstart_, dfill_, dlist_, dcount_, ccount_, queue_;
  std::vector<char> alive_, dplaced_, resolved_;
  std::vector<int> stalled_, dom_lo_, dom_hi_, perm_, cycle_;
  std::vector<int> region_, region_doms_, amate_, alt_;  // count_local
  std::vector<char> dused_;
  int found_ = 0;
  bool other_ = false, aborted_ = false;
  std::int64_t nodes_ = 0, node_limit_ = 0;
  int qhead_ = 0, qtail_ = 0;
};

// The uniqueness check of a hardening step searches regions of at most this many cells (with at
// most this many nodes); a larger region goes to grade() without the local check, which costs
// more there than the grading it might save.
constexpr int kMaxRegion = 100;
constexpr std::int64_t kLocalNodes = 5000;
// A hardening move starts next to the stalled region this often (percent), else anywhere.
constexpr int kNearStallPercent = 10;
// Repairs tried per hardening candidate before it is given up.
constexpr int kRepairs = 3;

// A move with its first tile in `stalled` (the cells where the trivial deductions stall).
Builder::Move propose_near_stall(Builder& b, const std::vector<int>& stalled) {
  Rng& rng = b.rng();
  Builder::Move m;
  const int c =
      stalled.empty() ? static_cast<int>(rng.below(b.cells())) : stalled[rng.below(stalled.size())];
  m.t1 = b.tile_of(c);
  const auto kind = rng.below(10);
  if (kind < 2 && !b.is_double(m.t1)) return m;  // turn it around
  do {
    if (kind < 6 && !stalled.empty())
      m.t2 = b.tile_of(stalled[rng.below(stalled.size())]);
    else if (kind < 9)
      m.t2 = b.tile_near(c, 3);
    else
      m.t2 = b.random_tile();
  } while (m.t2 == m.t1 && b.tiles() > 1);
  if (m.t2 == m.t1) m.t2 = -1;
  return m;
}

// A local move: a tile anywhere (sometimes next to `stalled`) swapped with one within two cells,
// or turned around.
Builder::Move propose_harden(Builder& b, const std::vector<int>& stalled) {
  Rng& rng = b.rng();
  Builder::Move m;
  const bool near = !stalled.empty() && rng.below(100) < kNearStallPercent;
  const int c = near ? stalled[rng.below(stalled.size())] : static_cast<int>(rng.below(b.cells()));
  m.t1 = b.tile_near(c, 1);
  if (rng.below(6) == 0 && !b.is_double(m.t1)) return m;
  do {
    m.t2 = b.tile_near(b.tile_cell(m.t1, 0), 2);
  } while (m.t2 == m.t1 && b.tiles() > 1);
  if (m.t2 == m.t1) m.t2 = -1;
  return m;
}

// Breaks the second solution count_local() found (alt()): find_cycle takes an alternating cycle
// of its difference with the intended solution, and a turn or a swap of an intended tile on the
// cycle that makes the second solution use some domino twice is applied. False when no such
// change was found among a few tries.
bool repair(Builder& b, GenerateStats& stats) {
  Rng& rng = b.rng();
  b.find_cycle();
  const auto& cyc = b.cycle();
  if (cyc.empty()) return false;
  for (int k = 0; k < 16; ++k) {
    Builder::Move m;
    m.t1 = cyc[rng.below(cyc.size())];
    const auto kind = rng.below(3);
    if (kind == 0 && !b.is_double(m.t1)) {
      // turn it
    } else if (kind == 1 && cyc.size() > 1) {
      m.t2 = cyc[rng.below(cyc.size())];
    } else {
      m.t2 = b.tile_near(b.tile_cell(m.t1, 0), 2);
    }
    if (m.t2 == m.t1) continue;
    b.apply(m);
    ++stats.moves;
    if (!b.alt_still_solves()) {
      ++stats.repairs;
      return true;
    }
    b.undo(m);
  }
  return false;
}

// What became of one hardening candidate.
enum class Outcome { rejected, kept, reached };

// A worker's copy of the grid for hardening candidates (one per lane of the executor).
struct Lane {
  Lane(int n, std::uint64_t seed) : b(n, seed) {
    p.n = n;
    p.grid.resize(b.cells());
  }
  Builder b;
  Puzzle p;
  GenerateStats stats;
  Outcome outcome = Outcome::rejected;
  Level level = Level::ambiguous;
};

// One attempt: the builder, its lanes, its budgets and its statistics.
class Attempt {
 public:
  Attempt(const GenerateOptions& options, std::uint64_t index, const StopFn& stop,
          const Executor& executor)
      : options_(options),
        index_(index),
        b_(options.n, Rng::derive(options.seed, "attempt", index)),
        stop_(stop),
        executor_(executor) {
    p_.n = options.n;
    p_.grid.resize(b_.cells());
  }

  std::optional<Generated> run() {
    const Level level = options_.level;
    const std::int64_t cells = b_.cells();
    b_.randomize(8 * cells + 16);
    if (level == Level::ambiguous) return done(b_, Level::ambiguous);
    if (ease(0, 40 * cells + 400) > 0 || stopped_) return std::nullopt;
    if (level == Level::trivial) {
      ++stats_.grades;
      b_.write(p_);
      if (grade(p_) != Level::trivial) return std::nullopt;  // never: the pass above is sound
      return done(b_, Level::trivial);
    }
    return harden(level);
  }

 private:
  bool stopped() {
    if (stopped_) return true;
    if (!stop_ || (++polls_ & 7) != 0) return false;
    return stopped_ = stop_();
  }

  // Local easing: moves inside the region where the trivial deductions stall, kept when that
  // region does not grow, until at most `goal` cells are left or `budget` moves are spent.
  // Returns the number of unresolved cells.
  int ease(int goal, std::int64_t budget) {
    int u = b_.trivial_unresolved();
    b_.commit_stalled();
    for (std::int64_t i = 0; u > goal && i < budget; ++i) {
      if (stopped()) break;
      Builder::Move m = propose_near_stall(b_, b_.stalled());
      b_.apply(m);
      ++stats_.moves;
      const int u2 = b_.trivial_unresolved();
      if (u2 <= u) {
        u = u2;
        b_.commit_stalled();
      } else {
        b_.undo(m);
      }
    }
    return u;
  }

  // Hardening from the trivial puzzle (the base): candidate j of a base is one local move on it
  // drawn from its own seed (derive(base seed, "candidate", j)), checked for uniqueness and
  // graded (evaluate). The first candidate, in index order, that reaches `level` ends the walk;
  // the first that stays at or below it without dropping below the base's grade becomes the new
  // base. Candidates are evaluated a round of `lanes` at a time, possibly at once; the choice is
  // the same as one at a time, so the thread count never changes the result.
  std::optional<Generated> harden(Level level) {
    const int lanes = std::max(1, executor_.lanes);
    if (lanes_.empty()) {
      for (int l = 0; l < lanes; ++l) {
        lanes_.emplace_back(options_.n, 0);
        lanes_.back().b.copy_tiling(b_);
      }
    }
    base_level_ = Level::trivial;
    base_unresolved_ = 0;
    std::uint64_t base_seed = b_.rng().next();
    std::int64_t j = 0;  // the next candidate of this base
    const std::int64_t budget = 100 + 10 * static_cast<std::int64_t>(options_.n);
    std::int64_t used = 0;  // candidates counted so far, as if evaluated one at a time
    // Lane l evaluates candidate j + l (made once: no allocation per round).
    const std::function<void(int)> job = [&](int l) {
      evaluate(lanes_[l], Rng::derive(base_seed, "candidate", static_cast<std::uint64_t>(j + l)),
               level);
    };
    while (used < budget) {
      if (stopped()) return std::nullopt;
      const int k = static_cast<int>(std::min<std::int64_t>(lanes, budget - used));
      if (k > 1 && executor_.run) {
        executor_.run(k, job);
      } else {
        for (int l = 0; l < k; ++l) {
          job(l);
          if (lanes_[l].outcome != Outcome::rejected) break;  // the rest would not be looked at
        }
      }
      bool moved = false;
      for (int l = 0; l < k && !moved; ++l) {
        Lane& lane = lanes_[l];
        ++used;
        add(stats_, lane.stats);
        if (lane.outcome == Outcome::reached) return done(lane.b, level);
        if (lane.outcome == Outcome::kept) {
          b_.copy_values(lane.b);
          base_level_ = lane.level;
          base_unresolved_ = b_.trivial_unresolved();
          b_.commit_stalled();
          base_seed = b_.rng().next();
          j = 0;
          moved = true;
        }
      }
      if (!moved) j += k;
    }
    return std::nullopt;
  }

  // Candidate `seed` on the base: a local move; the trivial pass; when the stalled region is
  // small, exact uniqueness on it (a second solution is repaired on its cycle, a few times);
  // then grade(). Reads the base (b_, base_level_, base_unresolved_), writes only `lane`.
  void evaluate(Lane& lane, std::uint64_t seed, Level level) const {
    Builder& b = lane.b;
    lane.stats = {};
    lane.outcome = Outcome::rejected;
    b.copy_values(b_);
    b.reseed(seed);
    Builder::Move m = propose_harden(b, b_.stalled());
    b.apply(m);
    ++lane.stats.moves;
    int u = b.trivial_unresolved();
    int unique = u == 0 ? 1 : count_local(lane);
    for (int r = 0; unique == 2 && r < kRepairs; ++r) {
      if (!repair(b, lane.stats)) break;
      u = b.trivial_unresolved();
      unique = u == 0 ? 1 : count_local(lane);
    }
    // Still trivial, surely not unique, or easier than the base by the trivial measure: no use.
    if (u == 0 || unique == 2 || u < base_unresolved_) return;
    b.write(lane.p);
    ++lane.stats.grades;
    const Level g = grade(lane.p);
    lane.level = g;
    if (g == level) {
      lane.outcome = Outcome::reached;
    } else if (g < level && g >= base_level_) {
      lane.outcome = Outcome::kept;
    }
  }

  static int count_local(Lane& lane) {
    const int r = lane.b.count_local(kMaxRegion, kLocalNodes);
    lane.stats.nodes += lane.b.nodes();
    return r;
  }

  static void add(GenerateStats& to, const GenerateStats& from) {
    to.moves += from.moves;
    to.grades += from.grades;
    to.repairs += from.repairs;
    to.nodes += from.nodes;
  }

  std::optional<Generated> done(const Builder& b, Level level) {
    b.write(p_);
    return Generated{p_, b.solution(), level, index_, stats_};
  }

  const GenerateOptions& options_;
  std::uint64_t index_;
  Builder b_;
  const StopFn& stop_;
  const Executor& executor_;
  Puzzle p_;
  GenerateStats stats_;
  std::vector<Lane> lanes_;
  Level base_level_ = Level::trivial;
  int base_unresolved_ = 0;
  std::uint64_t polls_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::optional<Generated> generate_attempt(const GenerateOptions& options, std::uint64_t attempt,
                                          const StopFn& stop, const Executor& executor) {
  if (options.n < 1 || options.n > kMaxN) return std::nullopt;
  Attempt a(options, attempt, stop, executor);
  return a.run();
}

std::optional<Generated> generate(const GenerateOptions& options, const StopFn& stop,
                                  const Executor& executor) {
  for (std::int64_t i = 0; i < options.max_attempts; ++i) {
    if (stop && stop()) return std::nullopt;
    auto made = generate_attempt(options, static_cast<std::uint64_t>(i), stop, executor);
    if (made) return made;
  }
  return std::nullopt;
}

}  // namespace arbiter::dominosa
