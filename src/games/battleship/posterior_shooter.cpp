// The posterior shooter: whole fleets drawn uniformly from those consistent with every answer
// (an exact sampler: enumerated covers of the unresolved hits, free ships by rejection), and
// shots chosen from the drawn fleets.
#include "games/battleship/bitboard.h"
#include "games/battleship/bots_internal.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>
#include <cmath>

namespace arbiter::battleship {
namespace {

// Budget of the cover enumeration (calls and leaves) before the shooter falls back to the
// density estimate, and of proposals per requested fleet before sampling gives up.
constexpr long kMaxNodes = 200'000;
constexpr std::size_t kMaxCovers = 20'000;
constexpr int kProposalsPerFleet = 200;

double unit(Rng& rng) {
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
}

// The sampler. A fleet consistent with the answers is a "cover" (the ambiguous sunk ships on one
// of their options, and ships afloat on segments that together hold every unresolved hit) plus
// "free" ships afloat on unknown cells clear of the cover. Covers are enumerated exactly (depth
// first, the lowest uncovered hit next, one ship of each length afloat in turn). A draw picks a
// cover with probability proportional to prod over lengths of N^m / m! (m free ships of that
// length, N segments each may take given the cover), puts each free ship on one of its N segments
// uniformly, and is rejected when free ships overlap (with no_touch: touch). Every consistent
// fleet (ships of one length unordered) then has the same chance 1 / (sum of the weights) per
// proposal, so accepted draws are uniform over them: the posterior under a uniform prior.
template <int W>
class Sampler final : public FleetSampler {
 public:
  explicit Sampler(const Config& config) : config_(config), grid_(config) {
    int longest = 0;
    for (int len : config.ships) longest = std::max(longest, len);
    by_length_.resize(longest + 1);
    for (int len : config.ships) {
      if (!by_length_[len].empty()) continue;
      for (const Segment& s : grid_.segments(len)) by_length_[len].push_back(piece_of<W>(grid_, s));
    }
    halo_of_.resize(grid_.size());
    for (int i = 0; i < grid_.size(); ++i) {
      halo_of_[i].set(i);
      grid_.around(i, [&](int j) { halo_of_[i].set(j); });
    }
  }

  bool prepare(const Knowledge& k) override {
    const int n = grid_.size();
    Bits<W> miss, hit, sunk;
    for (int i = 0; i < n; ++i) {
      if (k.state[i] == kMiss) miss.set(i);
      if (k.state[i] == kHit) hit.set(i);
    }
    fixed_.clear();
    ambiguous_.clear();
    for (const SunkShip& s : k.sunk) {
      if (s.fixed) {
        fixed_.push_back(s.options[0]);
        for_cells(s.options[0], [&](int i) { sunk.set(i); });
      } else {
        ambiguous_.emplace_back();
        for (const Segment& seg : s.options) ambiguous_.back().push_back(piece_of<W>(grid_, seg));
      }
    }
    Bits<W> blocked = miss | sunk;
    if (config_.no_touch) blocked |= halo(sunk);
    loose_ = hit & ~sunk;
    const Bits<W> guard = config_.no_touch ? halo(loose_) : loose_;

    classes_.clear();
    for (int len : k.afloat) {
      auto it = std::find_if(classes_.begin(), classes_.end(),
                             [&](const ShipClass& c) { return c.length == len; });
      if (it == classes_.end()) {
        classes_.push_back({});
        classes_.back().length = len;
        it = classes_.end() - 1;
      }
      ++it->afloat;
    }
    room_ = 0;
    for (ShipClass& c : classes_) {
      room_ += c.afloat * c.length;
      for (const Piece<W>& pc : by_length_[c.length]) {
        if (pc.cells.meets(blocked)) continue;
        if (config_.announce_sunk && pc.cells.within(hit)) continue;  // it would be sunk
        if (pc.cells.meets(loose_))
          c.cover.push_back(&pc);
        else if (!pc.cells.meets(guard))
          c.free.push_back(&pc);
      }
    }

    covers_.clear();
    placed_.clear();
    stack_.clear();
    total_ = 0.0;
    nodes_ = 0;
    overflow_ = false;
    search(0, Bits<W>(), Bits<W>());
    return !overflow_ && total_ > 0.0;
  }

  bool draw(Rng& rng, std::vector<Segment>& fleet) override {
    for (int attempt = 0; attempt < kProposalsPerFleet; ++attempt)
      if (propose(rng)) {
        fleet = fixed_;
        for (const Piece<W>* pc : drawn_) fleet.push_back(pc->seg);
        return true;
      }
    return false;
  }

  // Up to `fleets` fleets into `out`, each as its pieces (the ships but the sunk ones whose
  // segment is known), `stride` of them per fleet; returns how many.
  int sample(Rng& rng, int fleets, std::vector<const Piece<W>*>& out, std::size_t& stride) {
    out.clear();
    stride = 0;
    int drawn = 0;
    for (; drawn < fleets; ++drawn) {
      bool accepted = false;
      for (int attempt = 0; attempt < kProposalsPerFleet && !accepted; ++attempt)
        accepted = propose(rng);
      if (!accepted) break;
      stride = drawn_.size();
      out.insert(out.end(), drawn_.begin(), drawn_.end());
    }
    return drawn;
  }

