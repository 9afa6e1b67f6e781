// Private to the Battleship house bots: a fixed-size bitboard over cell indices, shared by the
// density model and the posterior sampler, and a ship's segment on it.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "games/battleship/bots_internal.h"

namespace arbiter::battleship {

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

// A ship's segment as bitboards: its cells, and its cells with their neighbours (for no_touch).
template <int W>
struct Piece {
  Bits<W> cells;
  Bits<W> halo;
  Segment seg;
};

template <int W>
Piece<W> piece_of(const Grid& grid, const Segment& s) {
  Piece<W> pc;
  pc.seg = s;
  for_cells(s, [&](int i) {
    pc.cells.set(i);
    pc.halo.set(i);
    grid.around(i, [&](int j) { pc.halo.set(j); });
  });
  return pc;
}

}  // namespace arbiter::battleship
