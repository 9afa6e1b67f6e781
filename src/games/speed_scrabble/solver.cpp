// The house solver: iterative limited-discrepancy search over word placements.
//
// The index is a letter trie (children as a 26-bit mask plus the index of the first child, so a
// child is one popcount away) and, for every word, the longer words that contain it with at most
// kMaxExt letters added in front and behind (CAT -> CATS, SCAT, CATTY, ...).
//
// A search state is a board on an 80 x 80 grid (so that a 32 x 32 board fits around its first
// tile in every direction) and a rack (the letters still to place). A move lays one word:
//  - the first word, across, anywhere in the middle (boards are the same up to translation);
//  - a word through one tile whose run in the word's direction is that tile alone (a "slot"):
//    the other letters come from the rack, found in one trie walk over the rack plus one
//    wildcard restricted to the letters of the slots;
//  - an extension of a run (a word on the board) to a longer word on the same line.
// New letters may touch other words side by side as long as every run they make is a word
// (cross-checks), the ends of the new word must be empty, and the board stays within 32 x 32.
// Moves are ordered by how much they use up (letters weighted by their rarity in the dictionary,
// so Q, Z, J, X go first), minus a penalty for leaving a rack short of vowels or of consonants;
// and at every node the moves that use the rack letter that the fewest moves use (the critical
// letter: every tile must be placed) come before all others. They are explored by limited
// discrepancy search: a path may deviate from the preferred moves by a total rank of about 2D,
// for D = 0, 1, 2, ... until a board is found, the node budget is spent, or an iteration cuts
// nothing (the space is exhausted). A transposition table (Zobrist hash of the tiles) stops the
// search from exploring the same board twice with no more budget than before.
// Pruning: before any search, every letter of the hand must occur in some word made of the
// hand's letters (every tile is in a run, and a run is such a word), which settles most hands
// that have no board (Q without U or I) at once; during the search, a rack holding a letter that
// is in no 2-letter word (V, Z in scowl-70) is dropped when no word made of the rack plus one
// more letter contains it.
#include "games/speed_scrabble/solver.h"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rng.h"

