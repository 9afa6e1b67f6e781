// The Dominosa generator: see generator.h for the plan of an attempt.
#include "games/dominosa/generator.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/rng.h"
#include <cstdlib>
#include <cstdio>
#include <chrono>
double g_solve_s = 0, g_grade_s = 0;
static int envi(const char* k, int d) { const char* v = std::getenv(k); return v ? std::atoi(v) : d; }
#include "games/dominosa/solver.h"

namespace arbiter::dominosa {
namespace {

// One attempt's working state: the intended tiling, the values on it, and the scratch space of
// the generator's own trivial-deduction pass. Everything is allocated once in the constructor;
// the loops of an attempt (moves, deductions, repairs) allocate nothing of their own (the
// solver's calls are the solver's business).
class Builder {
 public:
  Builder(int n, Rng& rng) : n_(n), h_(n + 1), w_(n + 2), cells_(h_ * w_), rng_(rng) {
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
    saved_.resize(cells_);
    amate_.assign(cells_, -1);
    alt_.resize(cells_);
    dused_.assign(doms_, 0);
    region_.reserve(cells_);
    region_doms_.reserve(doms_);
    cycle_.reserve(tiles_ + 1);
  }

  int n() const { return n_; }
  int cells() const { return cells_; }
  int tiles() const { return tiles_; }
  int width() const { return w_; }
  int height() const { return h_; }
  int mate(int c) const { return mate_[c]; }
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

  // The generator's own pass of the trivial deductions (spec §3): a domino with one placement
  // left is placed, a cell with one placement left is placed; placing removes the overlapping
  // placements and the domino's other ones. Returns the number of cells left unresolved; their
  // list is stalled() after commit_stalled(). Sound, so the intended tiling is never cut.
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

  // Saves and restores the values (the tiling never changes).
  void save() { std::copy(val_.begin(), val_.end(), saved_.begin()); }
  void restore() { std::copy(saved_.begin(), saved_.end(), val_.begin()); }

  // Exact uniqueness from the last trivial_unresolved(): its deductions are sound, so every
  // solution agrees with the intended one on the cells they resolved, and only the stalled cells
  // (with the dominoes not yet placed) are searched: depth first, always on the cell with the
  // fewest placements left. Returns 1 when the intended solution is the only one, 2 when there is
  // another (left in alt()), and -1 when the region has more than `max_region` cells or the search
  // more than `node_limit` nodes (unknown).
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

  // The puzzle and the intended solution.
  Puzzle puzzle() const {
    Puzzle p;
    p.n = n_;
    p.grid = val_;
    return p;
  }
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
  Rng& rng_;
  std::vector<int> mate_, val_, tile_of_, tile_cell_;
  std::vector<int> eu_, ev_, deg_, cell_edges_;
  std::vector<int> edom_, dstart_, dfill_, dlist_, dcount_, ccount_, queue_;
  std::vector<char> alive_, dplaced_, resolved_;
  std::vector<int> stalled_, dom_lo_, dom_hi_, perm_, saved_, cycle_;
  std::vector<int> region_, region_doms_, amate_, alt_;  // count_local
  std::vector<char> dused_;
  int found_ = 0;
  bool other_ = false, aborted_ = false;
  std::int64_t nodes_ = 0, node_limit_ = 0;
  int qhead_ = 0, qtail_ = 0;
};

// The uniqueness check of a hardening step searches at most this many stalled cells and nodes;
// beyond either the step is undone.
constexpr int kMaxRegion = 400;
constexpr std::int64_t kLocalNodes = 20000;

// One attempt: the builder, its budgets and its statistics.
class Attempt {
 public:
  Attempt(const GenerateOptions& options, std::uint64_t index, const StopFn& stop)
      : options_(options),
        index_(index),
        rng_(Rng::derive(options.seed, "attempt", index)),
        b_(options.n, rng_),
        stop_(stop) {
    p_.n = options.n;
    p_.grid.resize(b_.cells());
  }

  Builder& builder() { return b_; }
  GenerateStats& stats() { return stats_; }

  std::optional<Generated> run() {
    const Level level = options_.level;
    const std::int64_t cells = b_.cells();
    b_.randomize(8 * cells + 16);
    if (level == Level::ambiguous) return done(Level::ambiguous);
    if (ease(0, 40 * cells + 400) > 0 || stopped_) return std::nullopt;
    if (level == Level::trivial) {
      if (grade_now() != Level::trivial) return std::nullopt;  // never: the pass above is sound
      return done(Level::trivial);
    }
    return harden(level);
  }

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
      Builder::Move m = propose_near_stall();
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

