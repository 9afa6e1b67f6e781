// The density shooter: per cell, the chance that it holds a ship given every answer so far, by
// exact enumeration of the ships touching unresolved hits (Density, on bitboards), with a plain
// segment count when the covers are too many.
#include "games/battleship/bitboard.h"
#include "games/battleship/bots_internal.h"
#include "games/battleship/covers.h"

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
  explicit Density(const Config& config)
      : grid_(config), covers_(config), config_announce_sunk_(config.announce_sunk) {}

  void estimate(const Knowledge& k, std::vector<double>& p) override {
    const int n = grid_.size();
    p.assign(n, 0.0);
    covers_.prepare(k);
    const auto& classes = covers_.classes();
    extra_.resize(classes.size());
    universe_ = Bits<W>();
    for (std::size_t ci = 0; ci < classes.size(); ++ci) {
      const auto& free = classes[ci].free;
      Extra& f = extra_[ci];
      f.start.assign(n + 1, 0);
      for (const Piece* pc : free) {
        universe_ |= pc->cells;
        for_cells(pc->seg, [&](int i) { ++f.start[i + 1]; });
      }
      for (int i = 0; i < n; ++i) f.start[i + 1] += f.start[i];
      f.through.resize(f.start[n]);
      std::vector<int>& fill = f.removed;  // reused as a cursor per cell
      fill.assign(f.start.begin(), f.start.end() - 1);
      for (std::size_t idx = 0; idx < free.size(); ++idx)
        for_cells(free[idx]->seg, [&](int i) { f.through[fill[i]++] = static_cast<int>(idx); });
      f.mark.assign(free.size(), 0);
      f.scale = 0.0;
    }

    stamp_ = 0;
    total_ = 0.0;
    p_ = &p;
    const bool complete = covers_.enumerate(
        kMaxNodes, kMaxCovers,
        [this](const Bits<W>& body, const Bits<W>& keep_out) { leaf(body, keep_out); });
    if (!complete || !(total_ > 0.0)) {
      heuristic(p);
    } else {
      for (std::size_t ci = 0; ci < classes.size(); ++ci)
        for (const Piece* pc : classes[ci].free)
          for_cells(pc->seg, [&](int i) { p[i] += extra_[ci].scale; });
      for (double& x : p) x = std::max(0.0, x / total_);  // rounding may leave a hair below 0
    }
    for (int i = 0; i < n; ++i)
      if (k.state[i] != kUnknown) p[i] = 0.0;
  }

 private:
  using Piece = battleship::Piece<W>;
  // Per ship class (Covers::classes(), same index): its free segments through each cell (CSR:
  // start has n + 1 entries), and what the leaves add up.
  struct Extra {
    std::vector<int> start, through;
    std::vector<int> mark;     // per free segment: the stamp of the last leaf that removed it
    std::vector<int> removed;  // scratch: free segments meeting the current cover
    double scale = 0.0;        // sum over covers of weight * afloat / (free segments left)
  };

  // A complete cover. Rather than rescanning every free segment, it looks up the few that meet
  // the cover's keep-out area: the rest contribute to every cover alike, which `scale` collects
  // and estimate() adds once at the end.
  void leaf(const Bits<W>& body, const Bits<W>& keep_out) {
    const Bits<W> touched = keep_out & universe_;
    const auto& classes = covers_.classes();
    double weight = 1.0;
    for (std::size_t ci = 0; ci < classes.size(); ++ci) {
      Extra& f = extra_[ci];
      f.removed.clear();
      const int afloat = classes[ci].afloat;
      if (afloat == 0) continue;  // all in the cover
      const int stamp = ++stamp_;
      touched.each([&](int x) {
        for (int t = f.start[x]; t < f.start[x + 1]; ++t) {
          const int idx = f.through[t];
          if (f.mark[idx] == stamp) continue;
          f.mark[idx] = stamp;
          f.removed.push_back(idx);
        }
      });
      const double count = static_cast<double>(classes[ci].free.size() - f.removed.size());
      for (int m = 1; m <= afloat; ++m) weight *= count / m;
    }
    if (!(weight > 0.0)) return;
    total_ += weight;
    std::vector<double>& p = *p_;
    body.each([&](int i) { p[i] += weight; });
    for (std::size_t ci = 0; ci < classes.size(); ++ci) {
      Extra& f = extra_[ci];
      const int afloat = classes[ci].afloat;
      if (afloat == 0) continue;
      const double share =
          weight * afloat / static_cast<double>(classes[ci].free.size() - f.removed.size());
      f.scale += share;
      for (int idx : f.removed)
        for_cells(classes[ci].free[idx]->seg, [&](int i) { p[i] -= share; });
    }
  }

  // When covers are too many (or none fits): count every segment clear of what is blocked,
  // only those through unresolved hits if any does (weighted by the hits they cover), each
  // ship's counts normalized.
  void heuristic(std::vector<double>& p) {
    std::fill(p.begin(), p.end(), 0.0);
    const Bits<W>& loose = covers_.loose();
    for (bool targeting : {true, false}) {
      if (targeting && !loose.any()) continue;
      double total = 0.0;
      for (const auto& f : covers_.classes()) {
        double sum = 0.0;
        std::vector<std::pair<const Piece*, double>> used;
        for (const Piece& pc : covers_.pieces(f.length)) {
          if (pc.cells.meets(covers_.blocked())) continue;
          if (config_announce_sunk_ && pc.cells.within(covers_.hit())) continue;
          const int covered = (pc.cells & loose).count();
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

  Grid grid_;
  Covers<W> covers_;
  bool config_announce_sunk_ = true;
  std::vector<Extra> extra_;
  Bits<W> universe_;  // cells some free segment covers
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
