// The solver's combinatorial deductions: the local rules of a cell and of a domino, bridge parity,
// and forcing chains (solver.cpp states the rules and the levels that use them).
#include "games/dominosa/solver_internal.h"

#include <algorithm>
#include <cstdint>

namespace arbiter::dominosa {

void Engine::visit_cell(int c) {
  if (ccount_[c] == 0) {
    conflict_ = true;
    return;
  }
  if (cell_placed_[c] >= 0) return;
  int es[4], k = 0;
  for (int s = 0; s < 4; ++s) {
    const int f = cell_edge_[c * 4 + s];
    if (f >= 0 && alive_[f]) es[k++] = f;
  }
  if (k == 1) {
    place(es[0]);
    return;
  }
  if (!(rules_ & kLocal)) return;
  // All placements one domino D: D's placements elsewhere go.
  bool same = true;
  for (int i = 1; i < k; ++i) same = same && edom_[es[i]] == edom_[es[0]];
  if (same) {
    const int d = edom_[es[0]];
    for (int i = dom_start_[d]; i < dom_start_[d + 1]; ++i) {
      const int f = dom_list_[i];
      if (alive_[f] && ea_[f] != c && eb_[f] != c) remove(f);
    }
  }
  // A placement P next to c that would leave c nothing goes.
  for (int i = 0; i < k; ++i) {
    const int x = other(es[i], c);
    for (int s = 0; s < 4; ++s) {
      const int pe = cell_edge_[x * 4 + s];
      if (pe < 0 || pe == es[i] || !alive_[pe]) continue;
      const int y = other(pe, x);
      bool kills = true;
      for (int j = 0; j < k && kills; ++j) {
        const int o = other(es[j], c);
        if (o != x && o != y && edom_[es[j]] != edom_[pe]) kills = false;
      }
      if (kills) remove(pe);
    }
  }
}

void Engine::visit_dom(int d) {
  if (dcount_[d] == 0) {
    conflict_ = true;
    return;
  }
  if (dom_placed_[d] >= 0) return;
  if (dcount_[d] == 1) {
    for (int i = dom_start_[d]; i < dom_start_[d + 1]; ++i) {
      if (alive_[dom_list_[i]]) {
        place(dom_list_[i]);
        return;
      }
    }
  }
  if (!(rules_ & kLocal)) return;
  // Every placement of d overlaps P: P goes. Candidates touch the first placement of d.
  int first = -1;
  for (int i = dom_start_[d]; i < dom_start_[d + 1] && first < 0; ++i) {
    if (alive_[dom_list_[i]]) first = dom_list_[i];
  }
  const int ends[2] = {ea_[first], eb_[first]};
  for (int x : ends) {
    for (int s = 0; s < 4; ++s) {
      const int pe = cell_edge_[x * 4 + s];
      if (pe < 0 || !alive_[pe] || edom_[pe] == d) continue;
      const int pa = ea_[pe], pb = eb_[pe];
      bool all = true;
      for (int i = dom_start_[d]; i < dom_start_[d + 1] && all; ++i) {
        const int f = dom_list_[i];
        if (!alive_[f]) continue;
        if (ea_[f] != pa && ea_[f] != pb && eb_[f] != pa && eb_[f] != pb) all = false;
      }
      if (all) remove(pe);
    }
  }
}

// Bridge parity over the graph of unplaced cells and alive placements.
void Engine::bridges() {
  bridge_seen_ = version_;
  std::fill(disc_.begin(), disc_.end(), -1);
  to_remove_.clear();
  to_place_.clear();
  int timer = 0;
  for (int s = 0; s < cells_; ++s) {
    if (cell_placed_[s] >= 0 || disc_[s] >= 0) continue;
    tree_.clear();
    disc_[s] = low_[s] = timer++;
    sub_[s] = 1;
    dfs_cell_.assign(1, s);
    dfs_edge_.assign(1, -1);
    dfs_slot_.assign(1, 0);
    while (!dfs_cell_.empty()) {
      const int v = dfs_cell_.back();
      if (dfs_slot_.back() < 4) {
        const int f = cell_edge_[v * 4 + dfs_slot_.back()++];
        if (f < 0 || !alive_[f] || f == dfs_edge_.back()) continue;
        const int x = other(f, v);
        if (disc_[x] < 0) {
          disc_[x] = low_[x] = timer++;
          sub_[x] = 1;
          dfs_cell_.push_back(x);
          dfs_edge_.push_back(f);
          dfs_slot_.push_back(0);
          tree_.push_back(f);
        } else {
          low_[v] = std::min(low_[v], disc_[x]);
        }
        continue;
      }
      dfs_cell_.pop_back();
      dfs_edge_.pop_back();
      dfs_slot_.pop_back();
      if (!dfs_cell_.empty()) {
        const int u = dfs_cell_.back();
        low_[u] = std::min(low_[u], low_[v]);
        sub_[u] += sub_[v];
      }
    }
    if (sub_[s] % 2 != 0) {
      conflict_ = true;
      return;
    }
    for (int f : tree_) {
      // The child is the end discovered later.
      const int child = disc_[ea_[f]] > disc_[eb_[f]] ? ea_[f] : eb_[f];
      const int parent = other(f, child);
      if (low_[child] <= disc_[parent]) continue;
      (sub_[child] % 2 == 0 ? to_remove_ : to_place_).push_back(f);
    }
  }
  for (int f : to_remove_) remove(f);
  for (int f : to_place_) {
    if (conflict_) return;
    force(f);
  }
}

int Engine::uf_find(int e, int& parity) {
  parity = 0;
  int r = e;
  while (uf_parent_[r] != r) {
    parity ^= uf_par_[r];
    r = uf_parent_[r];
  }
  // Path compression: every node on the path points at the root with its own parity.
  int x = e, px = parity;
  while (uf_parent_[x] != x) {
    const int next = uf_parent_[x], step = uf_par_[x];
    uf_parent_[x] = r;
    uf_par_[x] = static_cast<std::uint8_t>(px);
    px ^= step;
    x = next;
  }
  return r;
}

void Engine::uf_touch(int e) {
  if (uf_parent_[e] >= 0) return;
  uf_parent_[e] = e;
  uf_par_[e] = 0;
  touched_.push_back(e);
}

// Forcing chains: "exactly one" links of two-placement cells, parity classes, bad classes go.
void Engine::chains() {
  chains_seen_ = version_;
  touched_.clear();
  for (int c = 0; c < cells_ && !conflict_; ++c) {
    if (cell_placed_[c] >= 0 || ccount_[c] != 2) continue;
    int es[2], k = 0;
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[c * 4 + s];
      if (f >= 0 && alive_[f]) es[k++] = f;
    }
    uf_touch(es[0]);
    uf_touch(es[1]);
    int pa, pb;
    const int ra = uf_find(es[0], pa), rb = uf_find(es[1], pb);
    if (ra == rb) {
      if (pa == pb) conflict_ = true;  // both "equal" and "exactly one": impossible
      continue;
    }
    uf_parent_[ra] = rb;
    uf_par_[ra] = static_cast<std::uint8_t>(pa ^ pb ^ 1);
  }
  if (!conflict_) {
    for (int e : touched_) {
      int par;
      const int r = uf_find(e, par);
      uf_next_[e] = uf_head_[r];
      uf_head_[r] = e;
    }
    to_remove_.clear();
    for (int r : touched_) {
      if (uf_head_[r] < 0) continue;
      const int s0 = ++stamp2_, s1 = ++stamp2_;
      bool bad[2] = {false, false};
      for (int e = uf_head_[r]; e >= 0; e = uf_next_[e]) {
        const int par = uf_par_[e] & 1;  // compressed: parity relative to r (0 for r itself)
        const int st = par ? s1 : s0;
        if (dom_stamp_[edom_[e]] == st || cell_stamp_[ea_[e]] == st || cell_stamp_[eb_[e]] == st) {
          bad[par] = true;
        }
        dom_stamp_[edom_[e]] = cell_stamp_[ea_[e]] = cell_stamp_[eb_[e]] = st;
      }
      for (int e = uf_head_[r]; e >= 0; e = uf_next_[e]) {
        if (bad[uf_par_[e] & 1]) to_remove_.push_back(e);
      }
    }
  }
  for (int e : touched_) {
    uf_head_[e] = -1;
    uf_next_[e] = -1;
  }
  for (int e : touched_) uf_parent_[e] = -1;
  if (conflict_) return;
  for (int e : to_remove_) remove(e);
}

}  // namespace arbiter::dominosa
