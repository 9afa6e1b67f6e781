// The posterior shooter: whole fleets drawn uniformly from those consistent with every answer
// (an exact sampler: the covers of the unresolved hits enumerated (covers.h), free ships by
// rejection), and shots chosen from the drawn fleets.
#include "games/battleship/bitboard.h"
#include "games/battleship/bots_internal.h"
#include "games/battleship/covers.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace arbiter::battleship {
namespace {

// Budget of the cover enumeration (calls and leaves) before the shooter falls back to the
// density estimate, and of proposals per requested fleet.
constexpr long kMaxNodes = 200'000;
constexpr long kMaxCovers = 20'000;
constexpr int kProposalsPerFleet = 50;
// Fewer fleets than this (free ships that rarely fit, e.g. no_touch on a small grid) and the
// shooter takes density's estimate instead.
constexpr int kMinFleets = 200;

double unit(Rng& rng) {
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
}

// The sampler. A draw picks a cover (covers.h) with probability proportional to the product
// over lengths of N^m / m! (m free ships of that length, N segments each may take given the
// cover), puts each free ship on one of its N segments uniformly, and is rejected when free
// ships overlap (with no_touch: touch). Every consistent fleet (ships of one length unordered)
// then has the same chance 1 / (sum of the weights) per proposal, so accepted draws are uniform
// over them: the posterior under a uniform prior.
template <int W>
class Sampler final : public FleetSampler {
 public:
  explicit Sampler(const Config& config) : no_touch_(config.no_touch), covers_(config) {}

  bool prepare(const Knowledge& k) override {
    covers_.prepare(k);
    found_.clear();
    placed_.clear();
    total_ = 0.0;
    const bool complete = covers_.enumerate(
        kMaxNodes, kMaxCovers, [this](const Bits<W>&, const Bits<W>& keep_out) { leaf(keep_out); });
    return complete && total_ > 0.0;
  }

  bool propose(Rng& rng, std::vector<Segment>& fleet) override {
    if (!propose(rng)) return false;
    fleet = covers_.fixed();
    for (const Piece<W>* pc : drawn_) fleet.push_back(pc->seg);
    return true;
  }

  // Up to `fleets` fleets into `out`, each as its pieces (the ships but the sunk ones whose
  // segment is known), back to back, from at most fleets * kProposalsPerFleet proposals;
  // returns how many.
  int sample(Rng& rng, int fleets, std::vector<const Piece<W>*>& out) {
    out.clear();
    int drawn = 0;
    for (long budget = static_cast<long>(fleets) * kProposalsPerFleet; drawn < fleets && budget > 0;
         --budget) {
      if (!propose(rng)) continue;
      out.insert(out.end(), drawn_.begin(), drawn_.end());
      ++drawn;
    }
    return drawn;
  }

 private:
  struct Found {
    std::size_t first = 0, last = 0;  // its pieces: placed_[first, last)
    Bits<W> keep_out;                 // where no free ship may lie
    std::vector<int> left;            // per class: ships free
    double until = 0.0;               // the running sum of weights up to this cover
  };

  void leaf(const Bits<W>& keep_out) {
    double weight = 1.0;
    Found cover;
    for (const auto& c : covers_.classes()) {
      cover.left.push_back(c.afloat);
      if (c.afloat == 0) continue;
      int room = 0;
      for (const Piece<W>* pc : c.free) room += !pc->cells.meets(keep_out);
      for (int m = 1; m <= c.afloat; ++m) weight *= static_cast<double>(room) / m;
    }
    if (!(weight > 0.0)) return;
    total_ += weight;
    cover.first = placed_.size();
    placed_.insert(placed_.end(), covers_.stack().begin(), covers_.stack().end());
    cover.last = placed_.size();
    cover.keep_out = keep_out;
    cover.until = total_;
    found_.push_back(std::move(cover));
  }

