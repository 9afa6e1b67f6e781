// The Dominosa solver and grader (docs/games/dominosa.md §3, §5).
//
// Model. A *placement* is an orthogonally adjacent pair of cells; its domino is fixed by the two
// values, so placements are the edges of the grid graph, each labelled with a domino. A solution
// picks a perfect matching of the grid graph that uses every domino label exactly once. The state
// is the set of placements still alive; deductions only remove placements (placing one removes
// every overlapping placement and every other placement of its domino), and a trail undoes them
// for search.
//
// Deductions (each a sound rule; the levels of §3 are sets of them, see rules_for):
//   trivial  a cell or a domino with one placement left takes it.
//   basic    (local) a cell whose placements are all one domino D: D's other placements go; every
//            placement of D overlaps P: P goes; P goes when placing it would leave a neighbouring
//            cell nothing (its placements all overlap P or are copies of P's domino);
//            (bridges) in the graph of unplaced cells and alive placements a component of odd
//            size is a contradiction, a bridge with even sides goes, one with odd sides is placed.
//   hard     per value k, Hall filtering between the k-cells that cannot take the double (k,k)
//            and the non-double dominoes (k,j) (each covers exactly one k-cell): a maximum
//            matching, then Régin's alternating-path / strongly-connected-component test removes
//            every (cell, domino) pair that lies in no matching saturating those cells, and
//            removes from the remaining k-cells the dominoes that every such matching uses. This
//            is the fixpoint of the naked-subset rule ("m cells only form m dominoes") without
//            the double, where it would be unsound.
//   extreme  double-aware Hall per value: all n+2 k-cells against the n non-double dominoes
//            (capacity 1) and the double (capacity 2, two copies): a perfect assignment, pairs in
//            none are removed. Forcing chains: a cell with exactly two placements links them as
//            "exactly one"; the links form parity classes (union-find with parity), a class that
//            would place one domino twice or overlap itself is false and all its placements go.
//   (search) perfect-matching pruning of the grid graph: with a perfect matching in hand, a
//            placement outside it lies in some perfect matching iff its ends are in one strongly
//            connected component of the alternating graph (Dulmage–Mendelsohn); others go.
// The solver propagates local + double-aware Hall + perfect-matching pruning (which imply bridges
// and single Hall) from work queues: local rules per changed cell/domino, Hall per changed value,
// the global passes only when the state changed since their last run, cheapest first. Grading
// runs the levels in turn, each from the previous level's fixpoint (the rules are monotone), and
// never searches: deductions that finish a puzzle prove it unique.
//
// Search (solve): binary branching on a placement of the cell or domino with the fewest
// placements per conflict weight (dom/wdeg), randomized ties from a fixed seed (deterministic),
// restarts on a Luby schedule with nogood recording so that the search stays complete and counts
// exactly (see solve()). Random layouts are hard instances: Dominosa is NP-complete and a random
// layout's solutions are the planted tiling and a few local variants, so the search time grows
// exponentially with n (bench/dominosa_bench.cpp); generated puzzles solve by propagation alone.
#include "games/dominosa/solver.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace arbiter::dominosa {
namespace {

enum : unsigned {
  kLocal = 1u << 0,       // basic: the local rules
  kBridges = 1u << 1,     // basic: bridge parity
  kHallSingle = 1u << 2,  // hard: per-value Hall without the double
  kHallDouble = 1u << 3,  // extreme: per-value Hall with the double (capacity 2)
  kChains = 1u << 4,      // extreme: forcing chains
  kMatching = 1u << 5,    // perfect-matching pruning of the grid graph
};

constexpr unsigned kTrivialRules = 0;
constexpr unsigned kBasicRules = kLocal | kBridges;
constexpr unsigned kHardRules = kBasicRules | kHallSingle;
constexpr unsigned kExtremeRules = kHardRules | kHallDouble | kChains;
constexpr unsigned kAllRules = kExtremeRules | kMatching;
// Search: bridges and single Hall are implied by matching pruning and double Hall.
constexpr unsigned kSearchRules = kLocal | kHallDouble | kMatching;

unsigned rules_for(Level level) {
  switch (level) {
    case Level::trivial:
      return kTrivialRules;
    case Level::basic:
      return kBasicRules;
    case Level::hard:
      return kHardRules;
    case Level::extreme:
      return kExtremeRules;
    case Level::ambiguous:
      break;
  }
  return kAllRules;
}

// Iterative Tarjan over nodes 0..v-1 with arcs in CSR form (start has v+1 entries).
class Scc {
 public:
  std::vector<int> comp;