namespace arbiter::speed_scrabble {

namespace {

constexpr int kG = 80;  // side of the internal grid
constexpr int kCells = kG * kG;
constexpr int kCenter = kG / 2;
constexpr std::array<int, 2> kStep = {1, kG};  // across, down
constexpr std::uint32_t kAllLetters = (1u << 26) - 1;
constexpr std::uint32_t kTerminal = 1u << 26;
constexpr int kMaxExt = 4;
constexpr int kLeaveWeight = 32;         // per unbalanced letter; a common letter weighs 8 to 14
constexpr int kCriticalBonus = 1 << 16;  // moves with the critical letter come first
constexpr std::uint32_t kVowels = (1u << 0) | (1u << 4) | (1u << 8) | (1u << 14) |
                                  (1u << 20);  // an extension adds at most this many letters


// Zobrist key of letter `c` (0..25) at grid position `pos`.
inline std::uint64_t tile_key(int pos, int c) {
  return mix64((static_cast<std::uint64_t>(pos) << 5) | static_cast<std::uint64_t>(c));
}

// Population count of a 32-bit mask (a few instructions even where the target lacks popcnt,
// where std::popcount becomes a library call).
inline int bits(std::uint32_t x) {
#ifdef __POPCNT__
  return std::popcount(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

// Coordinate of `pos` along direction d (0: column, 1: row).
inline int coord(int pos, int d) {
  return d == 0 ? pos % kG : pos / kG;
}

}  // namespace

struct SolverIndex {
  struct Node {
    std::uint32_t mask;   // bit c: child for letter c; kTerminal: a word ends here
    std::uint32_t first;  // index of the first child; children are contiguous, in letter order
  };
  struct Ext {
    std::uint32_t word;                         // the longer word
    std::uint32_t mask;                         // the letters added
    std::uint8_t offset;                        // where the shorter word starts in it
    std::uint8_t added;                         // how many letters are added (at most kMaxExt)
    std::array<std::uint8_t, kMaxExt> letters;  // the letters added
  };

  std::vector<Node> nodes;                   // nodes[0] is the root
  std::vector<std::int32_t> word_at;         // per node: the word ending there, or -1
  std::vector<std::uint8_t> text;            // the words' letters (0..25), back to back
  std::vector<std::uint32_t> start;          // word w is text[start[w], start[w + 1])
  std::vector<std::int32_t> weight_of_word;  // sum of letter weights
  std::vector<std::uint32_t> ext_start;      // word w's extensions: ext[ext_start[w], ...[w + 1])
  std::vector<Ext> ext;
  std::vector<std::uint32_t> ext_mask;  // ext[i].mask (scanned on its own)
  std::array<int, 26> weight{};         // how much using a letter is worth (rare letters more)
  std::uint32_t hard = 0;               // letters in no 2-letter word (e.g. V, Z in scowl-70)

  int size() const { return static_cast<int>(start.size()) - 1; }
  int len(std::uint32_t w) const { return static_cast<int>(start[w + 1] - start[w]); }
  const std::uint8_t* word(std::uint32_t w) const { return text.data() + start[w]; }
  // The child of `node` for letter c, or -1.
  std::int32_t child(std::uint32_t node, int c) const {
    const Node& n = nodes[node];
    const std::uint32_t bit = 1u << c;
    if (!(n.mask & bit)) return -1;
    return static_cast<std::int32_t>(n.first + bits(n.mask & (bit - 1)));
  }
};

namespace {

using Words = std::vector<std::string_view>;

void build_trie(SolverIndex& ix, const Words& words, std::size_t lo, std::size_t hi,
                std::size_t depth, std::uint32_t node) {
  if (lo < hi && words[lo].size() == depth) {
    ix.nodes[node].mask |= kTerminal;
    ix.word_at[node] = static_cast<std::int32_t>(lo);
    ++lo;
  }
  std::uint32_t mask = 0;
  for (std::size_t i = lo; i < hi; ++i) mask |= 1u << (words[i][depth] - 'A');
  if (!mask) return;
  const auto first = static_cast<std::uint32_t>(ix.nodes.size());
  ix.nodes[node].mask |= mask;
  ix.nodes[node].first = first;
  ix.nodes.resize(first + std::popcount(mask), SolverIndex::Node{0, 0});
  ix.word_at.resize(ix.nodes.size(), -1);
  std::uint32_t child = first;
  for (std::size_t i = lo; i < hi;) {
    std::size_t j = i;
    while (j < hi && words[j][depth] == words[i][depth]) ++j;
    build_trie(ix, words, i, j, depth + 1, child++);
    i = j;
  }
}

}  // namespace

std::shared_ptr<const SolverIndex> make_solver_index(const Dictionary& dict) {
  auto ix = std::make_shared<SolverIndex>();
  Words words;
  for (const std::string& w : dict.words()) {
    if (w.size() < 2 || w.size() > static_cast<std::size_t>(kMaxSide)) continue;
    if (!std::all_of(w.begin(), w.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) continue;
    words.push_back(w);
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());

  ix->start.reserve(words.size() + 1);
  ix->start.push_back(0);
  std::array<double, 26> freq{};
  for (std::string_view w : words) {
    for (char c : w) {
      ix->text.push_back(static_cast<std::uint8_t>(c - 'A'));
      freq[c - 'A'] += 1;
    }
    ix->start.push_back(static_cast<std::uint32_t>(ix->text.size()));
  }
  ix->nodes.push_back({0, 0});
  ix->word_at.push_back(-1);
  build_trie(*ix, words, 0, words.size(), 0, 0);

  // Weights: 8 for the most frequent letter, 8 more per halving of frequency.
  const double top = std::max(1.0, *std::max_element(freq.begin(), freq.end()));
  for (int c = 0; c < 26; ++c) {
    const double f = std::max(freq[c], 0.5);
    ix->weight[c] = 8 + static_cast<int>(std::lround(8 * std::log2(top / f)));
  }
  const int n = ix->size();
  ix->weight_of_word.resize(n);
  std::uint32_t pair = 0;
  for (int w = 0; w < n; ++w) {
    int sum = 0;
    for (int i = 0; i < ix->len(w); ++i) sum += ix->weight[ix->word(w)[i]];
    ix->weight_of_word[w] = sum;
    if (ix->len(w) == 2) pair |= (1u << ix->word(w)[0]) | (1u << ix->word(w)[1]);
  }
  ix->hard = kAllLetters & ~pair;

  // Extensions: for every word v and every shorter word u = v[o, o + L) with v.size() - L <=
  // kMaxExt, one entry (v, o) under u.
  std::vector<std::pair<std::uint32_t, SolverIndex::Ext>> pairs;
  for (int v = 0; v < n; ++v) {
    const int len = ix->len(v);
    const std::uint8_t* t = ix->word(v);
    for (int o = 0; o <= kMaxExt && o + 2 <= len; ++o) {
      std::int32_t node = 0;
      for (int j = o; j < len; ++j) {
        node = ix->child(static_cast<std::uint32_t>(node), t[j]);
        if (node < 0) break;
        const int l = j - o + 1;
        if (l >= 2 && l < len && len - l <= kMaxExt && ix->word_at[node] >= 0) {
          SolverIndex::Ext x{static_cast<std::uint32_t>(v), 0, static_cast<std::uint8_t>(o), 0, {}};
          for (int i = 0; i < len; ++i) {
            if (i >= o && i <= j) continue;
            x.mask |= 1u << t[i];
            x.letters[x.added++] = t[i];
          }
          pairs.push_back({static_cast<std::uint32_t>(ix->word_at[node]), x});
        }
      }
    }
  }
  // By shorter word, then fewest letters added first (a search stops at the rack's size).
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.added < b.second.added;
  });
  ix->ext_start.assign(n + 1, 0);
  for (const auto& p : pairs) ++ix->ext_start[p.first + 1];
  for (int w = 0; w < n; ++w) ix->ext_start[w + 1] += ix->ext_start[w];
  ix->ext.reserve(pairs.size());
  ix->ext_mask.reserve(pairs.size());
  for (const auto& p : pairs) {
    ix->ext.push_back(p.second);
    ix->ext_mask.push_back(p.second.mask);
  }
  return ix;
}

// ---------------------------------------------------------------------------------------------
// The search

class Solver::Search {
 public:
  explicit Search(const SolverIndex& ix) : ix_(ix), tt_(kTtSize) {}

