// The solver's matching deductions: per-value Hall filtering (without the double, and with it at
// capacity 2) and perfect-matching pruning of the grid graph, both judged by strongly connected
// components of an alternating graph (Scc).
#include "games/dominosa/solver_internal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace arbiter::dominosa {

int Scc::run(int v, const std::vector<int>& start, const std::vector<int>& arcs) {
  if (static_cast<int>(index_.size()) < v) {
    index_.resize(v);
    low_.resize(v);
    on_.resize(v);
    comp.resize(v);
  }
  std::fill_n(index_.begin(), v, -1);
  std::fill_n(on_.begin(), v, 0);
  int counter = 0, ncomp = 0;
  for (int s = 0; s < v; ++s) {
    if (index_[s] != -1) continue;
    open(s, start, counter);
    while (!call_node_.empty()) {
      const int x = call_node_.back();
      int& pos = call_pos_.back();
      if (pos < start[x + 1]) {
        const int y = arcs[pos++];
        if (index_[y] == -1) {
          open(y, start, counter);
        } else if (on_[y]) {
          low_[x] = std::min(low_[x], index_[y]);
        }
        continue;
      }
      call_node_.pop_back();
      call_pos_.pop_back();
      if (low_[x] == index_[x]) {
        int y;
        do {
          y = stack_.back();
          stack_.pop_back();
          on_[y] = 0;
          comp[y] = ncomp;
        } while (y != x);
        ++ncomp;
      }
      if (!call_node_.empty()) {
        const int u = call_node_.back();
        low_[u] = std::min(low_[u], low_[x]);
      }
    }
  }
  return ncomp;
}

void Scc::open(int x, const std::vector<int>& start, int& counter) {
  index_[x] = low_[x] = counter++;
  stack_.push_back(x);
  on_[x] = 1;
  call_node_.push_back(x);
  call_pos_.push_back(start[x]);
}

// Collects the options of the k-cells: for the double-aware graph (double = nodes k and m-1)
// or the single one (non-double dominoes only). Returns false when every k-cell is placed.
bool Engine::collect_options(int k, bool with_double) {
  const std::size_t base = static_cast<std::size_t>(k) * m_;
  bool any = false;
  for (int i = 0; i < m_; ++i) {
    const int c = vcells_[base + i];
    if (cell_placed_[c] < 0) any = true;
    int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    int cnt = 0;
    bool dbl = false;
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[c * 4 + s];
      if (f < 0 || !alive_[f]) continue;
      const int j = val_[other(f, c)];
      if (j == k) {
        dbl = true;
        continue;
      }
      bool dup = false;
      for (int t = 0; t < cnt; ++t) dup = dup || o[t] == j;
      if (!dup) o[cnt++] = j;
    }
    if (with_double && dbl) {
      o[cnt++] = k;
      o[cnt++] = m_ - 1;
    }
    nopt_[i] = cnt;
    in_c_[i] = !dbl;
  }
  return any;
}

// Kuhn's augmenting path from cell i over the current options.
bool Engine::augment(int i, int* cm, int* nm) {
  const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
  for (int u = 0; u < nopt_[i]; ++u) {
    const int t = o[u];
    if (node_stamp_[t] == stamp_) continue;
    node_stamp_[t] = stamp_;
    if (nm[t] < 0 || augment(nm[t], cm, nm)) {
      nm[t] = i;
      cm[i] = t;
      return true;
    }
  }
  return false;
}

// Removes the alive placements at cell c whose other value is j.
void Engine::remove_value(int c, int j) {
  for (int s = 0; s < 4; ++s) {
    const int f = cell_edge_[c * 4 + s];
    if (f >= 0 && alive_[f] && val_[other(f, c)] == j) remove(f);
  }
}