  int run(int v, const std::vector<int>& start, const std::vector<int>& arcs) {
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

 private:
  void open(int x, const std::vector<int>& start, int& counter) {
    index_[x] = low_[x] = counter++;
    stack_.push_back(x);
    on_[x] = 1;
    call_node_.push_back(x);
    call_pos_.push_back(start[x]);
  }

  std::vector<int> index_, low_, stack_, call_node_, call_pos_;
  std::vector<std::uint8_t> on_;
};

class Engine {
 public:
  explicit Engine(const Puzzle& p) { build(p); }

  bool valid() const { return valid_; }
  int unplaced() const { return unplaced_; }
  std::size_t mark() const { return trail_.size(); }

  // Switches the rule set and re-examines everything under it.
  // Switches the rule set. The state is at a fixpoint of the old rules (or fresh), so only the
  // rules that are new need to look at everything.
  void set_rules(unsigned rules) {
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

  // Runs the rules to a fixpoint; false on a contradiction (no solution extends the state).
  bool propagate() {
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

  // Places alive placement e (a search decision) and propagates.
  bool decide(int e) {
    if (!alive_[e]) return false;
    place(e);
    return propagate();
  }

  // Undoes everything after `mark` and forgets a pending contradiction.
  void undo(std::size_t to) {
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

  // Branching (dom/wdeg): the unplaced cell or domino with the fewest placements per unit of
  // weight (weights grow where contradictions are found), ties broken at random; then, of its
  // placements, the one in the tightest spot (the fewest placements of the other constraints
  // it touches). Returns -1 when everything is placed.
  int choose(Rng& rng) {
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

  // The variable of the last choice(), blamed for a contradiction that no count explains.
  void remember_choice() {
    choice_cell_ = blame_cell_;
    choice_dom_ = blame_dom_;
  }
  void set_choice(int cell, int dom) {
    choice_cell_ = cell;
    choice_dom_ = dom;
  }
  int choice_cell() const { return choice_cell_; }
  int choice_dom() const { return choice_dom_; }

  // After a contradiction: weigh the cell or domino left without placements (else the choice).
  void bump() {
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

  // Removes placement e as a search decision (the right branch) and propagates.
  bool refute(int e) {
    remove(e);
    return propagate();
  }

  bool placed(int e) const { return alive_[e] && cell_placed_[ea_[e]] == e; }

  // Adds the nogood "not all of `lits` are placed" (at the root of the search). False when it is
  // already violated, i.e. the search space is exhausted.
  bool add_nogood(std::vector<int>& lits) {
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

  Solution solution() const {
    Solution s(cells_, '?');
    for (int c = 0; c < cells_; ++c) {
      const int e = cell_placed_[c];
      if (e < 0) continue;
      const bool horizontal = eb_[e] - ea_[e] == 1;
      s[c] = horizontal ? (c == ea_[e] ? 'L' : 'R') : (c == ea_[e] ? 'T' : 'B');
    }
    return s;
  }

 private:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  int other(int f, int c) const { return ea_[f] == c ? eb_[f] : ea_[f]; }

  void build(const Puzzle& p) {
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

  void add_edge(int a, int b, int slot_a, int slot_b) {
    const int e = static_cast<int>(ea_.size());
    ea_.push_back(a);
    eb_.push_back(b);
    edom_.push_back(domino_index(val_[a], val_[b], n_));
    cell_edge_[a * 4 + slot_a] = e;
    cell_edge_[b * 4 + slot_b] = e;
  }

  void push_cell(int c) {
    if (!in_cq_[c]) {
      in_cq_[c] = 1;
      cq_.push_back(c);
    }
  }
  void push_dom(int d) {
    if (!in_dq_[d]) {
      in_dq_[d] = 1;
      dq_.push_back(d);
    }
  }

  void remove(int e) {
    if (!alive_[e]) return;
    alive_[e] = 0;
    trail_.push_back(e);
    ++version_;
    const int a = ea_[e], b = eb_[e], d = edom_[e];
    if (--ccount_[a] == 0) conflict_ = true, conflict_cell_ = a;
    if (--ccount_[b] == 0) conflict_ = true, conflict_cell_ = b;
    if (--dcount_[d] == 0) conflict_ = true, conflict_dom_ = d;
    ++val_ver_[val_[a]];
    ++val_ver_[val_[b]];
    push_cell(a);
    push_cell(b);
    push_dom(d);
  }

  void place(int e) {
    const int a = ea_[e], b = eb_[e], d = edom_[e];
    if (cell_placed_[a] == e) return;
    cell_placed_[a] = cell_placed_[b] = e;
    dom_placed_[d] = e;
    unplaced_ -= 2;
    trail_.push_back(~e);
    ++version_;
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[a * 4 + s];
      if (f >= 0 && f != e) remove(f);
      const int g = cell_edge_[b * 4 + s];
      if (g >= 0 && g != e) remove(g);
    }
    for (int i = dom_start_[d]; i < dom_start_[d + 1]; ++i) {
      if (dom_list_[i] != e) remove(dom_list_[i]);
    }
    if (!watches_.empty() && !watches_[e].empty()) wake_nogoods(e);
  }

  // e was placed: each nogood watching it finds another unplaced literal, or its last one goes.
  void wake_nogoods(int e) {
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

  // Places e when a rule proved it; a contradiction when a sound rule removed it already.
  void force(int e) {
    if (!alive_[e]) {
      conflict_ = true;
      return;
    }
    place(e);
  }

  bool drain() {
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

  void visit_cell(int c) {
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

  void visit_dom(int d) {
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
  void bridges() {
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

  // Collects the options of the k-cells: for the double-aware graph (double = nodes k and m-1)
  // or the single one (non-double dominoes only). Returns false when every k-cell is placed.
  bool collect_options(int k, bool with_double) {
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

  bool has_option(int i, int t) const {
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) {
      if (o[u] == t) return true;
    }
    return false;
  }

  // Kuhn's augmenting path from cell i over the current options.
  bool augment(int i, int* cm, int* nm) {
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
  void remove_value(int c, int j) {
    for (int s = 0; s < 4; ++s) {
      const int f = cell_edge_[c * 4 + s];
      if (f >= 0 && alive_[f] && val_[other(f, c)] == j) remove(f);
    }
  }

  void hall_double(int k) {
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

  void hall_single(int k) {
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

  int uf_find(int e, int& parity) {
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

  void uf_touch(int e) {
    if (uf_parent_[e] >= 0) return;
    uf_parent_[e] = e;
    uf_par_[e] = 0;
    touched_.push_back(e);
  }

  // Forcing chains: "exactly one" links of two-placement cells, parity classes, bad classes go.
  void chains() {
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
          if (dom_stamp_[edom_[e]] == st || cell_stamp_[ea_[e]] == st ||
              cell_stamp_[eb_[e]] == st) {
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

  bool black(int c) const { return ((c / w_) + (c % w_)) % 2 == 0; }

  // Perfect-matching pruning of the grid graph (Hopcroft-Karp repair, then SCCs).
  void matching() {
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
  bool hopcroft_karp_phase() {
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

  static constexpr int kMaxOpt = 6;

  // Structure.
  int n_ = 0, h_ = 0, w_ = 0, cells_ = 0, edges_ = 0, doms_ = 0, m_ = 0;
  bool valid_ = false, impossible_ = false, fresh_ = true;
  std::vector<int> val_, ea_, eb_, edom_, cell_edge_, dom_start_, dom_list_, vcells_, vidx_;

  // State.
  unsigned rules_ = 0;
  std::vector<std::uint8_t> alive_;
  std::vector<int> ccount_, dcount_, cell_placed_, dom_placed_, trail_;
  int unplaced_ = 0;
  bool conflict_ = false;
  std::uint64_t version_ = 0;
  std::uint64_t bridge_seen_ = kNever, chains_seen_ = kNever, match_seen_ = kNever;
  std::vector<std::uint64_t> val_ver_, hs_seen_, hd_seen_;
  std::vector<int> cq_, dq_;
  std::size_t cq_head_ = 0, dq_head_ = 0;
  std::vector<std::uint8_t> in_cq_, in_dq_;

  // Scratch (kept between calls: no allocation once warm).
  Scc scc_;
  std::vector<int> arc_start_, arcs_, to_remove_, to_place_;
  std::vector<int> hs_cm_, hs_nm_, hd_cm_, hd_nm_, opt_, nopt_, node_stamp_, rev_start_, rev_,
      rev_fill_, queue_;
  std::vector<std::uint8_t> reach_, in_c_;
  int stamp_ = 0;
  std::vector<int> gm_, dist_, slot_, lid_, free_, visited_, path_, via_, nodes_;
  std::vector<int> disc_, low_, sub_, tree_, dfs_cell_, dfs_edge_, dfs_slot_;
  std::vector<int> uf_parent_, uf_next_, uf_head_, touched_, dom_stamp_, cell_stamp_;
  std::vector<std::uint8_t> uf_par_;
  int stamp2_ = 0;

  // Search: weights, blame, nogoods (flat literals; watches per placement).
  std::vector<double> wcell_, wdom_;
  int conflict_cell_ = -1, conflict_dom_ = -1, blame_cell_ = -1, blame_dom_ = -1;
  int choice_cell_ = -1, choice_dom_ = -1;
  std::vector<int> ng_start_, ng_size_, ng_lits_;
  std::vector<std::vector<int>> watches_;

 public:
  void enable_search() {
    wcell_.assign(cells_, 1.0);
    wdom_.assign(doms_, 1.0);
    watches_.assign(edges_, {});
  }
};

}  // namespace

namespace {

// The Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... (i >= 1).
std::int64_t luby(std::int64_t i) {
  for (;;) {
    std::int64_t k = 1;
    while ((std::int64_t{1} << k) - 1 < i) ++k;
    if ((std::int64_t{1} << k) - 1 == i) return std::int64_t{1} << (k - 1);
    i -= (std::int64_t{1} << (k - 1)) - 1;
  }
}

}  // namespace

// Search: binary branching (place a placement / remove it) from the fixpoint of the search
// rules, dom/wdeg variable choice, restarts on a Luby schedule. At each restart the explored part
// of the tree is kept as nogoods (reduced nld-nogoods: for each right branch "not e" on the path,
// the placements decided before it plus e cannot all hold), so the search stays complete and
// counts every solution once: a solution is a leaf that is backtracked from like a failure, and
// the nogoods of the next restart exclude it.
SolveResult solve(const Puzzle& p, std::int64_t limit, const SolveLimits& limits) {
  SolveResult r;
  limit = std::max<std::int64_t>(limit, 1);
  Engine eng(p);
  if (!eng.valid()) return r;
  eng.set_rules(kSearchRules);
  if (!eng.propagate()) return r;
  auto record = [&] {
    ++r.count;
    if (!r.first) {
      r.first = eng.solution();
    } else if (!r.second) {
      r.second = eng.solution();
    }
  };
  if (eng.unplaced() == 0) {
    record();
    return r;
  }
  eng.enable_search();
  Rng rng(0x646f6d696e6f7361ULL);  // fixed: the same puzzle is always searched alike
  struct Decision {
    std::size_t mark;  // trail before the decision
    int e;
    bool positive;  // placed (left branch) or removed (right branch)
    int cell, dom;  // the variable chosen
  };
  std::vector<Decision> path;
  std::vector<int> nogood;
  std::size_t root = eng.mark();
  for (std::int64_t run = 1;; ++run) {
    const std::int64_t cutoff = limits.restart_nodes > 0 ? limits.restart_nodes * luby(run)
                                                         : std::numeric_limits<std::int64_t>::max();
    std::int64_t run_nodes = 0;
    bool failed = false;  // the current node is a contradiction or a counted solution
    for (;;) {
      if (failed) {
        while (!path.empty() && !path.back().positive) path.pop_back();
        if (path.empty()) return r;  // exhausted: the count is exact
        Decision& d = path.back();
        eng.undo(d.mark);
        d.positive = false;
        if (limits.max_nodes >= 0 && r.nodes >= limits.max_nodes) {
          r.complete = false;
          return r;
        }
        ++r.nodes;
        ++run_nodes;
        eng.set_choice(d.cell, d.dom);
        failed = !eng.refute(d.e);
        if (failed) eng.bump();
      } else if (eng.unplaced() == 0) {
        record();
        if (r.count >= limit) return r;
        run_nodes = 0;  // a productive run goes on: nearby solutions come cheaply
        failed = true;
      } else if (run_nodes >= cutoff) {
        break;  // restart
      } else {
        if (limits.max_nodes >= 0 && r.nodes >= limits.max_nodes) {
          r.complete = false;
          return r;
        }
        const int e = eng.choose(rng);
        eng.remember_choice();
        path.push_back({eng.mark(), e, true, eng.choice_cell(), eng.choice_dom()});
        ++r.nodes;
        ++run_nodes;
        failed = !eng.decide(e);
        if (failed) eng.bump();
      }
    }
    // Restart: keep what this run proved, then start again from the root.
    eng.undo(root);
    std::vector<int> positives;
    bool exhausted = false;
    for (const Decision& d : path) {
      if (d.positive) {
        positives.push_back(d.e);
        continue;
      }
      nogood = positives;
      nogood.push_back(d.e);
      if (!eng.add_nogood(nogood)) exhausted = true;
    }
    path.clear();
    if (exhausted || !eng.propagate()) return r;
    if (eng.unplaced() == 0) {
      record();  // the nogoods forced the last solution left
      return r;
    }
    root = eng.mark();
  }
}

GradeDetail grade_detail(const Puzzle& p) {
  GradeDetail g;
  Engine eng(p);
  if (!eng.valid()) {
    g.contradiction = true;
    return g;
  }
  static constexpr Level kLevels[] = {Level::trivial, Level::basic, Level::hard, Level::extreme};
  for (int i = 0; i < 4; ++i) {
    eng.set_rules(rules_for(kLevels[i]));
    if (!eng.propagate()) {
      g.contradiction = true;
      for (int j = i; j < 4; ++j) g.unplaced[j] = p.cells();
      return g;
    }
    g.unplaced[i] = eng.unplaced();
    if (eng.unplaced() == 0) {
      g.level = kLevels[i];
      for (int j = i + 1; j < 4; ++j) g.unplaced[j] = 0;
      return g;
    }
  }
  return g;
}

Level grade(const Puzzle& p) {
  return grade_detail(p).level;
}

bool solves_with(const Puzzle& p, Level level) {
  Engine eng(p);
  if (!eng.valid()) return false;
  eng.set_rules(rules_for(level));
  return eng.propagate() && eng.unplaced() == 0;
}

}  // namespace arbiter::dominosa
