// The house solver for Speed Scrabble (docs/games/speed_scrabble.md §1.2, §4): builds a crossword
// that uses exactly a given multiset of letters, and extends a board as tiles arrive.
//
// A SolverIndex (a letter trie over the dictionary plus a table of word extensions, e.g. CAT ->
// CATS, SCAT) is built once per dictionary and is read-only, so any number of Solvers on any
// threads may share one. A Solver holds the scratch state of one search: use one per thread.
// Everything is deterministic: the same index, tiles, board and limits give the same answer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "games/speed_scrabble/words.h"

namespace arbiter::speed_scrabble {

// The search budget of one call; there is no wall clock inside. A node is one placement tried
// (a word laid on the board, with its letters taken from the rack). On the machine of
// docs/benchmarks.md a node costs 1 to 4 microseconds, so the default gives up after 20 to 80 ms
// on a hand it cannot do. The median 15-tile hand needs 3 nodes; over 3,000 seeded hands each of
// 15 and of 21 tiles, a budget of 500,000 finds one board more than the default.
struct SolveLimits {
  long max_nodes = 20'000;
};

// What the last call of a Solver did (for tests and benchmarks).
struct SolveStats {
  long nodes = 0;         // placements tried, over every stage
  bool extended = false;  // extend(): the board came from `previous` (maybe minus a few words)
  int ripped = 0;         // extend(): words taken off `previous` before the new letters fitted
};

struct SolverIndex;  // read-only, shareable; see make_solver_index

// The index for `dict` (about 50 ms for scowl-70 in an optimized build). Words longer than
// kMaxSide letters are left out: they never fit on a board.
std::shared_ptr<const SolverIndex> make_solver_index(const Dictionary& dict);

class Solver {
 public:
  explicit Solver(const Dictionary& dict);
  explicit Solver(std::shared_ptr<const SolverIndex> index);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  // A valid board (board_problem(board, tiles, dict) == "") that uses exactly `tiles`, or
  // nothing when none was found within the budget. Nothing for fewer than 2 tiles or for tiles
  // other than 'A'..'Z' (a lone letter is not a board).
  std::optional<Board> solve(std::string_view tiles, const SolveLimits& limits = {});

  // The board for `tiles` when `previous` is a valid board for all but the last tile(s) of
  // `tiles`: first the new letters are hooked onto `previous` as it stands, then onto
  // `previous` with one or two of its outer words taken off (their letters rejoin the rack),
  // and last the board is rebuilt from scratch. A `previous` that is not a valid board for a
  // sub-multiset of `tiles` is ignored (rebuild from scratch).
  std::optional<Board> extend(const Board& previous, std::string_view tiles,
                              const SolveLimits& limits = {});

  const SolveStats& last_stats() const { return stats_; }
  const std::shared_ptr<const SolverIndex>& index() const { return index_; }

 private:
  class Search;
  std::shared_ptr<const SolverIndex> index_;
  std::unique_ptr<Search> search_;
  SolveStats stats_;
};

}  // namespace arbiter::speed_scrabble
