// The Dominosa solver's Engine: the model built from a puzzle, the trail that undoes placements
// and removals, the propagation loop over the work queues, and what the search needs (branching,
// conflict weights, nogoods, the solution).
#include "games/dominosa/solver_internal.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace arbiter::dominosa {

void Engine::set_rules(unsigned rules) {
  const unsigned added = fresh_ ? rules | kLocal : rules & ~rules_;
  fresh_ = false;
  rules_ = rules;
  if (added & kLocal) {
    for (int c = 0; c < cells_; ++c) push_cell(c);
    for (int d = 0; d < doms_; ++d) push_dom(d);
  }
  if (added & kBridges) bridge_seen_ = kNever;
  if (added & kChains) chains_seen_ = kNever;
  if (added & kMatching) match_seen_ = kNever;
  if (added & kHallSingle) std::fill(hs_seen_.begin(), hs_seen_.end(), kNever);
  if (added & kHallDouble) std::fill(hd_seen_.begin(), hd_seen_.end(), kNever);
}

bool Engine::propagate() {
  if (impossible_) return false;
  for (;;) {
    if (!drain()) return false;
    if (unplaced_ == 0) return true;
    // Cheapest first: the per-value Hall passes only look at values that changed; the global
    // passes run once the incremental ones are at a fixpoint.
    const std::uint64_t before = version_;
    if (rules_ & kHallSingle) {
      for (int k = 0; k <= n_ && !conflict_; ++k) {
        if (hs_seen_[k] != val_ver_[k]) hall_single(k);
      }
      if (conflict_) return false;
      if (version_ != before) continue;
    }
    if (rules_ & kHallDouble) {
      for (int k = 0; k <= n_ && !conflict_; ++k) {
        if (hd_seen_[k] != val_ver_[k]) hall_double(k);
      }
      if (conflict_) return false;
      if (version_ != before) continue;
    }
    if ((rules_ & kBridges) && bridge_seen_ != version_) {
      bridges();
      if (conflict_) return false;
      if (version_ != before) continue;
    }
    if ((rules_ & kChains) && chains_seen_ != version_) {
      chains();
      if (conflict_) return false;
      if (version_ != before) continue;
    }
    if ((rules_ & kMatching) && match_seen_ != version_) {
      matching();
      if (conflict_) return false;
      if (version_ != before) continue;
    }
    return true;
  }
}

void Engine::undo(std::size_t to) {
  while (trail_.size() > to) {
    const int t = trail_.back();
    trail_.pop_back();
    if (t >= 0) {
      alive_[t] = 1;
      ++ccount_[ea_[t]];
      ++ccount_[eb_[t]];
      ++dcount_[edom_[t]];
      ++val_ver_[val_[ea_[t]]];
      ++val_ver_[val_[eb_[t]]];
    } else {
      const int e = ~t;
      cell_placed_[ea_[e]] = cell_placed_[eb_[e]] = -1;
      dom_placed_[edom_[e]] = -1;
      unplaced_ += 2;
    }
  }
  ++version_;
  conflict_ = false;
  conflict_cell_ = conflict_dom_ = -1;
  for (std::size_t i = cq_head_; i < cq_.size(); ++i) in_cq_[cq_[i]] = 0;
  for (std::size_t i = dq_head_; i < dq_.size(); ++i) in_dq_[dq_[i]] = 0;
  cq_.clear();
  dq_.clear();
  cq_head_ = dq_head_ = 0;
}