 private:
  struct ShipClass {
    int length = 0;
    int afloat = 0;
    std::vector<const Piece<W>*> free;   // segments on unknown cells clear of every hit
    std::vector<const Piece<W>*> cover;  // segments through unresolved hits
  };
  struct Cover {
    std::size_t first = 0, last = 0;  // its pieces: placed_[first, last)
    Bits<W> keep_out;                 // where no free ship may lie
    std::vector<int> left;            // per class: ships free
    double until = 0.0;               // the running sum of weights up to this cover
  };

  Bits<W> halo(const Bits<W>& b) const {
    Bits<W> out;
    b.each([&](int i) { out |= halo_of_[i]; });
    return out;
  }

  void search(std::size_t next_sunk, const Bits<W>& body, const Bits<W>& keep_out) {
    if (overflow_ || ++nodes_ > kMaxNodes) {
      overflow_ = true;
      return;
    }
    if (next_sunk < ambiguous_.size()) {
      for (const Piece<W>& pc : ambiguous_[next_sunk]) {
        if (pc.cells.meets(keep_out)) continue;
        stack_.push_back(&pc);
        search(next_sunk + 1, body | pc.cells, keep_out | (config_.no_touch ? pc.halo : pc.cells));
        stack_.pop_back();
      }
      return;
    }
    const Bits<W> open = loose_ & ~body;
    if (!open.any()) {
      leaf(keep_out);
      return;
    }
    if (open.count() > room_) return;
    const int target = open.first();
    for (ShipClass& c : classes_) {
      if (c.afloat == 0) continue;
      --c.afloat;
      room_ -= c.length;
      for (const Piece<W>* pc : c.cover) {
        if (!pc->cells.test(target) || pc->cells.meets(keep_out)) continue;
        stack_.push_back(pc);
        search(next_sunk, body | pc->cells, keep_out | (config_.no_touch ? pc->halo : pc->cells));
        stack_.pop_back();
      }
      room_ += c.length;
      ++c.afloat;
    }
  }

  void leaf(const Bits<W>& keep_out) {
    if (covers_.size() >= kMaxCovers) {
      overflow_ = true;
      return;
    }
    double weight = 1.0;
    Cover cover;
    for (const ShipClass& c : classes_) {
      cover.left.push_back(c.afloat);
      if (c.afloat == 0) continue;
      int room = 0;
      for (const Piece<W>* pc : c.free) room += !pc->cells.meets(keep_out);
      for (int m = 1; m <= c.afloat; ++m) weight *= static_cast<double>(room) / m;
    }
    if (!(weight > 0.0)) return;
    total_ += weight;
    cover.first = placed_.size();
    placed_.insert(placed_.end(), stack_.begin(), stack_.end());
    cover.last = placed_.size();
    cover.keep_out = keep_out;
    cover.until = total_;
    covers_.push_back(std::move(cover));
  }

  // One proposal into drawn_: true when its free ships neither overlap nor (no_touch) touch.
  bool propose(Rng& rng) {
    const double x = unit(rng) * total_;
    auto it = std::upper_bound(covers_.begin(), covers_.end(), x,
                               [](double v, const Cover& c) { return v < c.until; });
    if (it == covers_.end()) --it;
    const Cover& cover = *it;
    drawn_.assign(placed_.begin() + static_cast<std::ptrdiff_t>(cover.first),
                  placed_.begin() + static_cast<std::ptrdiff_t>(cover.last));
    Bits<W> taken;  // the free ships' cells so far (with no_touch, their halos)
    for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
      const ShipClass& c = classes_[ci];
      for (int m = 0; m < cover.left[ci]; ++m) {
        const Piece<W>* pc = pick_free(c, cover.keep_out, rng);
        if (pc->cells.meets(taken)) return false;
        taken |= config_.no_touch ? pc->halo : pc->cells;
        drawn_.push_back(pc);
      }
    }
    return true;
  }

  // A segment uniform among c.free clear of keep_out (the cover's weight says there is one).
  const Piece<W>* pick_free(const ShipClass& c, const Bits<W>& keep_out, Rng& rng) {
    for (int tries = 0; tries < 32; ++tries) {
      const Piece<W>* pc = c.free[rng.below(c.free.size())];
      if (!pc->cells.meets(keep_out)) return pc;
    }
    room_list_.clear();
    for (const Piece<W>* pc : c.free)
      if (!pc->cells.meets(keep_out)) room_list_.push_back(pc);
    return room_list_[rng.below(room_list_.size())];
  }

  Config config_;
  Grid grid_;
  std::vector<std::vector<Piece<W>>> by_length_;
  std::vector<Bits<W>> halo_of_;
  // Per prepare().
  std::vector<Segment> fixed_;  // the sunk ships whose segment is known
  std::vector<std::vector<Piece<W>>> ambiguous_;
  std::vector<ShipClass> classes_;
  Bits<W> loose_;  // hits not on a fixed sunk ship
  std::vector<Cover> covers_;
  std::vector<const Piece<W>*> placed_;  // the covers' pieces, back to back
  std::vector<const Piece<W>*> stack_;
  double total_ = 0.0;
  long nodes_ = 0;
  bool overflow_ = false;
  int room_ = 0;
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
    std::size_t stride = 0;
    const int fleets =
        sampler_.prepare(k) ? sampler_.sample(rng, kPosteriorFleets, pieces_, stride) : 0;
    if (fleets == 0) {
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
