// One-line messages from libpqxx's several-line ones.
#include "tournament/postgres_text.h"

namespace arbiter::tournament {

// A libpqxx message is several lines (the error, DETAIL:, HINT:, the statement's text with a
// caret); an Error is one line, without the statement.
std::string one_line(std::string_view text) {
  constexpr std::size_t kMax = 500;
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (line.starts_with("ERROR:")) {
      line.remove_prefix(6);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    }
    const bool statement = line.starts_with("LINE ") || line.starts_with("QUERY:") ||
                           line.starts_with("CONTEXT:") ||
                           line.find_first_not_of('^') == std::string_view::npos;
    if (!line.empty() && !statement) {
      if (!out.empty()) out += "; ";
      for (const char ch : line)
        if (ch != ' ' || out.empty() || out.back() != ' ') out += ch;
    }
    start = end + 1;
  }
  if (out.size() > kMax) out = out.substr(0, kMax) + "...";
  return out.empty() ? std::string("unknown error") : out;
}

Error postgres_error(std::string_view what) {
  return Error{"postgresql: " + one_line(what)};
}

}  // namespace arbiter::tournament