int Engine::choose(Rng& rng) {
  double best = 1e300;
  int best_cell = -1, best_dom = -1, ties = 0;
  for (int d = 0; d < doms_; ++d) {
    if (dom_placed_[d] >= 0) continue;
    const double score = dcount_[d] / wdom_[d];
    if (score < best) {
      best = score, best_dom = d, best_cell = -1, ties = 1;
    } else if (score == best && rng.below(++ties) == 0) {
      best_dom = d, best_cell = -1;
    }
  }
  for (int c = 0; c < cells_; ++c) {
    if (cell_placed_[c] >= 0) continue;
    const double score = ccount_[c] / wcell_[c];
    if (score < best) {
      best = score, best_cell = c, best_dom = -1, ties = 1;
    } else if (score == best && rng.below(++ties) == 0) {
      best_cell = c, best_dom = -1;
    }
  }
  blame_cell_ = best_cell;
  blame_dom_ = best_dom;
  int pick = -1, pick_score = INT_MAX;
  ties = 0;
  auto consider = [&](int f, int score) {
    if (score < pick_score) {
      pick = f, pick_score = score, ties = 1;
    } else if (score == pick_score && rng.below(++ties) == 0) {
      pick = f;
    }
  };
  if (best_dom >= 0) {
    for (int i = dom_start_[best_dom]; i < dom_start_[best_dom + 1]; ++i) {
      const int f = dom_list_[i];
      if (alive_[f]) consider(f, ccount_[ea_[f]] + ccount_[eb_[f]]);
    }
  } else if (best_cell >= 0) {
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[best_cell * 4 + s];
      if (f >= 0 && alive_[f]) consider(f, dcount_[edom_[f]]);
    }
  }
  return pick;
}

void Engine::bump() {
  if (conflict_cell_ >= 0) {
    wcell_[conflict_cell_] += 1;
  } else if (conflict_dom_ >= 0) {
    wdom_[conflict_dom_] += 1;
  } else if (choice_cell_ >= 0) {
    wcell_[choice_cell_] += 1;
  } else if (choice_dom_ >= 0) {
    wdom_[choice_dom_] += 1;
  }
}

bool Engine::add_nogood(std::vector<int>& lits) {
  std::size_t open = 0;
  for (std::size_t i = 0; i < lits.size(); ++i) {
    if (!alive_[lits[i]]) return true;  // a literal already false: satisfied for good
    if (!placed(lits[i])) std::swap(lits[open++], lits[i]);
  }
  if (open == 0) return false;
  if (open == 1) {
    remove(lits[0]);
    return true;
  }
  const int id = static_cast<int>(ng_start_.size());
  ng_start_.push_back(static_cast<int>(ng_lits_.size()));
  ng_lits_.insert(ng_lits_.end(), lits.begin(), lits.end());
  ng_size_.push_back(static_cast<int>(lits.size()));
  watches_[lits[0]].push_back(id);
  watches_[lits[1]].push_back(id);
  return true;
}

Solution Engine::solution() const {
  Solution s(cells_, '?');
  for (int c = 0; c < cells_; ++c) {
    const int e = cell_placed_[c];
    if (e < 0) continue;
    const bool horizontal = eb_[e] - ea_[e] == 1;
    s[c] = horizontal ? (c == ea_[e] ? 'L' : 'R') : (c == ea_[e] ? 'T' : 'B');
  }
  return s;
}

