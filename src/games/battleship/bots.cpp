// Battleship house bots: placements, the random, hunt, tracker and density shooters.
#include "games/battleship/bots.h"
#include "games/battleship/state.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace arbiter::battleship {
namespace {

// ---------------------------------------------------------------------------------------------
// Grid geometry on cell indices (row * cols + col)

// A straight run of `length` cells from `start` in steps of `step` (1 across, cols down).
struct Segment {
  int start = 0;
  int step = 1;
  int length = 0;
};

struct Grid {
  int rows = 0;
  int cols = 0;

  explicit Grid(const Config& c) : rows(c.rows), cols(c.cols) {}
  int size() const { return rows * cols; }
  bool inside(int r, int c) const { return r >= 0 && r < rows && c >= 0 && c < cols; }
  int index(Cell c) const { return c.row * cols + c.col; }
  Cell cell(int i) const { return {i / cols, i % cols}; }

  // Every in-grid segment of `length`: across first, then down (length 1: across only).
  std::vector<Segment> segments(int length) const {
    std::vector<Segment> out;
    if (length <= 0) return out;
    if (length <= cols)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c + length <= cols; ++c) out.push_back({r * cols + c, 1, length});
    if (length > 1 && length <= rows)
      for (int r = 0; r + length <= rows; ++r)
        for (int c = 0; c < cols; ++c) out.push_back({r * cols + c, cols, length});
    return out;
  }

  Ship ship(const Segment& s) const {
    return {s.length, cell(s.start), s.step == 1 || s.length == 1 ? Dir::h : Dir::v};
  }

  // Calls f(j) for every in-grid cell j among the 8 around i.
  template <class F>
  void around(int i, F&& f) const {
    const int r = i / cols, c = i % cols;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc)
        if ((dr || dc) && inside(r + dr, c + dc)) f((r + dr) * cols + c + dc);
  }

  // Calls f(j) for every in-grid orthogonal neighbour j of i.
  template <class F>
  void beside(int i, F&& f) const {
    const int r = i / cols, c = i % cols;
    if (r > 0) f(i - cols);
    if (r + 1 < rows) f(i + cols);
    if (c > 0) f(i - 1);
    if (c + 1 < cols) f(i + 1);
  }
};

template <class F>
void for_cells(const Segment& s, F&& f) {
  for (int k = 0; k < s.length; ++k) f(s.start + k * s.step);
}

void check_config(const Config& c) {
  if (c.rows < 1 || c.cols < 1 || c.rows > 26 || c.cols > 26)
    throw std::invalid_argument(fmt::format("bad grid {}x{}", c.rows, c.cols));
  for (int len : c.ships)
    if (len < 1 || len > std::max(c.rows, c.cols))
      throw std::invalid_argument(fmt::format("a ship of length {} cannot fit", len));
}

// ---------------------------------------------------------------------------------------------
// Placement