  // Hardening from a trivial puzzle: local moves (anywhere, sometimes next to the region where
  // the trivial deductions stall) are checked for uniqueness on that region alone; a second
  // solution is repaired on its cycle; a unique result is graded, kept when the grade stays at or
  // below `level` and does not drop, and the walk stops when the grade reaches `level`.
  std::optional<Generated> harden(Level level) {
    Level g = Level::trivial;
    int u = 0;
    b_.save();
    const std::int64_t steps = 100 + 10 * static_cast<std::int64_t>(options_.n);
    const std::int64_t max_grades = envi("G_GRADES", 1000000);
    const int slack = envi("G_SLACK", 0);
    for (std::int64_t step = 0; step < steps; ++step) {
      if (stopped()) return std::nullopt;
      Builder::Move m = propose_harden();
      b_.apply(m);
      ++stats_.moves;
      int u2 = b_.trivial_unresolved();
      int unique = u2 == 0 ? 1 : count_local();
      for (int r = 0; unique == 2 && r < envi("G_REPAIRS", 3); ++r) {
        if (!repair()) break;
        u2 = b_.trivial_unresolved();
        unique = u2 == 0 ? 1 : count_local();
      }
      if (u2 == 0) {  // trivial: drift freely while nothing has been gained
        if (g == Level::trivial) {
          b_.save();
        } else {
          b_.restore();
        }
        continue;
      }
      if (std::getenv("G_DEBUG")) fprintf(stderr, "step %ld u=%d u2=%d unique=%d g=%d\n", (long)step, u, u2, unique, (int)g);
      if (unique != 1 || u2 + slack < u) {
        b_.restore();
        continue;
      }
      if (stats_.grades >= max_grades) return std::nullopt;
      const Level g2 = grade_now();
      if (g2 == level) return done(level);
      if (g2 < level && g2 >= g) {
        g = g2;
        u = b_.trivial_unresolved();
        b_.commit_stalled();
        b_.save();
      } else {
        b_.restore();
      }
    }
    return std::nullopt;
  }

  int count_local() {
    const int r = b_.count_local(kMaxRegion, kLocalNodes);
    stats_.nodes += b_.nodes();
    return r;
  }

  // Breaks the second solution count_local() found: find_cycle takes an alternating cycle of its
  // difference with the intended solution, and a turn or a swap of an intended tile on the cycle
  // that makes the second solution use some domino twice is applied. False when no such change
  // was found.
  bool repair() {
    b_.find_cycle();
    const auto& cyc = b_.cycle();
    if (cyc.empty()) return false;
    for (int k = 0; k < 16; ++k) {
      Builder::Move m;
      m.t1 = cyc[rng_.below(cyc.size())];
      const auto kind = rng_.below(3);
      if (kind == 0 && !b_.is_double(m.t1)) {
        // turn it
      } else if (kind == 1 && cyc.size() > 1) {
        m.t2 = cyc[rng_.below(cyc.size())];
      } else {
        m.t2 = b_.tile_near(b_.tile_cell(m.t1, 0), 2);
      }
      if (m.t2 == m.t1) continue;
      b_.apply(m);
      ++stats_.moves;
      if (!b_.alt_still_solves()) {
        ++stats_.repairs;
        return true;
      }
      b_.undo(m);
    }
    return false;
  }

  // A move with its first tile in the stalled region.
  Builder::Move propose_near_stall() {
    const auto& st = b_.stalled();
    Builder::Move m;
    const int c = st.empty() ? static_cast<int>(rng_.below(b_.cells()))
                             : st[rng_.below(st.size())];
    m.t1 = b_.tile_of(c);
    const auto kind = rng_.below(10);
    if (kind < 2 && !b_.is_double(m.t1)) return m;  // turn it around
    do {
      if (kind < 6 && !st.empty())
        m.t2 = b_.tile_of(st[rng_.below(st.size())]);
      else if (kind < 9)
        m.t2 = b_.tile_near(c, 3);
      else
        m.t2 = b_.random_tile();
    } while (m.t2 == m.t1 && b_.tiles() > 1);
    if (m.t2 == m.t1) m.t2 = -1;
    return m;
  }

  // A local move near the stalled region (or anywhere while there is none).
  Builder::Move propose_harden() {
    const auto& st = b_.stalled();
    Builder::Move m;
    const int c = (!st.empty() && (int)rng_.below(100) < envi("G_NEAR", 75)) ? st[rng_.below(st.size())]
                                                      : static_cast<int>(rng_.below(b_.cells()));
    m.t1 = b_.tile_near(c, 1);
    if (rng_.below(6) == 0 && !b_.is_double(m.t1)) return m;
    do {
      m.t2 = b_.tile_near(b_.tile_cell(m.t1, 0), 2);
    } while (m.t2 == m.t1 && b_.tiles() > 1);
    if (m.t2 == m.t1) m.t2 = -1;
    return m;
  }

 private:
  void sync() {
    for (int c = 0; c < b_.cells(); ++c) p_.grid[c] = b_.value(c);
  }

  Level grade_now() {
    sync();
    ++stats_.grades;
    auto t0 = std::chrono::steady_clock::now();
    auto g = grade(p_);
    g_grade_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return g;
  }

  std::optional<Generated> done(Level level) {
    sync();
    return Generated{p_, b_.solution(), level, index_, stats_};
  }

  const GenerateOptions& options_;
  std::uint64_t index_;
  Rng rng_;
  Builder b_;
  const StopFn& stop_;
  Puzzle p_;
  GenerateStats stats_;
  std::uint64_t polls_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::optional<Generated> generate_attempt(const GenerateOptions& options, std::uint64_t attempt,
                                          const StopFn& stop) {
  if (options.n < 1 || options.n > kMaxN) return std::nullopt;
  Attempt a(options, attempt, stop);
  return a.run();
}

std::optional<Generated> generate(const GenerateOptions& options, const StopFn& stop) {
  for (std::int64_t i = 0; i < options.max_attempts; ++i) {
    if (stop && stop()) return std::nullopt;
    auto made = generate_attempt(options, static_cast<std::uint64_t>(i), stop);
    if (made) return made;
  }
  return std::nullopt;
}

}  // namespace arbiter::dominosa