void Engine::build(const Puzzle& p) {
  n_ = p.n;
  if (n_ < 1 || static_cast<int>(p.grid.size()) != p.cells()) return;
  for (int v : p.grid) {
    if (v < 0 || v > n_) return;
  }
  valid_ = true;
  h_ = p.rows();
  w_ = p.cols();
  cells_ = p.cells();
  doms_ = domino_count(n_);
  m_ = n_ + 2;
  val_ = p.grid;
  cell_edge_.assign(static_cast<std::size_t>(cells_) * 4, -1);
  for (int r = 0; r < h_; ++r) {
    for (int c = 0; c < w_; ++c) {
      const int i = r * w_ + c;
      if (c + 1 < w_) add_edge(i, i + 1, 1, 0);
      if (r + 1 < h_) add_edge(i, i + w_, 3, 2);
    }
  }
  edges_ = static_cast<int>(ea_.size());
  dom_start_.assign(doms_ + 1, 0);
  for (int e = 0; e < edges_; ++e) ++dom_start_[edom_[e] + 1];
  for (int d = 0; d < doms_; ++d) dom_start_[d + 1] += dom_start_[d];
  dom_list_.resize(edges_);
  {
    std::vector<int> fill(dom_start_.begin(), dom_start_.end() - 1);
    for (int e = 0; e < edges_; ++e) dom_list_[fill[edom_[e]]++] = e;
  }
  vcells_.assign(static_cast<std::size_t>(n_ + 1) * m_, -1);
  vidx_.assign(cells_, -1);
  {
    std::vector<int> seen(n_ + 1, 0);
    for (int c = 0; c < cells_; ++c) {
      const int k = val_[c];
      if (seen[k] >= m_) {
        impossible_ = true;  // a value more than n+2 times: no solution
        continue;
      }
      vidx_[c] = seen[k];
      vcells_[static_cast<std::size_t>(k) * m_ + seen[k]++] = c;
    }
    for (int k = 0; k <= n_; ++k) {
      if (seen[k] != m_) impossible_ = true;
    }
  }
  alive_.assign(edges_, 1);
  ccount_.assign(cells_, 0);
  dcount_.assign(doms_, 0);
  for (int e = 0; e < edges_; ++e) {
    ++ccount_[ea_[e]];
    ++ccount_[eb_[e]];
    ++dcount_[edom_[e]];
  }
  cell_placed_.assign(cells_, -1);
  dom_placed_.assign(doms_, -1);
  unplaced_ = cells_;
  in_cq_.assign(cells_, 0);
  in_dq_.assign(doms_, 0);
  val_ver_.assign(n_ + 1, 0);
  hs_seen_.assign(n_ + 1, kNever);
  hd_seen_.assign(n_ + 1, kNever);
  const std::size_t vm = static_cast<std::size_t>(n_ + 1) * m_;
  hs_cm_.assign(vm, -1);
  hs_nm_.assign(vm, -1);
  hd_cm_.assign(vm, -1);
  hd_nm_.assign(vm, -1);
  opt_.assign(static_cast<std::size_t>(m_) * kMaxOpt, 0);
  nopt_.assign(m_, 0);
  node_stamp_.assign(m_, 0);
  reach_.assign(m_, 0);
  in_c_.assign(m_, 0);
  gm_.assign(cells_, -1);
  dist_.assign(cells_, INT_MAX);
  slot_.assign(cells_, 0);
  lid_.assign(cells_, -1);
  disc_.assign(cells_, -1);
  low_.assign(cells_, 0);
  sub_.assign(cells_, 0);
  uf_parent_.assign(edges_, -1);
  uf_par_.assign(edges_, 0);
  uf_next_.assign(edges_, -1);
  uf_head_.assign(edges_, -1);
  dom_stamp_.assign(doms_, 0);
  cell_stamp_.assign(cells_, 0);
}

void Engine::add_edge(int a, int b, int slot_a, int slot_b) {
  const int e = static_cast<int>(ea_.size());
  ea_.push_back(a);
  eb_.push_back(b);
  edom_.push_back(domino_index(val_[a], val_[b], n_));
  cell_edge_[a * 4 + slot_a] = e;
  cell_edge_[b * 4 + slot_b] = e;
}

// e was placed: each nogood watching it finds another unplaced literal, or its last one goes.
void Engine::wake_nogoods(int e) {
  std::vector<int>& ws = watches_[e];
  std::size_t keep = 0;
  for (std::size_t i = 0; i < ws.size(); ++i) {
    const int id = ws[i];
    int* lits = &ng_lits_[ng_start_[id]];
    const int size = ng_size_[id];
    if (lits[0] == e) std::swap(lits[0], lits[1]);
    bool moved = false;
    if (alive_[lits[0]]) {
      for (int k = 2; k < size; ++k) {
        if (!placed(lits[k])) {
          std::swap(lits[1], lits[k]);
          watches_[lits[1]].push_back(id);
          moved = true;
          break;
        }
      }
    }
    if (moved) continue;
    ws[keep++] = id;
    if (!alive_[lits[0]]) continue;  // satisfied
    if (placed(lits[0])) {
      conflict_ = true;
    } else {
      remove(lits[0]);
    }
  }
  ws.resize(keep);
}

bool Engine::drain() {
  while (!conflict_) {
    if (cq_head_ < cq_.size()) {
      const int c = cq_[cq_head_++];
      in_cq_[c] = 0;
      visit_cell(c);
    } else if (dq_head_ < dq_.size()) {
      const int d = dq_[dq_head_++];
      in_dq_[d] = 0;
      visit_dom(d);
    } else {
      cq_.clear();
      dq_.clear();
      cq_head_ = dq_head_ = 0;
      return true;
    }
  }
  return false;
}

}  // namespace arbiter::dominosa