  // Empties the board and sets the rack to `tiles` (REQUIRES: only 'A'..'Z').
  void reset(std::string_view tiles) {
    for (int p : tiles_) grid_[p] = 0;
    tiles_.clear();
    rack_.fill(0);
    for (char c : tiles) ++rack_[c - 'A'];
    rack_n_ = static_cast<int>(tiles.size());
    lo_ = {INT_MAX, INT_MAX};
    hi_ = {INT_MIN, INT_MIN};
    hash_ = 0;
  }

  // Puts `board` on the grid and sets the rack to `tiles` minus its letters. False when the
  // board has a bad shape, letters that `tiles` lacks, or is not a valid board.
  bool load(const Board& board, std::string_view tiles) {
    reset(tiles);
    const int h = static_cast<int>(board.size());
    if (h < 1 || h > kMaxSide) return false;
    const int w = static_cast<int>(board[0].size());
    if (w < 1 || w > kMaxSide) return false;
    const int r0 = (kG - h) / 2, c0 = (kG - w) / 2;
    for (int r = 0; r < h; ++r) {
      if (static_cast<int>(board[r].size()) != w) return false;
      for (int c = 0; c < w; ++c) {
        const char ch = board[r][c];
        if (ch == '.') continue;
        if (ch < 'A' || ch > 'Z' || rack_[ch - 'A'] == 0) return false;
        put((r0 + r) * kG + c0 + c, ch - 'A');
      }
    }
    return valid();
  }

  // The board, cropped to its tiles.
  Board board() const {
    Board out(hi_[1] - lo_[1] + 1, std::string(hi_[0] - lo_[0] + 1, '.'));
    for (int p : tiles_) out[coord(p, 1) - lo_[1]][coord(p, 0) - lo_[0]] = 'A' + grid_[p] - 1;
    return out;
  }

  int rack_size() const { return rack_n_; }

  // On an empty board: does every rack letter occur in some word made of rack letters? (Every
  // tile of a board is in a run of 2 or more, which is such a word.)
  bool every_letter_fits() {
    rack_mask_ = rack_mask();
    for (std::uint32_t m = rack_mask_; m; m &= m - 1)
      if (!placeable(0, 0, true, false, std::countr_zero(m))) return false;
    return true;
  }
  long nodes() const { return nodes_; }

  // Iterative limited discrepancy search from the current board until the rack is empty (true,
  // the board is left in place) or `max_nodes` more nodes are spent or the space is exhausted.
  bool run(long max_nodes) {
    if (rack_n_ == 0) return !tiles_.empty();
    if (max_nodes <= 0) return false;
    limit_ = nodes_ + max_nodes;
    ++generation_;
    // Every move places a tile: depth <= rack size (levels_ must not move under the search).
    if (levels_.size() < static_cast<std::size_t>(rack_n_) + 1) levels_.resize(rack_n_ + 1);
    for (int budget = 0;; ++budget) {
      out_ = false;
      cut_ = false;
      if (dfs(budget, 0)) return true;
      if (out_ || !cut_) return false;
    }
  }

