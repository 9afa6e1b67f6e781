#include "core/printable.h"

#include <fmt/format.h>

namespace arbiter {

namespace {

// The length of a well-formed UTF-8 sequence starting at text[i] (1 for ASCII), or 0.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t n = c < 0x80           ? 1
                  : (c >> 5) == 0x6  ? 2
                  : (c >> 4) == 0xe  ? 3
                  : (c >> 3) == 0x1e ? 4
                                     : 0;
  if (n > 1 && (i + n > text.size() || c == 0xc0 || c == 0xc1 || c > 0xf4)) n = 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) n = 0;
  return n;
}

std::string printable(std::string_view text, bool keep_lines) {
  std::string line;
  line.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      line += keep_lines && c != '\r' ? static_cast<char>(c) : ' ';
      ++i;
      continue;
    }
    const std::size_t n = sequence_length(text, i);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
      line += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    line.append(text.substr(i, n));
    i += n;
  }
  return line;
}

}  // namespace

bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string printable_line(std::string_view text) {
  return printable(text, false);
}

std::string printable_text(std::string_view text) {
  return printable(text, true);
}

}  // namespace arbiter
