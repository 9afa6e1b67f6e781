// Speed Scrabble's dictionaries and the board validator.
#include "games/speed_scrabble/words.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "core/file.h"
#include "core/rng.h"

namespace arbiter::speed_scrabble {
namespace {

constexpr int kPackedLetters = 12;  // 5 bits a letter in 60 bits

// The word packed 5 bits a letter ('A' = 1), or 0 when it is too long to pack.
std::uint64_t pack(std::string_view word) {
  if (word.size() > kPackedLetters) return 0;
  std::uint64_t key = 0;
  for (char c : word) key = key << 5 | static_cast<std::uint64_t>(c - 'A' + 1);
  return key;
}


bool is_word_text(std::string_view w) {
  if (w.size() < 2) return false;
  return std::all_of(w.begin(), w.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

}  // namespace

LetterCounts count_letters(std::string_view letters) {
  LetterCounts counts{};
  for (char c : letters) ++counts[static_cast<unsigned char>(c - 'A')];
  return counts;
}

// Short words in an open-addressing table of packed keys (linear probing, at most half full);
// long ones in a plain set.
struct Dictionary::Impl {
  std::string name;
  std::vector<std::string> words;
  std::size_t skipped = 0;
  std::vector<std::uint64_t> table;  // 0 = empty
  std::uint64_t mask = 0;
  std::unordered_set<std::string> long_words;

  void add_all(std::vector<std::string> raw) {
    for (std::string& w : raw) {
      if (!is_word_text(w)) {
        ++skipped;
        continue;
      }
      for (char& c : w)
        if (c >= 'a') c = static_cast<char>(c - 'a' + 'A');
      words.push_back(std::move(w));
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::size_t capacity = 16;
    while (capacity < 2 * words.size()) capacity *= 2;
    table.assign(capacity, 0);
    mask = capacity - 1;
    for (const std::string& w : words) {
      const std::uint64_t key = pack(w);
      if (key == 0) {
        long_words.insert(w);
        continue;
      }
      std::size_t i = mix64(key) & mask;
      while (table[i] != 0 && table[i] != key) i = (i + 1) & mask;
      table[i] = key;
    }
  }

  bool contains(std::string_view w) const {
    if (w.size() < 2) return false;
    for (char c : w)
      if (c < 'A' || c > 'Z') return false;
    const std::uint64_t key = pack(w);
    if (key == 0) return long_words.contains(std::string(w));
    for (std::size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
      if (table[i] == key) return true;
      if (table[i] == 0) return false;
    }
  }
};

Dictionary::Dictionary(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Dictionary::Dictionary(Dictionary&&) noexcept = default;
Dictionary& Dictionary::operator=(Dictionary&&) noexcept = default;
Dictionary::~Dictionary() = default;

namespace {

// A word list larger than this is refused (scowl-95 in all is about 8 MB).
constexpr std::size_t kMaxWordList = std::size_t{256} << 20;

Expected<std::vector<std::string>> read_lines(const std::filesystem::path& path) {
  auto text = read_file(path, kMaxWordList);
  if (!text) return fail("the word list " + text.error().message);
  std::vector<std::string> lines;
  std::string_view rest = *text;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    std::string line(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace

Expected<Dictionary> Dictionary::scowl(int size, const std::filesystem::path& dir) {
  static constexpr int kSizes[] = {10, 20, 35, 40, 50, 55, 60, 70, 80, 95};
  if (std::find(std::begin(kSizes), std::end(kSizes), size) == std::end(kSizes))
    return fail(fmt::format("scowl has no size {} (10, 20, 35, 40, 50, 55, 60, 70, 80, 95)", size));
  std::vector<std::string> raw;
  int files = 0;
  for (int s : kSizes) {
    if (s > size) break;
    for (const char* variant : {"english", "american", "british"}) {
      const auto path = dir / fmt::format("{}-words.{}", variant, s);
      if (!std::filesystem::exists(path)) continue;
      auto lines = read_lines(path);
      if (!lines) return std::unexpected(lines.error());
      ++files;
      std::move(lines->begin(), lines->end(), std::back_inserter(raw));
    }
  }
  if (files == 0)
    return fail(fmt::format(
        "no scowl word lists in {} (install the Debian package scowl, or give a word-list file)",
        dir.string()));
  auto impl = std::make_unique<Impl>();
  impl->name = fmt::format("scowl-{}", size);
  impl->add_all(std::move(raw));
  impl->skipped = 0;  // scowl's non-a-z entries (accents, apostrophes) are not the user's errors
  return Dictionary(std::move(impl));
}

Expected<Dictionary> Dictionary::file(const std::filesystem::path& path) {
  auto lines = read_lines(path);
  if (!lines) return std::unexpected(lines.error());
  auto impl = std::make_unique<Impl>();
  impl->name = path.filename().string();
  impl->add_all(std::move(*lines));
  if (impl->words.empty())
    return fail(
        fmt::format("the word list {} has no words of 2 or more letters a-z", path.string()));
  return Dictionary(std::move(impl));
}

Dictionary Dictionary::of(const std::vector<std::string>& words, std::string name) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->add_all(words);
  return Dictionary(std::move(impl));
}

bool Dictionary::contains(std::string_view upper_word) const {
  return impl_->contains(upper_word);
}
const std::vector<std::string>& Dictionary::words() const {
  return impl_->words;
}
const std::string& Dictionary::name() const {
  return impl_->name;
}
std::size_t Dictionary::skipped() const {
  return impl_->skipped;
}

// ---------------------------------------------------------------------------------------------
// Validation

namespace {

std::string shape_problem(const Board& board) {
  if (board.empty()) return "shape: no rows";
  if (board.size() > kMaxSide)
    return fmt::format("shape: {} rows (at most {})", board.size(), kMaxSide);
  const std::size_t width = board[0].size();
  if (width == 0) return "shape: empty rows";
  if (width > kMaxSide) return fmt::format("shape: {} columns (at most {})", width, kMaxSide);
  for (std::size_t r = 0; r < board.size(); ++r) {
    if (board[r].size() != width)
      return fmt::format("shape: row {} has {} cells, row 0 has {}", r, board[r].size(), width);
    for (char c : board[r])
      if (c != '.' && (c < 'A' || c > 'Z'))
        return fmt::format("shape: row {} holds '{}' (only A-Z and '.')", r,
                           static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  }
  return {};
}

}  // namespace

std::string board_problem(const Board& board, std::string_view dealt, const Dictionary& dict) {
  if (std::string shape = shape_problem(board); !shape.empty()) return shape;
  const int rows = static_cast<int>(board.size());
  const int cols = static_cast<int>(board[0].size());

  LetterCounts on_board{};
  int letters = 0;
  int first = -1;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const char ch = board[r][c];
      if (ch == '.') continue;
      if (first < 0) first = r * cols + c;
      ++letters;
      ++on_board[ch - 'A'];
    }
  const LetterCounts want = count_letters(dealt);
  for (int i = 0; i < 26; ++i)
    if (on_board[i] < want[i])
      return fmt::format("letters: missing {}", static_cast<char>('A' + i));
  for (int i = 0; i < 26; ++i)
    if (on_board[i] > want[i]) return fmt::format("letters: extra {}", static_cast<char>('A' + i));
  if (letters == 0) return "letters: the board is empty";

  // Flood fill from the first letter over 4-neighbours.
  std::array<std::uint8_t, kMaxSide * kMaxSide> seen{};
  std::array<std::int16_t, kMaxSide * kMaxSide> stack;
  int top = 0, reached = 0;
  stack[top++] = static_cast<std::int16_t>(first);
  seen[first] = 1;
  while (top > 0) {
    const int i = stack[--top];
    ++reached;
    const int r = i / cols, c = i % cols;
    const auto visit = [&](int rr, int cc) {
      const int j = rr * cols + cc;
      if (!seen[j] && board[rr][cc] != '.') {
        seen[j] = 1;
        stack[top++] = static_cast<std::int16_t>(j);
      }
    };
    if (r > 0) visit(r - 1, c);
    if (r + 1 < rows) visit(r + 1, c);
    if (c > 0) visit(r, c - 1);
    if (c + 1 < cols) visit(r, c + 1);
  }
  if (reached != letters)
    return fmt::format("disconnected: {} of {} letters are not joined to the rest",
                       letters - reached, letters);

  int runs = 0;
  for (int r = 0; r < rows; ++r) {
    const std::string& row = board[r];
    for (int c = 0; c < cols;) {
      if (row[c] == '.') {
        ++c;
        continue;
      }
      int end = c;
      while (end < cols && row[end] != '.') ++end;
      if (end - c >= 2) {
        ++runs;
        const std::string_view word(row.data() + c, end - c);
        if (!dict.contains(word)) return fmt::format("word: not a word: {} (row {})", word, r);
      }
      c = end;
    }
  }
  char column[kMaxSide];
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows;) {
      if (board[r][c] == '.') {
        ++r;
        continue;
      }
      int n = 0;
      const int start = r;
      while (r < rows && board[r][c] != '.') column[n++] = board[r++][c];
      if (n >= 2) {
        ++runs;
        const std::string_view word(column, n);
        if (!dict.contains(word))
          return fmt::format("word: not a word: {} (column {}, from row {})", word, c, start);
      }
    }
  }
  if (letters >= 2 && runs == 0) return "word: no word on the board";
  return {};
}

Expected<Board> decode_board(const Json& j) {
  if (!j.is_array())
    return fail(fmt::format("a board must be an array of strings, got {}", excerpt(j)));
  Board board;
  for (const Json& row : j) {
    if (!row.is_string())
      return fail(fmt::format("a board row must be a string, got {}", excerpt(row)));
    board.push_back(row.get<std::string>());
  }
  if (std::string shape = shape_problem(board); !shape.empty()) return fail("board " + shape);
  return board;
}

Json encode_board(const Board& board) {
  Json j = Json::array();
  for (const std::string& row : board) j.push_back(row);
  return j;
}

}  // namespace arbiter::speed_scrabble