void Engine::hall_double(int k) {
  hd_seen_[k] = val_ver_[k];
  if (!collect_options(k, true)) return;
  const std::size_t base = static_cast<std::size_t>(k) * m_;
  int* cm = &hd_cm_[base];
  int* nm = &hd_nm_[base];
  for (int i = 0; i < m_; ++i) {
    if (cm[i] >= 0 && !has_option(i, cm[i])) {
      nm[cm[i]] = -1;
      cm[i] = -1;
    }
  }
  for (int i = 0; i < m_; ++i) {
    if (cm[i] >= 0) continue;
    ++stamp_;
    if (!augment(i, cm, nm)) {
      conflict_ = true;
      return;
    }
  }
  arc_start_.assign(m_ + 1, 0);
  arcs_.clear();
  for (int i = 0; i < m_; ++i) {
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) {
      if (o[u] != cm[i]) arcs_.push_back(nm[o[u]]);
    }
    arc_start_[i + 1] = static_cast<int>(arcs_.size());
  }
  scc_.run(m_, arc_start_, arcs_);
  for (int i = 0; i < m_; ++i) {
    const int c = vcells_[base + i];
    if (cell_placed_[c] >= 0) continue;
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) {
      const int t = o[u];
      if (t == m_ - 1) continue;  // judged with its twin k
      bool ok = cm[i] == t || scc_.comp[nm[t]] == scc_.comp[i];
      if (t == k) ok = ok || cm[i] == m_ - 1 || scc_.comp[nm[m_ - 1]] == scc_.comp[i];
      if (!ok) remove_value(c, t);
    }
  }
}

void Engine::hall_single(int k) {
  hs_seen_[k] = val_ver_[k];
  if (!collect_options(k, false)) return;
  const std::size_t base = static_cast<std::size_t>(k) * m_;
  int* cm = &hs_cm_[base];
  int* nm = &hs_nm_[base];
  for (int i = 0; i < m_; ++i) {
    if (cm[i] >= 0 && (!in_c_[i] || !has_option(i, cm[i]))) {
      nm[cm[i]] = -1;
      cm[i] = -1;
    }
  }
  for (int i = 0; i < m_; ++i) {
    if (cm[i] >= 0 || !in_c_[i]) continue;
    ++stamp_;
    if (!augment(i, cm, nm)) {
      conflict_ = true;
      return;
    }
  }
  // Dominoes reachable from a free domino by alternating paths can be left free.
  rev_start_.assign(m_ + 1, 0);
  for (int i = 0; i < m_; ++i) {
    if (!in_c_[i]) continue;
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) ++rev_start_[o[u] + 1];
  }
  for (int t = 0; t < m_; ++t) rev_start_[t + 1] += rev_start_[t];
  rev_.resize(rev_start_[m_]);
  rev_fill_.assign(rev_start_.begin(), rev_start_.end() - 1);
  for (int i = 0; i < m_; ++i) {
    if (!in_c_[i]) continue;
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) rev_[rev_fill_[o[u]]++] = i;
  }
  queue_.clear();
  for (int t = 0; t <= n_; ++t) {
    reach_[t] = t != k && nm[t] < 0;
    if (reach_[t]) queue_.push_back(t);
  }
  for (std::size_t q = 0; q < queue_.size(); ++q) {
    const int t = queue_[q];
    for (int r = rev_start_[t]; r < rev_start_[t + 1]; ++r) {
      const int i = rev_[r];
      if (cm[i] == t || reach_[cm[i]]) continue;
      reach_[cm[i]] = 1;
      queue_.push_back(cm[i]);
    }
  }
  arc_start_.assign(m_ + 1, 0);
  arcs_.clear();
  for (int i = 0; i < m_; ++i) {
    if (in_c_[i]) {
      const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
      for (int u = 0; u < nopt_[i]; ++u) {
        if (o[u] != cm[i] && nm[o[u]] >= 0) arcs_.push_back(nm[o[u]]);
      }
    }
    arc_start_[i + 1] = static_cast<int>(arcs_.size());
  }
  scc_.run(m_, arc_start_, arcs_);
  for (int i = 0; i < m_; ++i) {
    const int c = vcells_[base + i];
    if (cell_placed_[c] >= 0) continue;
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) {
      const int t = o[u];
      bool ok = reach_[t] != 0;
      if (in_c_[i]) ok = ok || cm[i] == t || scc_.comp[nm[t]] == scc_.comp[i];
      if (!ok) remove_value(c, t);
    }
  }
}