  // The leaves of the board: words only one of whose tiles is in another word. Each leaf is
  // the list of its other tiles.
  std::vector<std::vector<int>> leaves() const {
    std::vector<std::vector<int>> out;
    for (int p : tiles_) {
      for (int d = 0; d < 2; ++d) {
        const int s = kStep[d], ps = kStep[1 - d];
        if (grid_[p - s] || !grid_[p + s]) continue;  // not the start of a run of 2+
        std::vector<int> free;
        int crossed = 0;
        for (int q = p; grid_[q]; q += s) {
          if (grid_[q - ps] || grid_[q + ps])
            ++crossed;
          else
            free.push_back(q);
        }
        if (crossed == 1) out.push_back(std::move(free));
      }
    }
    return out;
  }

  // Takes `cells` off the board (their letters go back to the rack).
  void remove(const std::vector<int>& cells) {
    for (int p : cells) {
      const int c = grid_[p] - 1;
      grid_[p] = 0;
      hash_ ^= tile_key(p, c);
      ++rack_[c];
      ++rack_n_;
      tiles_.erase(std::find(tiles_.begin(), tiles_.end(), p));
    }
    recompute_box();
  }

 private:
  static constexpr std::size_t kTtSize = 1 << 16;
  static constexpr std::size_t kMemoSize = 1 << 12;

  struct Memo {  // placeable(h) for a rack (a pure function: kept across searches)
    std::uint64_t key = 0;
    bool placeable = false;
  };

  struct TtEntry {
    std::uint64_t key = 0;
    std::uint32_t generation = 0;
    std::int32_t budget = -1;
  };

  enum Kind : std::uint8_t { kFirst, kSlot, kExtend };
  struct Cand {
    std::int32_t score;
    std::uint32_t word;
    Kind kind;
    std::uint8_t dir;    // kExtend: the run's direction
    std::uint8_t at;     // kSlot: index of the slot's letter in the word; kExtend: run length
    std::int32_t pos;    // kExtend: the word's first cell
    std::uint32_t used;  // the rack letters it uses
  };
  struct Slot {
    int pos;
    int dir;
  };
  struct Level {
    std::vector<Cand> cands;
    std::size_t sorted = 0;                   // cands[0, sorted) are in order
    std::array<std::vector<Slot>, 26> slots;  // slots by letter
  };
  struct Undo {
    std::size_t tiles;
    std::array<int, 2> lo, hi;
    std::uint64_t hash;
  };

  void put(int pos, int c) {
    grid_[pos] = static_cast<std::uint8_t>(c + 1);
    --rack_[c];
    --rack_n_;
    tiles_.push_back(pos);
    hash_ ^= tile_key(pos, c);
    for (int d = 0; d < 2; ++d) {
      lo_[d] = std::min(lo_[d], coord(pos, d));
      hi_[d] = std::max(hi_[d], coord(pos, d));
    }
  }

  void recompute_box() {
    lo_ = {INT_MAX, INT_MAX};
    hi_ = {INT_MIN, INT_MIN};
    for (int p : tiles_) {
      for (int d = 0; d < 2; ++d) {
        lo_[d] = std::min(lo_[d], coord(p, d));
        hi_[d] = std::max(hi_[d], coord(p, d));
      }
    }
  }

  Undo mark() const { return {tiles_.size(), lo_, hi_, hash_}; }
  void undo(const Undo& u) {
    while (tiles_.size() > u.tiles) {
      const int p = tiles_.back();
      tiles_.pop_back();
      ++rack_[grid_[p] - 1];
      ++rack_n_;
      grid_[p] = 0;
    }
    lo_ = u.lo;
    hi_ = u.hi;
    hash_ = u.hash;
  }

  // Is the run through `pos` in direction d a word when `pos` holds letter c?
  bool cross_ok(int pos, int d, int c) const {
    const int s = kStep[d];
    int q = pos;
    while (grid_[q - s]) q -= s;
    std::int32_t node = 0;
    for (;; q += s) {
      const int letter = q == pos ? c : grid_[q] - 1;
      if (q != pos && !grid_[q]) break;
      node = ix_.child(static_cast<std::uint32_t>(node), letter);
      if (node < 0) return false;
    }
    return ix_.nodes[node].mask & kTerminal;
  }

