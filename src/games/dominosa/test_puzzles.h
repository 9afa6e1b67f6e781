// Test helpers for the Dominosa solvers: random layouts (a planted tiling), random grids (right
// value counts, often no solution) and a plain exhaustive counter to check against.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa::test_puzzles {

// A random domino tiling of the (n+1) x (n+2) grid as a partner per cell: a plain tiling (rows of
// horizontal pairs when the width is even, else columns of vertical pairs) scrambled by random
// 2x2 flips.
inline std::vector<int> random_tiling(int n, Rng& rng) {
  const int h = n + 1, w = n + 2, cells = h * w;
  std::vector<int> mate(cells);
  for (int i = 0; i < cells; ++i) {
    const int r = i / w, c = i % w;
    if (w % 2 == 0) {
      mate[i] = c % 2 == 0 ? i + 1 : i - 1;
    } else {
      mate[i] = r % 2 == 0 ? i + w : i - w;
    }
  }
  for (int step = 0; step < 20 * cells; ++step) {
    const int r = static_cast<int>(rng.below(h - 1)), c = static_cast<int>(rng.below(w - 1));
    const int a = r * w + c, b = a + 1, d = a + w, e = a + w + 1;
    if (mate[a] == b && mate[d] == e) {  // two horizontal -> two vertical
      mate[a] = d, mate[d] = a, mate[b] = e, mate[e] = b;
    } else if (mate[a] == d && mate[b] == e) {
      mate[a] = b, mate[b] = a, mate[d] = e, mate[e] = d;
    }
  }
  return mate;
}

struct Layout {
  Puzzle puzzle;
  Solution intended;
};

// A random valid layout: a random tiling with the double-n set shuffled onto it.
inline Layout random_layout(int n, Rng& rng) {
  const std::vector<int> mate = random_tiling(n, rng);
  std::vector<std::pair<int, int>> set;
  for (int a = 0; a <= n; ++a) {
    for (int b = a; b <= n; ++b) set.emplace_back(a, b);
  }
  rng.shuffle(set.begin(), set.end());
  Layout out;
  out.puzzle.n = n;
  out.puzzle.grid.assign(out.puzzle.cells(), -1);
  out.intended.assign(out.puzzle.cells(), '?');
  std::size_t next = 0;
  for (int i = 0; i < out.puzzle.cells(); ++i) {
    if (mate[i] < i) continue;
    auto [a, b] = set[next++];
    if (rng.below(2)) std::swap(a, b);
    out.puzzle.grid[i] = a;
    out.puzzle.grid[mate[i]] = b;
    const bool horizontal = mate[i] == i + 1;
    out.intended[i] = horizontal ? 'L' : 'T';
    out.intended[mate[i]] = horizontal ? 'R' : 'B';
  }
  return out;
}

// A random grid with the right value counts but no layout behind it (may have no solution).
inline Puzzle random_grid(int n, Rng& rng) {
  Puzzle p;
  p.n = n;
  for (int v = 0; v <= n; ++v) {
    for (int i = 0; i < n + 2; ++i) p.grid.push_back(v);
  }
  rng.shuffle(p.grid.begin(), p.grid.end());
  return p;
}

// Counts solutions by trying every tiling, first free cell in row-major order: plain exhaustive
// search with no deduction, the reference the solvers are checked against. Stops at `limit`;
// keeps the solutions it counts when asked.
class Brute {
 public:
  explicit Brute(const Puzzle& p) : p_(p), covered_(p.cells(), 0), used_(domino_count(p.n), 0) {}
  std::int64_t count(std::int64_t limit = -1, std::vector<Solution>* keep = nullptr) {
    count_ = 0;
    limit_ = limit;
    keep_ = keep;
    letters_.assign(static_cast<std::size_t>(p_.cells()), '?');
    go(0);
    return count_;
  }

 private:
  void go(int from) {
    const int w = p_.cols();
    if (limit_ >= 0 && count_ >= limit_) return;
    while (from < p_.cells() && covered_[from]) ++from;
    if (from == p_.cells()) {
      ++count_;
      if (keep_) keep_->push_back(letters_);
      return;
    }
    const int nexts[2] = {from % w + 1 < w ? from + 1 : -1, from + w < p_.cells() ? from + w : -1};
    for (int b : nexts) {
      if (b < 0 || covered_[b]) continue;
      const int d = domino_index(p_.grid[from], p_.grid[b], p_.n);
      if (used_[d]) continue;
      used_[d] = covered_[from] = covered_[b] = 1;
      letters_[from] = b == from + 1 ? 'L' : 'T';
      letters_[b] = b == from + 1 ? 'R' : 'B';
      go(from + 1);
      used_[d] = covered_[from] = covered_[b] = 0;
    }
  }

  const Puzzle& p_;
  std::vector<char> covered_, used_;
  std::int64_t count_ = 0, limit_ = -1;
  std::vector<Solution>* keep_ = nullptr;
  Solution letters_;
};

}  // namespace arbiter::dominosa::test_puzzles