// Perfect-matching pruning of the grid graph (Hopcroft-Karp repair, then SCCs).
void Engine::matching() {
  match_seen_ = version_;
  for (int c = 0; c < cells_; ++c) {
    if (cell_placed_[c] >= 0) {
      gm_[c] = cell_placed_[c];
    } else if (gm_[c] >= 0 && !alive_[gm_[c]]) {
      gm_[c] = -1;
    }
  }
  // Partners of cells whose mate edge died were reset in the same pass (both ends see it).
  free_.clear();
  for (int c = 0; c < cells_; ++c) {
    if (cell_placed_[c] < 0 && gm_[c] < 0 && black(c)) free_.push_back(c);
  }
  while (!free_.empty()) {
    if (!hopcroft_karp_phase()) {
      conflict_ = true;
      return;
    }
    std::size_t keep = 0;
    for (int c : free_) {
      if (gm_[c] < 0) free_[keep++] = c;
    }
    free_.resize(keep);
  }
  // Alternating graph on unplaced black cells: u -> mate(v) for each unmatched edge (u, v).
  nodes_.clear();
  for (int c = 0; c < cells_; ++c) {
    if (cell_placed_[c] < 0 && black(c)) {
      lid_[c] = static_cast<int>(nodes_.size());
      nodes_.push_back(c);
    }
  }
  const int v = static_cast<int>(nodes_.size());
  arc_start_.assign(v + 1, 0);
  arcs_.clear();
  for (int i = 0; i < v; ++i) {
    const int u = nodes_[i];
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[u * 4 + s];
      if (f < 0 || !alive_[f] || f == gm_[u]) continue;
      const int x = other(f, u);
      arcs_.push_back(lid_[other(gm_[x], x)]);
    }
    arc_start_[i + 1] = static_cast<int>(arcs_.size());
  }
  scc_.run(v, arc_start_, arcs_);
  for (int i = 0; i < v; ++i) {
    const int u = nodes_[i];
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[u * 4 + s];
      if (f < 0 || !alive_[f] || f == gm_[u]) continue;
      const int x = other(f, u);
      if (scc_.comp[lid_[other(gm_[x], x)]] != scc_.comp[i]) remove(f);
    }
  }
}

// One phase: BFS layers from the free black cells, then vertex-disjoint shortest augmenting
// paths by iterative DFS. False when no augmenting path exists.
bool Engine::hopcroft_karp_phase() {
  visited_.clear();
  for (int c : free_) {
    dist_[c] = 0;
    visited_.push_back(c);
  }
  int found = INT_MAX;
  for (std::size_t q = 0; q < visited_.size(); ++q) {
    const int u = visited_[q];
    if (dist_[u] >= found) break;
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[u * 4 + s];
      if (f < 0 || !alive_[f]) continue;
      const int x = other(f, u);
      if (gm_[x] < 0) {
        found = dist_[u];
        continue;
      }
      const int u2 = other(gm_[x], x);
      if (dist_[u2] == INT_MAX) {
        dist_[u2] = dist_[u] + 1;
        visited_.push_back(u2);
      }
    }
  }
  if (found == INT_MAX) {
    for (int c : visited_) dist_[c] = INT_MAX;
    return false;
  }
  for (int c : visited_) slot_[c] = 0;
  for (int root : free_) {
    if (dist_[root] != 0) continue;
    path_.assign(1, root);
    via_.clear();
    while (!path_.empty()) {
      const int u = path_.back();
      if (slot_[u] >= 4) {
        dist_[u] = INT_MAX;  // dead end for this phase
        path_.pop_back();
        if (!via_.empty()) via_.pop_back();
        continue;
      }
      const int f = cell_edge_[u * 4 + slot_[u]++];
      if (f < 0 || !alive_[f]) continue;
      const int x = other(f, u);
      if (gm_[x] < 0) {
        if (dist_[u] != found) continue;
        via_.push_back(f);
        for (std::size_t i = 0; i < path_.size(); ++i) {
          const int g = via_[i];
          gm_[path_[i]] = g;
          gm_[other(g, path_[i])] = g;
        }
        for (int c : path_) dist_[c] = INT_MAX;  // used: vertex-disjoint paths
        break;
      }
      const int u2 = other(gm_[x], x);
      if (dist_[u2] != dist_[u] + 1) continue;
      via_.push_back(f);
      path_.push_back(u2);
    }
  }
  for (int c : visited_) dist_[c] = INT_MAX;
  return true;
}

}  // namespace arbiter::dominosa