  // Can word w (len letters) go from `start` in direction d, with exactly `existing` of its
  // cells already holding its letters and every other cell empty and making only words?
  bool fits(const std::uint8_t* w, int len, int start, int d, int existing) const {
    const int s = kStep[d], ps = kStep[1 - d];
    const int a = coord(start, d), b = coord(start, 1 - d);
    if (std::max(hi_[d], a + len - 1) - std::min(lo_[d], a) >= kMaxSide) return false;
    if (std::max(hi_[1 - d], b) - std::min(lo_[1 - d], b) >= kMaxSide) return false;
    if (grid_[start - s] || grid_[start + len * s]) return false;
    int seen = 0;
    for (int i = 0, p = start; i < len; ++i, p += s) {
      if (const int g = grid_[p]) {
        if (g != w[i] + 1) return false;
        ++seen;
      } else if ((grid_[p - ps] || grid_[p + ps]) && !cross_ok(p, 1 - d, w[i])) {
        return false;
      }
    }
    return seen == existing;
  }

  void lay(const std::uint8_t* w, int len, int start, int d) {
    for (int i = 0, p = start; i < len; ++i, p += kStep[d])
      if (!grid_[p]) put(p, w[i]);
  }

  // Is every board run a word, the board connected and with a run (2+ tiles)?
  bool valid() const {
    if (tiles_.empty()) return false;
    bool any_run = false;
    for (int p : tiles_) {
      for (int d = 0; d < 2; ++d) {
        const int s = kStep[d];
        if (grid_[p - s] || !grid_[p + s]) continue;
        any_run = true;
        std::int32_t node = 0;
        for (int q = p; grid_[q] && node >= 0; q += s)
          node = ix_.child(static_cast<std::uint32_t>(node), grid_[q] - 1);
        if (node < 0 || !(ix_.nodes[node].mask & kTerminal)) return false;
      }
    }
    if (!any_run && tiles_.size() > 1) return false;
    // Connectivity: flood fill from the first tile.
    std::vector<int> stack{tiles_[0]};
    std::vector<bool> seen(kCells, false);
    seen[tiles_[0]] = true;
    std::size_t count = 0;
    while (!stack.empty()) {
      const int p = stack.back();
      stack.pop_back();
      ++count;
      for (int q : {p - 1, p + 1, p - kG, p + kG}) {
        if (grid_[q] && !seen[q]) {
          seen[q] = true;
          stack.push_back(q);
        }
      }
    }
    return count == tiles_.size() && any_run;
  }

  // --- candidate generation

  // Every word made of rack letters plus exactly one letter of `slot_mask` (the wildcard, which
  // is a slot's tile): one candidate per (word, wildcard position). `left`, `vowels`: rack
  // letters and vowels not used on the path; `used`: the rack letters used on it.
  void walk_slots(std::vector<Cand>& out, std::uint32_t node, int depth, int wild,
                  std::uint32_t slot_mask, int left, int vowels, std::uint32_t used) {
    const SolverIndex::Node n = ix_.nodes[node];
    if ((n.mask & kTerminal) && wild >= 0 && depth >= 2) {
      const auto w = static_cast<std::uint32_t>(ix_.word_at[node]);
      out.push_back({ix_.weight_of_word[w] - ix_.weight[path_[wild]] - leave(left, vowels), w,
                     kSlot, 0, static_cast<std::uint8_t>(wild), 0, used});
    }
    if (depth >= kMaxSide) return;
    for (std::uint32_t m = n.mask & (rack_mask_ | (wild < 0 ? slot_mask : 0)); m; m &= m - 1) {
      const std::uint32_t bit = m & -m;
      const std::uint32_t child = n.first + bits(n.mask & (bit - 1));
      const int c = std::countr_zero(m);
      path_[depth] = static_cast<std::uint8_t>(c);
      if (rack_[c]) {
        if (--rack_[c] == 0) rack_mask_ &= ~bit;
        const int v = (kVowels >> c) & 1;
        walk_slots(out, child, depth + 1, wild, slot_mask, left - 1, vowels - v, used | bit);
        if (rack_[c]++ == 0) rack_mask_ |= bit;
      }
      if (wild < 0 && (slot_mask & bit))
        walk_slots(out, child, depth + 1, depth, slot_mask, left, vowels, used);
    }
  }

