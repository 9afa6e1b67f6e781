// Dominosa's puzzle model and formats.
#include "games/dominosa/puzzle.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace arbiter::dominosa {

namespace {

constexpr std::string_view kLevelNames[] = {"trivial", "basic", "hard", "extreme", "ambiguous"};

// The `at`-th non-space token start in text, for error messages.
std::string where(std::size_t i) {
  return fmt::format("at character {}", i + 1);
}

}  // namespace

std::string_view to_string(Level level) {
  return kLevelNames[static_cast<int>(level)];
}

std::optional<Level> level_from_string(std::string_view text) {
  for (int i = 0; i < 5; ++i)
    if (kLevelNames[i] == text) return static_cast<Level>(i);
  return std::nullopt;
}

Expected<Puzzle> check_puzzle(Puzzle p) {
  if (p.n < 1 || p.n > kMaxN) return fail(fmt::format("n must be 1 to {}, got {}", kMaxN, p.n));
  if (static_cast<int>(p.grid.size()) != p.cells())
    return fail(fmt::format("a puzzle with n = {} has {} x {} = {} cells, got {}", p.n, p.rows(),
                            p.cols(), p.cells(), p.grid.size()));
  std::vector<int> seen(p.n + 1, 0);
  for (int i = 0; i < p.cells(); ++i) {
    const int v = p.grid[i];
    if (v < 0 || v > p.n)
      return fail(fmt::format("the value {} at row {}, column {} is outside 0..{}", v, i / p.cols(),
                              i % p.cols(), p.n));
    ++seen[v];
  }
  for (int v = 0; v <= p.n; ++v)
    if (seen[v] != p.n + 2)
      return fail(fmt::format("the value {} occurs {} times; each value occurs n+2 = {} times", v,
                              seen[v], p.n + 2));
  return p;
}

std::string solution_problem(const Puzzle& p, std::string_view s) {
  if (static_cast<int>(s.size()) != p.cells())
    return fmt::format("a solution has {} letters (one per cell), got {}", p.cells(), s.size());
  const int w = p.cols(), h = p.rows();
  std::vector<char> used(domino_count(p.n), 0);
  for (int i = 0; i < p.cells(); ++i) {
    const int r = i / w, c = i % w;
    int partner = -1;
    char back = 0;
    switch (s[i]) {
      case 'L':
        if (c + 1 < w) partner = i + 1, back = 'R';
        break;
      case 'R':
        if (c > 0) partner = i - 1, back = 'L';
        break;
      case 'T':
        if (r + 1 < h) partner = i + w, back = 'B';
        break;
      case 'B':
        if (r > 0) partner = i - w, back = 'T';
        break;
      default:
        return fmt::format("letter {} is '{}' (only L, R, T, B)", i + 1,
                           std::isprint(static_cast<unsigned char>(s[i])) ? s[i] : '?');
    }
    if (partner < 0) return fmt::format("the cell at row {}, column {} points off the grid", r, c);
    if (s[partner] != back)
      return fmt::format("the cell at row {}, column {} has no partner", r, c);
    if (s[i] == 'L' || s[i] == 'T') {
      const int d = domino_index(p.grid[i], p.grid[partner], p.n);
      if (used[d])
        return fmt::format("the domino {}-{} is used twice", std::min(p.grid[i], p.grid[partner]),
                           std::max(p.grid[i], p.grid[partner]));
      used[d] = 1;
    }
  }
  return {};
}

Expected<Puzzle> parse_game_id(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail("a game ID reads <n>:<values>, e.g. 1:001110 (no ':' found)");
  std::string_view params = text.substr(0, colon);
  const std::string_view desc = text.substr(colon + 1);
  Puzzle p;
  std::size_t i = 0;
  long n = 0;
  while (i < params.size() && std::isdigit(static_cast<unsigned char>(params[i]))) {
    n = n * 10 + (params[i] - '0');
    if (n > kMaxN) return fail(fmt::format("n must be 1 to {}", kMaxN));
    ++i;
  }
  // What was given is quoted as JSON: one line, whatever bytes it holds.
  if (i == 0)
    return fail(fmt::format("a game ID starts with n, got {}", excerpt(Json(std::string(params)))));
  if (i < params.size()) {
    if (params[i] != 'd' || i + 2 != params.size() ||
        std::string_view("tbhea").find(params[i + 1]) == std::string_view::npos)
      return fail(fmt::format("the parameters {} are not <n> or <n>d<t|b|h|e|a>",
                              excerpt(Json(std::string(params)))));
  }
  p.n = static_cast<int>(n);
  for (std::size_t k = 0; k < desc.size();) {
    const char ch = desc[k];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      p.grid.push_back(ch - '0');
      ++k;
    } else if (ch == '[') {
      const auto close = desc.find(']', k);
      if (close == std::string_view::npos) return fail("unclosed '[' " + where(colon + 1 + k));
      long v = 0;
      if (close == k + 1) return fail("empty '[]' " + where(colon + 1 + k));
      for (std::size_t j = k + 1; j < close; ++j) {
        if (!std::isdigit(static_cast<unsigned char>(desc[j])))
          return fail(fmt::format("[{}] is not a number",
                                  excerpt(Json(std::string(desc.substr(k + 1, close - k - 1))))));
        v = v * 10 + (desc[j] - '0');
        if (v > kMaxN) return fail(fmt::format("the value [{}...] is too large", v));
      }
      p.grid.push_back(static_cast<int>(v));
      k = close + 1;
    } else {
      return fail(fmt::format("unexpected '{}' in the game ID {}",
                              std::isprint(static_cast<unsigned char>(ch)) ? ch : '?',
                              where(colon + 1 + k)));
    }
    if (p.grid.size() > static_cast<std::size_t>((kMaxN + 1) * (kMaxN + 2)))
      return fail("too many values");
  }
  return check_puzzle(std::move(p));
}

