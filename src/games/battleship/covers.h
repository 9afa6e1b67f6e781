// Private to the Battleship house bots: the ways a fleet can explain the unresolved hits of a
// Knowledge (its "covers"), enumerated for the density model and the posterior sampler.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "games/battleship/bitboard.h"
#include "games/battleship/bots_internal.h"

namespace arbiter::battleship {

// A fleet consistent with the answers is a cover (the ambiguous sunk ships each on one of their
// options, and ships afloat on segments that together hold every unresolved hit, none touching
// another under no_touch) plus free ships afloat on unknown cells clear of the cover and of
// every hit. With announced sinkings no ship afloat lies on hits only (it would have been
// announced). Covers are enumerated depth first: the ambiguous sunk ships in order, then the
// lowest uncovered hit, covered by one ship of each length afloat in turn.
template <int W>
class Covers {
 public:
  struct ShipClass {
    int length = 0;
    int afloat = 0;                      // ships of this length not sunk (during a leaf: free)
    std::vector<const Piece<W>*> free;   // segments on unknown cells clear of every hit
    std::vector<const Piece<W>*> cover;  // segments through unresolved hits
  };

  explicit Covers(const Config& config) : config_(config), grid_(config) {
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

  // Reads k: the sunk ships (fixed ones leave the picture, with their neighbourhood under
  // no_touch; ambiguous ones join the covers), the unresolved hits and the ship classes afloat.
  void prepare(const Knowledge& k) {
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
    hit_ = hit;
    blocked_ = miss | sunk;
    if (config_.no_touch) blocked_ |= halo(sunk);
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
    for (ShipClass& c : classes_) {
      for (const Piece<W>& pc : by_length_[c.length]) {
        if (pc.cells.meets(blocked_)) continue;
        if (config_.announce_sunk && pc.cells.within(hit)) continue;
        if (pc.cells.meets(loose_))
          c.cover.push_back(&pc);
        else if (!pc.cells.meets(guard))
          c.free.push_back(&pc);
      }
    }
  }

  // Calls leaf(body, keep_out) for every cover (body: its cells; keep_out: where no other ship
  // may lie), classes()[i].afloat then counting the free ships of each class and stack() the
  // cover's pieces. Stops and returns false past max_nodes calls or max_leaves covers.
  template <class Leaf>
  bool enumerate(long max_nodes, long max_leaves, Leaf&& leaf) {
    nodes_ = 0;
    leaves_ = 0;
    max_nodes_ = max_nodes;
    max_leaves_ = max_leaves;
    overflow_ = false;
    room_ = 0;
    for (const ShipClass& c : classes_) room_ += c.afloat * c.length;
    stack_.clear();
    search(0, Bits<W>(), Bits<W>(), leaf);
    return !overflow_;
  }

  const std::vector<ShipClass>& classes() const { return classes_; }
  const std::vector<const Piece<W>*>& stack() const { return stack_; }
  const std::vector<Segment>& fixed() const { return fixed_; }  // the sunk ships pinned down
  const std::vector<Piece<W>>& pieces(int length) const { return by_length_[length]; }
  const Bits<W>& hit() const { return hit_; }
  // Misses and the pinned sunk ships (with no_touch, and the hexes around those ships).
  const Bits<W>& blocked() const { return blocked_; }
  const Bits<W>& loose() const { return loose_; }  // hits not on a pinned sunk ship
  Bits<W> halo(const Bits<W>& b) const {
    Bits<W> out;
    b.each([&](int i) { out |= halo_of_[i]; });
    return out;
  }

 private:
  template <class Leaf>
  void search(std::size_t next_sunk, const Bits<W>& body, const Bits<W>& keep_out, Leaf& leaf) {
    if (overflow_ || ++nodes_ > max_nodes_) {
      overflow_ = true;
      return;
    }
    if (next_sunk < ambiguous_.size()) {
      for (const Piece<W>& pc : ambiguous_[next_sunk]) {
        if (pc.cells.meets(keep_out)) continue;
        stack_.push_back(&pc);
        search(next_sunk + 1, body | pc.cells, keep_out | (config_.no_touch ? pc.halo : pc.cells),
               leaf);
        stack_.pop_back();
      }
      return;
    }
    const Bits<W> open = loose_ & ~body;
    if (!open.any()) {
      if (++leaves_ > max_leaves_)
        overflow_ = true;
      else
        leaf(body, keep_out);
      return;
    }
    if (open.count() > room_) return;  // the ships left are too short to cover the hits left
    const int target = open.first();
    for (ShipClass& c : classes_) {
      if (c.afloat == 0) continue;
      --c.afloat;
      room_ -= c.length;
      for (const Piece<W>* pc : c.cover) {
        if (!pc->cells.test(target) || pc->cells.meets(keep_out)) continue;
        stack_.push_back(pc);
        search(next_sunk, body | pc->cells, keep_out | (config_.no_touch ? pc->halo : pc->cells),
               leaf);
        stack_.pop_back();
      }
      room_ += c.length;
      ++c.afloat;
    }
  }

  Config config_;
  Grid grid_;
  std::vector<std::vector<Piece<W>>> by_length_;
  std::vector<Bits<W>> halo_of_;
  // Per prepare().
  std::vector<Segment> fixed_;
  std::vector<std::vector<Piece<W>>> ambiguous_;
  std::vector<ShipClass> classes_;
  Bits<W> hit_, blocked_, loose_;
  // Per enumerate().
  std::vector<const Piece<W>*> stack_;
  long nodes_ = 0, leaves_ = 0, max_nodes_ = 0, max_leaves_ = 0;
  bool overflow_ = false;
  int room_ = 0;  // cells the ships not in the cover yet could cover
};

}  // namespace arbiter::battleship