  // Every word made of rack letters only (arguments as for walk_slots).
  void walk_first(std::vector<Cand>& out, std::uint32_t node, int depth, int left, int vowels,
                  std::uint32_t used) {
    const SolverIndex::Node n = ix_.nodes[node];
    if ((n.mask & kTerminal) && depth >= 2) {
      const auto w = static_cast<std::uint32_t>(ix_.word_at[node]);
      out.push_back({ix_.weight_of_word[w] - leave(left, vowels), w, kFirst, 0, 0, 0, used});
    }
    if (depth >= kMaxSide) return;
    for (std::uint32_t m = n.mask & rack_mask_; m; m &= m - 1) {
      const std::uint32_t bit = m & -m;
      const std::uint32_t child = n.first + bits(n.mask & (bit - 1));
      const int c = std::countr_zero(m);
      if (--rack_[c] == 0) rack_mask_ &= ~bit;
      const int v = (kVowels >> c) & 1;
      walk_first(out, child, depth + 1, left - 1, vowels - v, used | bit);
      if (rack_[c]++ == 0) rack_mask_ |= bit;
    }
  }

  // Is there a word holding letter h from the rack, made of rack letters and at most one other
  // letter? With wild_used already true: of rack letters only. (A slot move adds a word through
  // one tile; only an extension, adding h to a run of 2 or more, could do without, and for the
  // letters this is asked about (in no 2-letter word) that is too rare to keep the search for.)
  bool placeable(std::uint32_t node, int depth, bool wild_used, bool has_h, int h) {
    const SolverIndex::Node n = ix_.nodes[node];
    if ((n.mask & kTerminal) && has_h && depth >= 2) return true;
    if (depth >= kMaxSide) return false;
    std::uint32_t m = n.mask & (wild_used ? rack_mask_ : kAllLetters);
    while (m) {
      const int c = std::countr_zero(m);
      const std::uint32_t bit = 1u << c;
      m &= m - 1;
      const std::uint32_t ch = n.first + bits(n.mask & (bit - 1));
      if (rack_[c]) {
        if (--rack_[c] == 0) rack_mask_ &= ~bit;
        const bool ok = placeable(ch, depth + 1, wild_used, has_h || c == h, h);
        if (rack_[c]++ == 0) rack_mask_ |= bit;
        if (ok) return true;
      }
      if (!wild_used && placeable(ch, depth + 1, true, has_h, h)) return true;
    }
    return false;
  }

  bool hopeless() {
    std::uint32_t hard = rack_mask() & ix_.hard;
    if (!hard) return false;
    std::uint64_t key = 0;
    for (int c = 0; c < 26; ++c)
      if (rack_[c]) key += mix64(static_cast<std::uint64_t>(c) << 8 | rack_[c]);
    while (hard) {
      const int h = std::countr_zero(hard);
      hard &= hard - 1;
      const std::uint64_t k = key ^ mix64(static_cast<std::uint64_t>(h) << 40);
      Memo& m = memo_[k & (kMemoSize - 1)];
      if (m.key != k) {
        rack_mask_ = rack_mask();
        m = {k, placeable(0, 0, false, false, h)};
      }
      if (!m.placeable) return true;
    }
    return false;
  }

  std::uint32_t rack_mask() const {
    std::uint32_t m = 0;
    for (int c = 0; c < 26; ++c)
      if (rack_[c]) m |= 1u << c;
    return m;
  }

  // The penalty of the rack a move leaves (`left` letters, `vowels` of them vowels): more than
  // two consonants per vowel (plus two), or more vowels than consonants (plus one).
  static int leave(int left, int vowels) {
    const int v = vowels, c = left - vowels;
    return kLeaveWeight * (std::max(0, c - 2 * v - 2) + std::max(0, v - c - 1));
  }