// The empty-board chance, per cell, that some ship covers it (ships taken independently).
std::vector<double> prior_density(const Config& config) {
  const Grid grid(config);
  std::vector<double> p(grid.size(), 0.0);
  for (int len : config.ships) {
    const auto segs = grid.segments(len);
    if (segs.empty()) continue;
    const double w = 1.0 / static_cast<double>(segs.size());
    for (const Segment& s : segs) for_cells(s, [&](int i) { p[i] += w; });
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// What the outgoing shots tell

enum : std::uint8_t { kUnknown = 0, kMiss = 1, kHit = 2 };

// A ship announced sunk: the segments it may be (length `length`, through `cell`, all hits fired
// no later than the sinking shot), narrowed down against the other sunk ships.
struct SunkShip {
  int cell = 0;
  int length = 0;
  int when = 0;
  std::vector<Segment> options;
  bool fixed = false;  // options.size() == 1
};

struct Knowledge {
  std::vector<std::uint8_t> state;    // kUnknown, kMiss, kHit per cell
  std::vector<int> when;              // index of the shot at the cell in view.outgoing, or -1
  std::vector<SunkShip> sunk;         // in the order announced
  std::vector<int> afloat;            // lengths of the opponent's ships not announced sunk
  std::vector<std::uint8_t> settled;  // hits that certainly belong to a sunk ship
  std::vector<std::uint8_t> banned;   // no_touch: unknown cells next to a settled cell
};

bool touches(const Grid& grid, const Segment& s, const std::vector<std::uint8_t>& mark) {
  bool hit = false;
  for_cells(s, [&](int i) {
    if (mark[i]) hit = true;
    grid.around(i, [&](int j) { hit = hit || mark[j]; });
  });
  return hit;
}

Knowledge read_view(const View& view, const Grid& grid) {
  const Config& config = view.config;
  const int n = grid.size();
  Knowledge k;
  k.state.assign(n, kUnknown);
  k.when.assign(n, -1);
  std::vector<std::uint8_t> sinks(n, 0);
  for (std::size_t t = 0; t < view.outgoing.size(); ++t) {
    const ShotResult& s = view.outgoing[t];
    if (!grid.inside(s.cell.row, s.cell.col)) continue;
    const int i = grid.index(s.cell);
    if (k.when[i] >= 0) continue;
    k.when[i] = static_cast<int>(t);
    k.state[i] = s.result == Outcome::miss ? kMiss : kHit;
    if (s.result == Outcome::sunk) {
      sinks[i] = 1;
      k.sunk.push_back({i, s.length, static_cast<int>(t), {}, false});
    }
  }

  k.afloat = config.ships;
  for (const SunkShip& s : k.sunk) {
    auto it = std::find(k.afloat.begin(), k.afloat.end(), s.length);
    if (it != k.afloat.end()) k.afloat.erase(it);
  }

  // Each sunk ship's options: segments through its sinking cell made of hits fired no later,
  // holding no other ship's sinking cell.
  for (SunkShip& s : k.sunk) {
    const int r = s.cell / grid.cols, c = s.cell % grid.cols;
    for (int dir = 0; dir < (s.length > 1 ? 2 : 1); ++dir) {
      for (int back = 0; back < s.length; ++back) {
        const int r0 = dir ? r - back : r, c0 = dir ? c : c - back;
        const int r1 = dir ? r0 + s.length - 1 : r0, c1 = dir ? c0 : c0 + s.length - 1;
        if (!grid.inside(r0, c0) || !grid.inside(r1, c1)) continue;
        const Segment seg{r0 * grid.cols + c0, dir ? grid.cols : 1, s.length};
        bool ok = true;
        for_cells(seg, [&](int i) {
          ok = ok && k.state[i] == kHit && k.when[i] <= s.when && (i == s.cell || !sinks[i]);
        });
        if (ok) s.options.push_back(seg);
      }
    }
  }
  // Narrow down: a ship pinned to one segment claims its cells (and, with no_touch, their
  // neighbourhood) from the others, until nothing changes. A ship left without options (only
  // in inconsistent views) is taken to be its sinking cell alone.
  std::vector<std::uint8_t> claimed(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (SunkShip& s : k.sunk) {
      if (s.fixed) continue;
      std::erase_if(s.options, [&](const Segment& seg) {
        if (config.no_touch) return touches(grid, seg, claimed);
        bool overlap = false;
        for_cells(seg, [&](int i) { overlap = overlap || claimed[i]; });
        return overlap;
      });
      if (s.options.size() > 1) continue;
      if (s.options.empty()) s.options.push_back({s.cell, 1, 1});
      s.fixed = true;
      for_cells(s.options[0], [&](int i) { claimed[i] = 1; });
      changed = true;
    }
  }
  k.settled.assign(n, 0);
  for (const SunkShip& s : k.sunk) {
    std::vector<int> times(n, 0);  // cells of all options: settled when in every one
    for (const Segment& seg : s.options) for_cells(seg, [&](int i) { ++times[i]; });
    for (int i = 0; i < n; ++i)
      if (times[i] == static_cast<int>(s.options.size())) k.settled[i] = 1;
  }
  k.banned.assign(n, 0);
  if (config.no_touch)
    for (int i = 0; i < n; ++i)
      if (k.settled[i])
        grid.around(i, [&](int j) {
          if (k.state[j] == kUnknown) k.banned[j] = 1;
        });
  return k;
}

// The first `count` distinct cells of `ranked`.
Shots pick(const Grid& grid, const std::vector<int>& ranked, int count) {
  Shots out;
  std::vector<std::uint8_t> used(grid.size(), 0);
  for (int i : ranked) {
    if (static_cast<int>(out.size()) == count) break;
    if (used[i]) continue;
    used[i] = 1;
    out.push_back(grid.cell(i));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Random, hunt and tracker

Shots shoot_random(const Grid& grid, const Knowledge& k, int count, Rng& rng) {
  std::vector<int> pool;
  for (int i = 0; i < grid.size(); ++i)
    if (k.state[i] == kUnknown) pool.push_back(i);
  count = std::min<int>(count, static_cast<int>(pool.size()));
  for (int j = 0; j < count; ++j) std::swap(pool[j], pool[j + rng.below(pool.size() - j)]);
  pool.resize(count);
  return pick(grid, pool, count);
}

// The textbook hunt/target as a function of the view: the target stack holds the unfired
// neighbours of every hit, the most recent hit's on top.
Shots shoot_hunt(const Grid& grid, const Knowledge& k, int count, Rng& rng) {
  const int n = grid.size();
  std::vector<int> hits;  // most recent first
  for (int i = 0; i < n; ++i)
    if (k.state[i] == kHit) hits.push_back(i);
  std::sort(hits.begin(), hits.end(), [&](int a, int b) { return k.when[a] > k.when[b]; });
  std::vector<std::uint8_t> listed(n, 0);
  std::vector<int> ranked;
  auto take = [&](std::vector<int>& tier) {
    rng.shuffle(tier.begin(), tier.end());
    for (int i : tier)
      if (!listed[i]) {
        listed[i] = 1;
        ranked.push_back(i);
      }
    tier.clear();
  };
  std::vector<int> tier;
  for (int h : hits) {
    grid.beside(h, [&](int j) {
      if (k.state[j] == kUnknown) tier.push_back(j);
    });
    take(tier);
  }
  for (int parity : {0, 1}) {
    for (int i = 0; i < n; ++i)
      if (k.state[i] == kUnknown && (i / grid.cols + i % grid.cols) % 2 == parity)
        tier.push_back(i);
    take(tier);
  }
  return pick(grid, ranked, count);
}

// Tracker: the open ends of lines of two or more unresolved hits first, then the
// orthogonal neighbours of unresolved hits, then (hunting) the parity lattice (r + c) mod m of
// the shortest ship afloat that is closest to fully covered, then anything unknown. Each tier
// in random order; cells next to a sunk ship under no_touch come last.
Shots shoot_tracker(const Grid& grid, const Knowledge& k, int count, Rng& rng) {
  const int n = grid.size();
  auto open = [&](int i) { return k.state[i] == kUnknown && !k.banned[i]; };
  auto loose = [&](int i) { return k.state[i] == kHit && !k.settled[i]; };
  std::vector<int> ends, sides, lattice, rest, last;
  std::vector<std::uint8_t> listed(n, 0);
  auto add = [&](std::vector<int>& tier, int i) {
    if (!listed[i]) {
      listed[i] = 1;
      tier.push_back(i);
    }
  };
  for (int i = 0; i < n; ++i) {
    if (!loose(i)) continue;
    const int r = i / grid.cols, c = i % grid.cols;
    for (int dir = 0; dir < 2; ++dir) {
      const int dr = dir, dc = 1 - dir;
      auto in_line = [&](int rr, int cc) {
        return grid.inside(rr, cc) && loose(rr * grid.cols + cc);
      };
      if (in_line(r - dr, c - dc)) continue;  // not the start of a run
      int len = 1;
      while (in_line(r + dr * len, c + dc * len)) ++len;
      if (len < 2) continue;
      for (int end : {-1, len}) {
        const int rr = r + dr * end, cc = c + dc * end;
        if (grid.inside(rr, cc) && open(rr * grid.cols + cc)) add(ends, rr * grid.cols + cc);
      }
    }
  }
  for (int i = 0; i < n; ++i)
    if (loose(i))
      grid.beside(i, [&](int j) {
        if (open(j)) add(sides, j);
      });
  int shortest = std::numeric_limits<int>::max();
  for (int len : k.afloat) shortest = std::min(shortest, len);
  if (k.afloat.empty()) shortest = 1;
  std::vector<int> left(shortest, 0);  // open cells per residue class
  for (int i = 0; i < n; ++i)
    if (open(i)) ++left[(i / grid.cols + i % grid.cols) % shortest];
  int residue = -1;
  for (int m = 0; m < shortest; ++m)
    if (left[m] > 0 && (residue < 0 || left[m] < left[residue])) residue = m;
  for (int i = 0; i < n; ++i) {
    if (k.state[i] != kUnknown) continue;
    if (k.banned[i])
      add(last, i);
    else if ((i / grid.cols + i % grid.cols) % shortest == residue)
      add(lattice, i);
    else
      add(rest, i);
  }
  std::vector<int> ranked;
  for (auto* tier : {&ends, &sides, &lattice, &rest, &last}) {
    rng.shuffle(tier->begin(), tier->end());
    ranked.insert(ranked.end(), tier->begin(), tier->end());
  }
  return pick(grid, ranked, count);
}

// ---------------------------------------------------------------------------------------------
// Density

// A fixed-size bitboard of W 64-bit words.
template <int W>
struct Bits {
  std::array<std::uint64_t, W> w{};

  void set(int i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
  bool test(int i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  bool any() const {
    std::uint64_t a = 0;
    for (int k = 0; k < W; ++k) a |= w[k];
    return a != 0;
  }
  bool meets(const Bits& o) const {
    std::uint64_t a = 0;
    for (int k = 0; k < W; ++k) a |= w[k] & o.w[k];
    return a != 0;
  }
  bool within(const Bits& o) const {
    std::uint64_t a = 0;
    for (int k = 0; k < W; ++k) a |= w[k] & ~o.w[k];
    return a == 0;
  }
  int count() const {
    int c = 0;
    for (int k = 0; k < W; ++k) c += std::popcount(w[k]);
    return c;
  }
  int first() const {  // REQUIRES: any()
    for (int k = 0;; ++k)
      if (w[k]) return k * 64 + std::countr_zero(w[k]);
  }
  Bits& operator|=(const Bits& o) {
    for (int k = 0; k < W; ++k) w[k] |= o.w[k];
    return *this;
  }
  friend Bits operator&(Bits a, const Bits& b) {
    for (int k = 0; k < W; ++k) a.w[k] &= b.w[k];
    return a;
  }
  friend Bits operator|(Bits a, const Bits& b) { return a |= b; }
  Bits operator~() const {
    Bits r;
    for (int k = 0; k < W; ++k) r.w[k] = ~w[k];
    return r;
  }
  template <class F>
  void each(F&& f) const {
    for (int k = 0; k < W; ++k)
      for (std::uint64_t x = w[k]; x; x &= x - 1) f(k * 64 + std::countr_zero(x));
  }
};

class DensityModel {
 public:
  virtual ~DensityModel() = default;
  // Per cell, the estimated chance that an unhit ship cell is there (0 where fired at).
  virtual void estimate(const Knowledge& k, std::vector<double>& p) = 0;
};

// Enumeration budget: leaves and calls of the covering search before falling back to the
// heuristic.
constexpr long kMaxCovers = 20'000;
constexpr long kMaxNodes = 200'000;

// The model. Ships afloat are split into the ones covering unresolved hits (a "cover", which
// also places the sunk ships whose cells are ambiguous) and the free ones, which lie on unknown
// cells only. Covers are enumerated exactly (depth first, always covering the lowest uncovered
// hit next); the free ships are taken independently of each other given the cover, each uniform
// over its segments clear of the cover. So a cover weighs the product of the free ships' segment
// counts (divided by k! for k free ships of one length), and a free ship with N segments, C of
// them through cell c, puts C / N on c. With announced sinkings no ship afloat lies on hits
// only. Positions with more covers than the budget (rare: long rows of unresolved hits) fall
// back to a plain segment count. Grids of up to 128 cells fit in two 64-bit words.
template <int W>
class Density final : public DensityModel {
 public:
  explicit Density(const Config& config) : config_(config), grid_(config) {
    const int n = grid_.size();
    int longest = 0;
    for (int len : config.ships) longest = std::max(longest, len);
    by_length_.resize(longest + 1);
    for (int len : config.ships) {
      if (!by_length_[len].empty()) continue;
      for (const Segment& s : grid_.segments(len)) by_length_[len].push_back(piece(s));
    }
    halo_of_.resize(n);
    for (int i = 0; i < n; ++i) {
      halo_of_[i].set(i);
      grid_.around(i, [&](int j) { halo_of_[i].set(j); });
    }
  }

  void estimate(const Knowledge& k, std::vector<double>& p) override {
    const int n = grid_.size();
    p.assign(n, 0.0);
    Bits<W> miss, hit;
    for (int i = 0; i < n; ++i) {
      if (k.state[i] == kMiss) miss.set(i);
      if (k.state[i] == kHit) hit.set(i);
    }
    // Fixed sunk ships are out of the picture (with their neighbourhood under no_touch); the
    // ambiguous ones join the cover.
    Bits<W> sunk;
    ambiguous_.clear();
    for (const SunkShip& s : k.sunk) {
      if (s.fixed) {
        for_cells(s.options[0], [&](int i) { sunk.set(i); });
      } else {
        ambiguous_.emplace_back();
        for (const Segment& seg : s.options) ambiguous_.back().push_back(piece(seg));
      }
    }
    hit_ = hit;
    blocked_ = miss | sunk;
    if (config_.no_touch) blocked_ |= halo(sunk);
    loose_ = hit & ~sunk;
    guard_ = config_.no_touch ? halo(loose_) : loose_;

    // Ships afloat by length; their segments clear of what is blocked, and not all hits (that
    // ship would have been announced sunk).
    lengths_.clear();
    for (int len : k.afloat) {
      auto it = std::find_if(lengths_.begin(), lengths_.end(),
                             [&](const ShipClass& f) { return f.length == len; });
      if (it == lengths_.end()) {
        lengths_.push_back({});
        lengths_.back().length = len;
        it = lengths_.end() - 1;
      }
      ++it->afloat;
    }
    for (ShipClass& f : lengths_) {
      f.free.clear();
      f.cover.clear();
      for (const Piece& piece : by_length_[f.length]) {
        if (piece.cells.meets(blocked_)) continue;
        if (config_.announce_sunk && piece.cells.within(hit)) continue;
        if (piece.cells.meets(loose_))
          f.cover.push_back(&piece);
        else if (!piece.cells.meets(guard_))
          f.free.push_back(&piece);
      }
    }

    universe_ = Bits<W>();
    for (ShipClass& f : lengths_) {
      f.start.assign(n + 1, 0);
      for (const Piece* pc : f.free) {
        universe_ |= pc->cells;
        for_cells(pc->seg, [&](int i) { ++f.start[i + 1]; });
      }
      for (int i = 0; i < n; ++i) f.start[i + 1] += f.start[i];
      f.through.resize(f.start[n]);
      std::vector<int>& fill = f.removed;  // reused as a cursor per cell
      fill.assign(f.start.begin(), f.start.end() - 1);
      for (std::size_t idx = 0; idx < f.free.size(); ++idx)
        for_cells(f.free[idx]->seg, [&](int i) { f.through[fill[i]++] = static_cast<int>(idx); });
      f.mark.assign(f.free.size(), 0);
      f.scale = 0.0;
    }

    covers_ = 0;
    nodes_ = 0;
    overflow_ = false;
    room_ = 0;
    for (const ShipClass& f : lengths_) room_ += f.afloat * f.length;
    stamp_ = 0;
    total_ = 0.0;
    p_ = &p;
    search(0, Bits<W>(), Bits<W>());
    if (overflow_ || !(total_ > 0.0)) {
      heuristic(p);
    } else {
      for (const ShipClass& f : lengths_)
        for (const Piece* pc : f.free) for_cells(pc->seg, [&](int i) { p[i] += f.scale; });
      for (double& x : p) x = std::max(0.0, x / total_);  // rounding may leave a hair below 0
    }
    for (int i = 0; i < n; ++i)
      if (k.state[i] != kUnknown) p[i] = 0.0;
  }

 private:
  struct Piece {
    Bits<W> cells;
    Bits<W> halo;  // cells and their neighbours
    Segment seg;
  };
  struct ShipClass {
    int length = 0;
    int afloat = 0;                   // ships of this length not sunk
    std::vector<const Piece*> free;   // segments a free ship may take
    std::vector<const Piece*> cover;  // segments through unresolved hits
    // Per free segment index: the segments through each cell (CSR: start has n + 1 entries).
    std::vector<int> start, through;
    std::vector<int> mark;     // per free segment: the stamp of the last leaf that removed it
    std::vector<int> removed;  // scratch: free segments meeting the current cover
    double scale = 0.0;        // sum over covers of weight * afloat / (free segments left)
  };

  Piece piece(const Segment& s) const {
    Piece pc;
    pc.seg = s;
    for_cells(s, [&](int i) {
      pc.cells.set(i);
      pc.halo.set(i);
      grid_.around(i, [&](int j) { pc.halo.set(j); });
    });
    return pc;
  }
  Bits<W> halo(const Bits<W>& b) const {
    Bits<W> out;
    b.each([&](int i) { out |= halo_of_[i]; });
    return out;
  }

  // Places the ambiguous sunk ships, then covers the lowest uncovered hit with each ship length
  // afloat in turn. `body`: cells of the cover; `keep_out`: where no other ship may go.
  void search(std::size_t next_sunk, const Bits<W>& body, const Bits<W>& keep_out) {
    if (overflow_ || ++nodes_ > kMaxNodes) {
      overflow_ = true;
      return;
    }
    if (next_sunk < ambiguous_.size()) {
      for (const Piece& pc : ambiguous_[next_sunk]) {
        if (pc.cells.meets(keep_out)) continue;
        search(next_sunk + 1, body | pc.cells, keep_out | (config_.no_touch ? pc.halo : pc.cells));
      }
      return;
    }
    const Bits<W> open = loose_ & ~body;
    if (!open.any()) {
      if (++covers_ > kMaxCovers)
        overflow_ = true;
      else
        leaf(body, keep_out);
      return;
    }
    if (open.count() > room_) return;  // the ships left are too short to cover the hits left
    const int target = open.first();
    for (ShipClass& f : lengths_) {
      if (f.afloat == 0) continue;
      --f.afloat;
      room_ -= f.length;
      for (const Piece* pc : f.cover) {
        if (!pc->cells.test(target) || pc->cells.meets(keep_out)) continue;
        search(next_sunk, body | pc->cells, keep_out | (config_.no_touch ? pc->halo : pc->cells));
      }
      room_ += f.length;
      ++f.afloat;
    }
  }

  // A complete cover. Rather than rescanning every free segment, it looks up the few that meet
  // the cover's keep-out area: the rest contribute to every cover alike, which `scale` collects
  // and estimate() adds once at the end.
  void leaf(const Bits<W>& body, const Bits<W>& keep_out) {
    const Bits<W> touched = keep_out & universe_;
    double weight = 1.0;
    for (ShipClass& f : lengths_) {
      f.removed.clear();
      if (f.afloat == 0) continue;  // all in the cover
      const int stamp = ++stamp_;
      touched.each([&](int x) {
        for (int t = f.start[x]; t < f.start[x + 1]; ++t) {
          const int idx = f.through[t];
          if (f.mark[idx] == stamp) continue;
          f.mark[idx] = stamp;
          f.removed.push_back(idx);
        }
      });
      const double count = static_cast<double>(f.free.size() - f.removed.size());
      for (int m = 1; m <= f.afloat; ++m) weight *= count / m;
    }
    if (!(weight > 0.0)) return;
    total_ += weight;
    std::vector<double>& p = *p_;
    body.each([&](int i) { p[i] += weight; });
    for (ShipClass& f : lengths_) {
      if (f.afloat == 0) continue;
      const double share =
          weight * f.afloat / static_cast<double>(f.free.size() - f.removed.size());
      f.scale += share;
      for (int idx : f.removed) for_cells(f.free[idx]->seg, [&](int i) { p[i] -= share; });
    }
  }

  // When covers are too many (or none fits): count every segment clear of what is blocked,
  // only those through unresolved hits if any does (weighted by the hits they cover), each
  // ship's counts normalized.
  void heuristic(std::vector<double>& p) {
    std::fill(p.begin(), p.end(), 0.0);
    for (bool targeting : {true, false}) {
      if (targeting && !loose_.any()) continue;
      double total = 0.0;
      for (const ShipClass& f : lengths_) {
        double sum = 0.0;
        std::vector<std::pair<const Piece*, double>> used;
        for (const Piece& pc : by_length_[f.length]) {
          if (pc.cells.meets(blocked_)) continue;
          if (config_.announce_sunk && pc.cells.within(hit_)) continue;
          const int covered = (pc.cells & loose_).count();
          const double w = targeting ? covered : (covered ? 0.0 : 1.0);
          if (w > 0) {
            used.emplace_back(&pc, w);
            sum += w;
          }
        }
        for (auto [pc, w] : used) for_cells(pc->seg, [&](int i) { p[i] += f.afloat * w / sum; });
        total += sum;
      }
      if (total > 0) return;
    }
  }

  Config config_;
  Grid grid_;
  std::vector<std::vector<Piece>> by_length_;
  std::vector<Bits<W>> halo_of_;
  // Per call.
  std::vector<std::vector<Piece>> ambiguous_;
  std::vector<ShipClass> lengths_;
  Bits<W> hit_, blocked_, loose_, guard_;
  Bits<W> universe_;  // cells some free segment covers
  long covers_ = 0;   // leaves so far
  long nodes_ = 0;    // calls so far
  bool overflow_ = false;
  int room_ = 0;  // cells the ships not in the cover yet could cover
  int stamp_ = 0;
  double total_ = 0.0;
  std::vector<double>* p_ = nullptr;
};

std::unique_ptr<DensityModel> make_density(const Config& config) {
  const int n = config.rows * config.cols;
  if (n <= 128) return std::make_unique<Density<2>>(config);
  if (n <= 256) return std::make_unique<Density<4>>(config);
  return std::make_unique<Density<11>>(config);  // up to 26 x 26 = 676 cells
}

// The `count` cells with the highest estimate (ties in random order), then random unknown
// cells if the estimate runs out.
Shots shoot_density(const Grid& grid, const Knowledge& k, const std::vector<double>& p, int count,
                    Rng& rng) {
  std::vector<int> cells;
  for (int i = 0; i < grid.size(); ++i)
    if (k.state[i] == kUnknown) cells.push_back(i);
  if (count == 1) {  // the common case: the best cell, ties drawn uniformly
    double best = 0.0;
    for (int i : cells) best = std::max(best, p[i]);
    if (!(best > 0.0)) return shoot_random(grid, k, count, rng);
    std::vector<int> top;
    for (int i : cells)
      if (p[i] >= best * (1 - 1e-9)) top.push_back(i);
    return {grid.cell(top[rng.below(top.size())])};
  }
  rng.shuffle(cells.begin(), cells.end());
  std::stable_sort(cells.begin(), cells.end(), [&](int a, int b) { return p[a] > p[b]; });
  return pick(grid, cells, count);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Names

std::string_view to_string(ShooterKind kind) {
  switch (kind) {
    case ShooterKind::random:
      return "random";
    case ShooterKind::hunt:
      return "hunt";
    case ShooterKind::tracker:
      return "tracker";
    case ShooterKind::density:
      return "density";
  }
  return "?";
}

std::string_view to_string(PlacerKind kind) {
  switch (kind) {
    case PlacerKind::uniform:
      return "uniform";
    case PlacerKind::evasive:
      return "evasive";
  }
  return "?";
}

std::string to_string(const BotSpec& spec) {
  std::string out(to_string(spec.shooter));
  if (spec.placer != PlacerKind::uniform) out += fmt::format("+{}", to_string(spec.placer));
  return out;
}

Expected<BotSpec> parse_bot(std::string_view text) {
  const auto plus = text.find('+');
  const std::string_view shooter = text.substr(0, plus);
  BotSpec spec;
  if (shooter == "random") {
    spec.shooter = ShooterKind::random;
  } else if (shooter == "hunt") {
    spec.shooter = ShooterKind::hunt;
  } else if (shooter == "tracker") {
    spec.shooter = ShooterKind::tracker;
  } else if (shooter == "density") {
    spec.shooter = ShooterKind::density;
  } else {
    return fail(fmt::format("bot \"{}\": unknown shooter \"{}\" (random, hunt, tracker, density)",
                            text, shooter));
  }
  if (plus == std::string_view::npos) return spec;
  const std::string_view placer = text.substr(plus + 1);
  if (placer == "uniform") {
    spec.placer = PlacerKind::uniform;
  } else if (placer == "evasive") {
    spec.placer = PlacerKind::evasive;
  } else {
    return fail(
        fmt::format("bot \"{}\": unknown placement \"{}\" (uniform, evasive)", text, placer));
  }
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Geometry

int shots_due(const View& view) {
  const Grid grid(view.config);
  int unknown = grid.size();
  std::vector<std::uint8_t> fired(grid.size(), 0);
  for (const ShotResult& s : view.outgoing)
    if (grid.inside(s.cell.row, s.cell.col) && !fired[grid.index(s.cell)]) {
      fired[grid.index(s.cell)] = 1;
      --unknown;
    }
  int due = 1;
  if (view.config.salvo) {
    std::vector<std::uint8_t> struck(grid.size(), 0);
    for (const ShotResult& s : view.incoming)
      if (s.result != Outcome::miss && grid.inside(s.cell.row, s.cell.col))
        struck[grid.index(s.cell)] = 1;
    int afloat = 0;
    for (const Ship& ship : view.fleet) {
      bool sunk = true;
      for (const Cell& c : ship_cells(ship))
        sunk = sunk && grid.inside(c.row, c.col) && struck[grid.index(c)];
      if (!sunk) ++afloat;
    }
    due = std::max(afloat, 1);
  }
  return std::min(due, unknown);
}

// ---------------------------------------------------------------------------------------------
// Placement

Fleet place_uniform(const Config& config, Rng& rng) {
  check_config(config);
  auto fleet = random_fleet(config, rng);
  if (!fleet) throw std::invalid_argument("no legal fleet found for this config");
  return std::move(*fleet);
}

Fleet place_evasive(const Config& config, Rng& rng) {
  const Grid grid(config);
  const std::vector<double> density = prior_density(config);
  Fleet best;
  double best_score = std::numeric_limits<double>::infinity();
  for (int draw = 0; draw < kEvasiveDraws; ++draw) {
    Fleet fleet = place_uniform(config, rng);
    double score = 0.0;
    for (const Ship& s : fleet)
      for (const Cell& c : ship_cells(s)) score += density[grid.index(c)];
    if (score < best_score) {
      best_score = score;
      best = std::move(fleet);
    }
  }
  return best;
}

Fleet place(PlacerKind kind, const Config& config, Rng& rng) {
  return kind == PlacerKind::evasive ? place_evasive(config, rng) : place_uniform(config, rng);
}

// ---------------------------------------------------------------------------------------------
// Shooting

struct Shooter::Impl {
  ShooterKind kind;
  Config config;  // what `density` was built for
  std::unique_ptr<DensityModel> density;
  std::vector<double> p;

  DensityModel& model(const Config& c) {
    if (!density || !(config == c)) {
      config = c;
      density = make_density(c);
    }
    return *density;
  }
};

Shooter::Shooter(ShooterKind kind) : impl_(std::make_unique<Impl>()) {
  impl_->kind = kind;
}
Shooter::~Shooter() = default;
Shooter::Shooter(Shooter&&) noexcept = default;
Shooter& Shooter::operator=(Shooter&&) noexcept = default;

ShooterKind Shooter::kind() const {
  return impl_->kind;
}

Shots Shooter::choose(const View& view, Rng& rng) {
  check_config(view.config);
  const Grid grid(view.config);
  const Knowledge k = read_view(view, grid);
  const int count = shots_due(view);
  if (count <= 0) return {};
  switch (impl_->kind) {
    case ShooterKind::random:
      return shoot_random(grid, k, count, rng);
    case ShooterKind::hunt:
      return shoot_hunt(grid, k, count, rng);
    case ShooterKind::tracker:
      return shoot_tracker(grid, k, count, rng);
    case ShooterKind::density:
      impl_->model(view.config).estimate(k, impl_->p);
      return shoot_density(grid, k, impl_->p, count, rng);
  }
  return {};
}

Shots choose_shots(ShooterKind kind, const View& view, Rng& rng) {
  Shooter shooter(kind);
  return shooter.choose(view, rng);
}

std::vector<double> density_map(const View& view) {
  check_config(view.config);
  const Grid grid(view.config);
  const Knowledge k = read_view(view, grid);
  std::vector<double> p;
  make_density(view.config)->estimate(k, p);
  return p;
}

}  // namespace arbiter::battleship
