// Private to the Dominosa solver: the Engine that solve, grade and solves_with drive. It holds
// the placements still alive, the trail that undoes removals and placements, and the work queues
// of the deductions (solver.cpp describes the model and the rules). Defined in solver_engine.cpp
// (model, trail, propagation, search support), solver_deductions.cpp and solver_matching.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "games/dominosa/puzzle.h"

namespace arbiter::dominosa {

// The deduction rules, as bits of a rule set (a level of §3 is a set of them; see solver.cpp).
enum : unsigned {
  kLocal = 1u << 0,       // basic: the local rules
  kBridges = 1u << 1,     // basic: bridge parity
  kHallSingle = 1u << 2,  // hard: per-value Hall without the double
  kHallDouble = 1u << 3,  // extreme: per-value Hall with the double (capacity 2)
  kChains = 1u << 4,      // extreme: forcing chains
  kMatching = 1u << 5,    // perfect-matching pruning of the grid graph
};

// Luby's restart sequence 1 1 2 1 1 2 4 1 1 2 ... for i = 1, 2, 3, ...
inline std::int64_t luby(std::int64_t i) {
  for (;;) {
    std::int64_t k = 1;
    while ((std::int64_t{1} << k) - 1 < i) ++k;
    if ((std::int64_t{1} << k) - 1 == i) return std::int64_t{1} << (k - 1);
    i -= (std::int64_t{1} << (k - 1)) - 1;
  }
}

// Iterative Tarjan over nodes 0..v-1 with arcs in CSR form (start has v+1 entries).
class Scc {
 public:
  std::vector<int> comp;

  int run(int v, const std::vector<int>& start, const std::vector<int>& arcs);

 private:
  void open(int x, const std::vector<int>& start, int& counter);

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
  void set_rules(unsigned rules);

  // Runs the rules to a fixpoint; false on a contradiction (no solution extends the state).
  bool propagate();

  // Places alive placement e (a search decision) and propagates.
  bool decide(int e) {
    if (!alive_[e]) return false;
    place(e);
    return propagate();
  }

  // Undoes everything after `mark` and forgets a pending contradiction.
  void undo(std::size_t to);

  // Branching (dom/wdeg): the unplaced cell or domino with the fewest placements per unit of
  // weight (weights grow where contradictions are found), ties broken at random; then, of its
  // placements, the one in the tightest spot (the fewest placements of the other constraints
  // it touches). Returns -1 when everything is placed.
  int choose(Rng& rng);

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
  void bump();

  // Removes placement e as a search decision (the right branch) and propagates.
  bool refute(int e) {
    remove(e);
    return propagate();
  }

  bool placed(int e) const { return alive_[e] && cell_placed_[ea_[e]] == e; }

  // Adds the nogood "not all of `lits` are placed" (at the root of the search). False when it is
  // already violated, i.e. the search space is exhausted.
  bool add_nogood(std::vector<int>& lits);

  Solution solution() const;

 private:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};

  int other(int f, int c) const { return ea_[f] == c ? eb_[f] : ea_[f]; }

  // The model and the trail (solver_engine.cpp).
  void build(const Puzzle& p);
  void add_edge(int a, int b, int slot_a, int slot_b);

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

  void wake_nogoods(int e);

  // Places e when a rule proved it; a contradiction when a sound rule removed it already.
  void force(int e) {
    if (!alive_[e]) {
      conflict_ = true;
      return;
    }
    place(e);
  }

  bool drain();

  // The local rules, bridges and forcing chains (solver_deductions.cpp).
  void visit_cell(int c);
  void visit_dom(int d);
  void bridges();
  int uf_find(int e, int& parity);
  void uf_touch(int e);
  void chains();

  // Hall filtering per value and perfect-matching pruning (solver_matching.cpp).
  bool collect_options(int k, bool with_double);

  bool has_option(int i, int t) const {
    const int* o = &opt_[static_cast<std::size_t>(i) * kMaxOpt];
    for (int u = 0; u < nopt_[i]; ++u) {
      if (o[u] == t) return true;
    }
    return false;
  }

  bool augment(int i, int* cm, int* nm);
  void remove_value(int c, int j);
  void hall_double(int k);
  void hall_single(int k);

  bool black(int c) const { return ((c / w_) + (c % w_)) % 2 == 0; }

  void matching();
  bool hopcroft_karp_phase();

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

}  // namespace arbiter::dominosa