std::string game_id(const Puzzle& p) {
  std::string out = fmt::format("{}:", p.n);
  for (int v : p.grid)
    out += v < 10 ? std::string(1, static_cast<char>('0' + v)) : fmt::format("[{}]", v);
  return out;
}

Expected<Puzzle> parse_text(std::string_view text) {
  std::vector<std::vector<int>> rows;
  std::size_t line_no = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    ++line_no;
    std::vector<int> row;
    for (std::size_t k = 0; k < line.size();) {
      const char ch = line[k];
      if (ch == ' ' || ch == '\t' || ch == '\r' || ch == ',') {
        ++k;
        continue;
      }
      if (!std::isdigit(static_cast<unsigned char>(ch)))
        return fail(fmt::format("line {}: unexpected '{}' (numbers separated by spaces)", line_no,
                                std::isprint(static_cast<unsigned char>(ch)) ? ch : '?'));
      long v = 0;
      while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) {
        v = v * 10 + (line[k++] - '0');
        if (v > kMaxN) return fail(fmt::format("line {}: a value above {}", line_no, kMaxN));
      }
      row.push_back(static_cast<int>(v));
    }
    if (!row.empty()) rows.push_back(std::move(row));
    if (rows.size() > kMaxN + 1) return fail("too many rows");
    start = end + 1;
  }
  if (rows.empty()) return fail("no numbers: a text puzzle is n+1 rows of n+2 numbers");
  const int n = static_cast<int>(rows.size()) - 1;
  Puzzle p;
  p.n = n;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (static_cast<int>(rows[r].size()) != n + 2)
      return fail(fmt::format("row {} has {} numbers; with {} rows each row has {}", r + 1,
                              rows[r].size(), rows.size(), n + 2));
    p.grid.insert(p.grid.end(), rows[r].begin(), rows[r].end());
  }
  return check_puzzle(std::move(p));
}

std::string to_text(const Puzzle& p) {
  const int width = p.n >= 100 ? 3 : p.n >= 10 ? 2 : 1;
  std::string out;
  for (int r = 0; r < p.rows(); ++r) {
    for (int c = 0; c < p.cols(); ++c) {
      if (c) out += ' ';
      out += fmt::format("{:>{}}", p.at(r, c), width);
    }
    out += '\n';
  }
  return out;
}

Expected<Puzzle> parse_json_puzzle(const Json& j) {
  if (auto ok = only_keys(j, {"n", "grid"}, "Dominosa puzzle"); !ok)
    return std::unexpected(ok.error());
  auto n = int_field(j, "n", 1, kMaxN, "Dominosa puzzle");
  if (!n) return std::unexpected(n.error());
  auto grid = member(j, "grid", "Dominosa puzzle");
  if (!grid) return std::unexpected(grid.error());
  const Json& rows = **grid;
  if (!rows.is_array() || static_cast<int>(rows.size()) != *n + 1)
    return fail(fmt::format("Dominosa puzzle: grid must be a list of n+1 = {} rows", *n + 1));
  Puzzle p;
  p.n = *n;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].is_array() || static_cast<int>(rows[r].size()) != *n + 2)
      return fail(fmt::format("Dominosa puzzle: grid row {} must be a list of n+2 = {} numbers", r,
                              *n + 2));
    for (const Json& v : rows[r]) {
      auto value = to_int(v, fmt::format("Dominosa puzzle: grid row {}", r));
      if (!value) return std::unexpected(value.error());
      if (*value < 0 || *value > *n)
        return fail(
            fmt::format("Dominosa puzzle: grid row {}: {} is outside 0..{}", r, *value, *n));
      p.grid.push_back(static_cast<int>(*value));
    }
  }
  return check_puzzle(std::move(p));
}

Json to_json(const Puzzle& p) {
  Json grid = Json::array();
  for (int r = 0; r < p.rows(); ++r) {
    Json row = Json::array();
    for (int c = 0; c < p.cols(); ++c) row.push_back(p.at(r, c));
    grid.push_back(std::move(row));
  }
  return {{"n", p.n}, {"grid", std::move(grid)}};
}

Expected<Puzzle> parse_puzzle(std::string_view text) {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (first == text.size()) return fail("no puzzle: give a game ID, a text grid or JSON");
  if (text[first] == '{') {
    auto j = parse_json(text);
    if (!j) return std::unexpected(j.error());
    return parse_json_puzzle(*j);
  }
  if (text.find(':') != std::string_view::npos) return parse_game_id(text);
  return parse_text(text);
}

}  // namespace arbiter::dominosa