  void generate(Level& lv) {
    lv.cands.clear();
    rack_mask_ = rack_mask();
    int rack_v = 0;
    for (int c = 0; c < 26; ++c)
      if ((kVowels >> c) & 1) rack_v += rack_[c];
    if (tiles_.empty()) {
      walk_first(lv.cands, 0, 0, rack_n_, rack_v, 0);
    } else {
      std::uint32_t slot_mask = 0;
      for (auto& v : lv.slots) v.clear();
      for (int p : tiles_) {
        for (int d = 0; d < 2; ++d) {
          if (grid_[p - kStep[d]] || grid_[p + kStep[d]]) continue;
          const int c = grid_[p] - 1;
          lv.slots[c].push_back({p, d});
          slot_mask |= 1u << c;
        }
      }
      if (slot_mask) walk_slots(lv.cands, 0, 0, -1, slot_mask, rack_n_, rack_v, 0);
      // Extensions of the runs on the board.
      for (int p : tiles_) {
        for (int d = 0; d < 2; ++d) {
          const int s = kStep[d];
          if (grid_[p - s] || !grid_[p + s]) continue;
          std::int32_t node = 0;
          int len = 0;
          for (int q = p; grid_[q] && node >= 0; q += s, ++len)
            node = ix_.child(static_cast<std::uint32_t>(node), grid_[q] - 1);
          if (node < 0 || ix_.word_at[node] < 0) continue;
          const auto u = static_cast<std::uint32_t>(ix_.word_at[node]);
          const int wu = ix_.weight_of_word[u];
          for (std::uint32_t e = ix_.ext_start[u]; e < ix_.ext_start[u + 1]; ++e) {
            if (ix_.ext_mask[e] & ~rack_mask_) continue;
            const SolverIndex::Ext& x = ix_.ext[e];
            if (x.added > rack_n_) break;
            bool ok = true;
            for (int i = 1; i < x.added && ok; ++i) {  // a letter added twice needs two tiles
              int copies = 1;
              for (int j = 0; j < i; ++j) copies += x.letters[j] == x.letters[i];
              ok = copies <= rack_[x.letters[i]];
            }
            if (!ok) continue;
            int vowels = 0;
            for (int i = 0; i < x.added; ++i) vowels += (kVowels >> x.letters[i]) & 1;
            lv.cands.push_back(
                {ix_.weight_of_word[x.word] - wu - leave(rack_n_ - x.added, rack_v - vowels),
                 x.word, kExtend, static_cast<std::uint8_t>(d), static_cast<std::uint8_t>(len),
                 p - static_cast<int>(x.offset) * s, x.mask});
          }
        }
      }
    }
    lv.sorted = 0;
    // The rack letter that the fewest candidates use goes first: every tile must be placed, so
    // the hardest one decides whether the node leads anywhere.
    if (lv.cands.empty()) return;
    std::array<int, 26> count{};
    for (const Cand& c : lv.cands)
      for (std::uint32_t m = c.used; m; m &= m - 1) ++count[std::countr_zero(m)];
    int crit = -1;
    for (int c = 0; c < 26; ++c)
      if (count[c] > 0 && (crit < 0 || count[c] < count[crit])) crit = c;
    for (Cand& c : lv.cands)
      if (c.used >> crit & 1) c.score += kCriticalBonus;
  }

  // Candidates are sorted lazily, a growing chunk at a time (most nodes look at few).
  static bool better(const Cand& a, const Cand& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.word != b.word) return a.word < b.word;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.at != b.at) return a.at < b.at;
    if (a.dir != b.dir) return a.dir < b.dir;
    return a.pos < b.pos;
  }
  static void sort_upto(Level& lv, std::size_t i) {
    if (i < lv.sorted) return;
    const std::size_t next = std::min(lv.cands.size(), std::max<std::size_t>(2 * lv.sorted, 16));
    std::partial_sort(lv.cands.begin() + static_cast<std::ptrdiff_t>(lv.sorted),
                      lv.cands.begin() + static_cast<std::ptrdiff_t>(next), lv.cands.end(), better);
    lv.sorted = next;
  }

  // What trying the candidate of rank `rank` (0: the best) at a node costs of the discrepancy
  // budget: two near-equal moves per unit.
  static int rank_cost(int rank) { return (rank + 1) / 2; }

  TtEntry& tt(std::uint64_t key) { return tt_[key & (kTtSize - 1)]; }

  // Tries the move (w from start in direction d); true when it leads to a full board (which is
  // then left in place).
  bool child(const std::uint8_t* w, int len, int start, int d, int& rank, int budget, int depth) {
    const int cost = rank_cost(rank);
    if (cost > budget) {
      cut_ = true;
      return false;
    }
    ++rank;
    const Undo u = mark();
    lay(w, len, start, d);
    if (rack_n_ == 0) return true;
    if (!hopeless() && dfs(budget - cost, depth + 1)) return true;
    undo(u);
    return false;
  }

