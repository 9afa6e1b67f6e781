// The density shooter: per cell, the chance that it holds a ship given every answer so far, by
// exact enumeration of the ships touching unresolved hits (Density, on bitboards), with a plain
// segment count when the covers are too many.
#include "games/battleship/bitboard.h"
#include "games/battleship/bots_internal.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace arbiter::battleship {
namespace {

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
  using Piece = battleship::Piece<W>;
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

  Piece piece(const Segment& s) const { return piece_of<W>(grid_, s); }
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

}  // namespace

std::unique_ptr<DensityModel> make_density(const Config& config) {
  const int n = config.rows * config.cols;
  if (n <= 128) return std::make_unique<Density<2>>(config);
  if (n <= 256) return std::make_unique<Density<4>>(config);
  return std::make_unique<Density<11>>(config);  // up to 26 x 26 = 676 cells
}

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

}  // namespace arbiter::battleship