  // One proposal into drawn_: true when its free ships neither overlap nor (no_touch) touch.
  bool propose(Rng& rng) {
    const double x = unit(rng) * total_;
    auto it = std::upper_bound(found_.begin(), found_.end(), x,
                               [](double v, const Found& c) { return v < c.until; });
    if (it == found_.end()) --it;
    const Found& cover = *it;
    drawn_.assign(placed_.begin() + static_cast<std::ptrdiff_t>(cover.first),
                  placed_.begin() + static_cast<std::ptrdiff_t>(cover.last));
    Bits<W> taken;  // the free ships' cells so far (with no_touch, their halos)
    const auto& classes = covers_.classes();
    for (std::size_t ci = 0; ci < classes.size(); ++ci) {
      for (int m = 0; m < cover.left[ci]; ++m) {
        const Piece<W>* pc = pick_free(classes[ci].free, cover.keep_out, rng);
        if (pc->cells.meets(taken)) return false;
        taken |= no_touch_ ? pc->halo : pc->cells;
        drawn_.push_back(pc);
      }
    }
    return true;
  }

  // A segment uniform among `free` clear of keep_out (the cover's weight says there is one).
  const Piece<W>* pick_free(const std::vector<const Piece<W>*>& free, const Bits<W>& keep_out,
                            Rng& rng) {
    for (int tries = 0; tries < 32; ++tries) {
      const Piece<W>* pc = free[rng.below(free.size())];
      if (!pc->cells.meets(keep_out)) return pc;
    }
    room_list_.clear();
    for (const Piece<W>* pc : free)
      if (!pc->cells.meets(keep_out)) room_list_.push_back(pc);
    return room_list_[rng.below(room_list_.size())];
  }

  bool no_touch_ = false;
  Covers<W> covers_;
  // Per prepare().
  std::vector<Found> found_;
  std::vector<const Piece<W>*> placed_;  // the covers' pieces, back to back
  double total_ = 0.0;
  // Per draw.
  std::vector<const Piece<W>*> drawn_;
  std::vector<const Piece<W>*> room_list_;
};

// The shooter on top of the sampler: per unknown cell, the share of drawn fleets with a ship
// there; then as density (the best cell, near ties drawn at random; salvo: the top cells).
// Looking one answer ahead (the most expected hits over two shots) and adding the answer's
// entropy were tried and measured no better (docs/benchmarks.md).
template <int W>
class Posterior final : public PosteriorModel {
 public:
  explicit Posterior(const Config& config)
      : grid_(config), sampler_(config), density_(make_density(config)) {}

  FleetSampler& sampler() override { return sampler_; }

  Shots choose(const Knowledge& k, int count, Rng& rng) override {
    const int n = grid_.size();
    const int fleets = sampler_.prepare(k) ? sampler_.sample(rng, kPosteriorFleets, pieces_) : 0;
    if (fleets < kMinFleets) {
      density_->estimate(k, p_);
      return shoot_density(grid_, k, p_, count, rng);
    }
    Bits<W> unknown;
    for (int i = 0; i < n; ++i)
      if (k.state[i] == kUnknown) unknown.set(i);
    p_.assign(n, 0.0);
    for (const Piece<W>* pc : pieces_) (pc->cells & unknown).each([&](int i) { p_[i] += 1.0; });
    return shoot_density(grid_, k, p_, count, rng);
  }

 private:
  Grid grid_;
  Sampler<W> sampler_;
  std::unique_ptr<DensityModel> density_;
  std::vector<const Piece<W>*> pieces_;
  std::vector<double> p_;
};

}  // namespace

std::unique_ptr<PosteriorModel> make_posterior(const Config& config) {
  const int n = config.rows * config.cols;
  if (n <= 128) return std::make_unique<Posterior<2>>(config);
  if (n <= 256) return std::make_unique<Posterior<4>>(config);
  return std::make_unique<Posterior<11>>(config);
}

}  // namespace arbiter::battleship