  bool dfs(int budget, int depth) {
    if (++nodes_ > limit_) {
      out_ = true;
      return false;
    }
    TtEntry& e = tt(hash_);
    if (e.generation == generation_ && e.key == hash_ && e.budget >= budget) return false;
    Level& lv = levels_[depth];
    generate(lv);
    int rank = 0;
    for (std::size_t i = 0; i < lv.cands.size(); ++i) {
      sort_upto(lv, i);
      const Cand cand = lv.cands[i];
      const std::uint8_t* w = ix_.word(cand.word);
      const int len = ix_.len(cand.word);
      switch (cand.kind) {
        case kFirst:
          if (child(w, len, kCenter * kG + kCenter - len / 2, 0, rank, budget, depth)) return true;
          break;
        case kSlot:
          for (const Slot& s : lv.slots[w[cand.at]]) {
            const int start = s.pos - cand.at * kStep[s.dir];
            if (fits(w, len, start, s.dir, 1) && child(w, len, start, s.dir, rank, budget, depth))
              return true;
            if (out_ || rank_cost(rank) > budget) break;
          }
          break;
        case kExtend:
          if (fits(w, len, cand.pos, cand.dir, cand.at) &&
              child(w, len, cand.pos, cand.dir, rank, budget, depth))
            return true;
          break;
      }
      if (out_) return false;
      if (rank_cost(rank) > budget) {
        cut_ = true;
        break;
      }
    }
    TtEntry& f = tt(hash_);
    f = {hash_, generation_, budget};
    return false;
  }

  const SolverIndex& ix_;
  std::array<std::uint8_t, kCells> grid_{};  // 0: empty, else letter + 1
  std::array<int, 26> rack_{};
  int rack_n_ = 0;
  std::uint32_t rack_mask_ = 0;  // kept in step with rack_ during trie walks
  std::vector<int> tiles_;       // positions of the tiles on the board
  std::array<int, 2> lo_{INT_MAX, INT_MAX}, hi_{INT_MIN, INT_MIN};  // bounding box
  std::uint64_t hash_ = 0;
  std::array<std::uint8_t, kMaxSide + 1> path_{};
  std::vector<Level> levels_;
  std::vector<TtEntry> tt_;
  std::vector<Memo> memo_ = std::vector<Memo>(kMemoSize);
  std::uint32_t generation_ = 0;
  long nodes_ = 0, limit_ = 0;
  bool out_ = false, cut_ = false;
};

// ---------------------------------------------------------------------------------------------

namespace {

bool letters_ok(std::string_view tiles) {
  return std::all_of(tiles.begin(), tiles.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

}  // namespace

Solver::Solver(const Dictionary& dict) : Solver(make_solver_index(dict)) {}
Solver::Solver(std::shared_ptr<const SolverIndex> index)
    : index_(std::move(index)), search_(std::make_unique<Search>(*index_)) {}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

std::optional<Board> Solver::solve(std::string_view tiles, const SolveLimits& limits) {
  stats_ = {};
  if (tiles.size() < 2 || !letters_ok(tiles)) return std::nullopt;
  Search& s = *search_;
  const long before = s.nodes();
  s.reset(tiles);
  const bool ok = s.every_letter_fits() && s.run(limits.max_nodes);
  stats_.nodes = s.nodes() - before;
  if (!ok) return std::nullopt;
  return s.board();
}

std::optional<Board> Solver::extend(const Board& previous, std::string_view tiles,
                                    const SolveLimits& limits) {
  stats_ = {};
  if (tiles.size() < 2 || !letters_ok(tiles)) return std::nullopt;
  Search& s = *search_;
  const long before = s.nodes();
  const auto spent = [&] { return s.nodes() - before; };
  s.reset(tiles);
  if (!s.every_letter_fits()) return std::nullopt;
  if (s.load(previous, tiles)) {
    stats_.extended = true;
    if (s.rack_size() == 0 || s.run(limits.max_nodes / 4)) {
      stats_.nodes = spent();
      return s.board();
    }
    // Take off one leaf word at a time.
    const auto leaves = s.leaves();
    const long share = leaves.empty() ? 0 : limits.max_nodes / 4 / static_cast<long>(leaves.size());
    for (const auto& leaf : leaves) {
      if (spent() >= limits.max_nodes / 2) break;
      if (!s.load(previous, tiles)) break;
      s.remove(leaf);
      stats_.ripped = 1;
      if (s.run(std::max(share, 50L))) {
        stats_.nodes = spent();
        return s.board();
      }
    }
    stats_.extended = false;
    stats_.ripped = 0;
  }
  s.reset(tiles);
  const bool ok = s.run(limits.max_nodes - spent());
  stats_.nodes = spent();
  if (!ok) return std::nullopt;
  return s.board();
}

}  // namespace arbiter::speed_scrabble
