// The random, hunt and tracker shooters: tiers of cells ranked by simple rules (targets next to
// hits before the hunt), random within a tier.
#include "games/battleship/bots_internal.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace arbiter::battleship {

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

}  // namespace arbiter::battleship
