// Speed Scrabble's letters, boards and dictionaries (docs/games/speed_scrabble.md §1): the
// vocabulary shared by the rules, the validator and the solver.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter::speed_scrabble {

inline constexpr int kMaxSide = 32;  // a board is at most 32 x 32 (§3)

// Letters are the upper-case ASCII 'A'..'Z'. Tiles: letters in ordinal order (tile 1 first).
using Tiles = std::string;

// Count of each letter 'A'..'Z' in `letters` (REQUIRES: only 'A'..'Z').
using LetterCounts = std::array<std::uint8_t, 26>;
LetterCounts count_letters(std::string_view letters);

// A board as on the wire: equal-length rows of 'A'..'Z' and '.' (empty), 1..32 rows of
// 1..32 columns.
using Board = std::vector<std::string>;

// A word list: upper-case words of 2 or more letters 'A'..'Z'. Membership is a hash lookup that
// does not allocate (words of up to 12 letters are packed into 64 bits).
class Dictionary {
 public:
  // Debian scowl's lists up to `size` (10..95; default 70): english-, american- and
  // british-words, lower-case a-z words of 2 or more letters, upper-cased. Named "scowl-SIZE".
  // `dir`: where scowl's lists are (tests may point elsewhere).
  static Expected<Dictionary> scowl(int size = 70,
                                    const std::filesystem::path& dir = "/usr/share/dict/scowl");
  // A user's word list, one word a line; words with anything but letters a-z/A-Z, or shorter
  // than 2, are skipped (counted in skipped()). Named by the file name.
  static Expected<Dictionary> file(const std::filesystem::path& path);
  // From words in memory (tests, benchmarks); the same filtering.
  static Dictionary of(const std::vector<std::string>& words, std::string name = "custom");

  bool contains(std::string_view upper_word) const;
  const std::vector<std::string>& words() const;  // sorted, unique, upper-case
  const std::string& name() const;
  std::size_t skipped() const;

  Dictionary(Dictionary&&) noexcept;
  Dictionary& operator=(Dictionary&&) noexcept;
  ~Dictionary();

 private:
  struct Impl;
  explicit Dictionary(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Why `board` is not a valid k-board for `dealt` (exactly these letters, each once, as a
// multiset), or an empty string when it is. Checks, in this order: shape (1..32 rows of equal
// length 1..32, only 'A'..'Z' and '.'), letters (the multiset of letters on the board equals
// `dealt`: "missing E", "extra Q"), connectivity (4-connected), words (every maximal horizontal
// and vertical run of 2+ letters is in the dictionary: "not a word: QXZ"), and, with 2 or more
// tiles, at least one run. Reasons are short, one line, and start with the failed check:
// "shape: ...", "letters: ...", "disconnected: ...", "word: ...".
std::string board_problem(const Board& board, std::string_view dealt, const Dictionary& dict);

// The board from its wire form (an array of strings); shape problems are errors.
Expected<Board> decode_board(const Json& j);
Json encode_board(const Board& board);

}  // namespace arbiter::speed_scrabble
