#include "remote/last_words.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace arbiter {

std::string telling_line(std::string_view tail) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= tail.size();) {
    const std::size_t nl = std::min(tail.find('\n', at), tail.size());
    std::string_view line = tail.substr(at, nl - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    lines.push_back(line);
    at = nl + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return {};
  const auto indented = [](std::string_view l) {
    return !l.empty() && (l[0] == ' ' || l[0] == '\t');
  };
  // The words runtimes put on the line that says what went wrong (Python's "ValueError: ...",
  // Node's "Error: ...", Java's "Exception in thread ...", Go's "panic: ...", Rust's "thread
  // 'main' panicked at ...:", C++'s "terminate called ..."), never on a stack frame (indented)
  // or a banner after it (Node's "Node.js v20").
  static constexpr std::string_view kTelling[] = {
      "Error", "Exception",          "error:", "panic", "terminate called", "Fatal",
      "fatal", "Segmentation fault", "Aborted"};
  const std::size_t oldest = lines.size() > 40 ? lines.size() - 40 : 0;
  for (std::size_t i = lines.size(); i-- > oldest;) {
    const std::string_view l = lines[i];
    if (indented(l)) continue;
    if (std::none_of(std::begin(kTelling), std::end(kTelling),
                     [&](std::string_view w) { return l.find(w) != std::string_view::npos; }))
      continue;
    std::string out(l);
    // Its message on the next line: Rust's "panicked at FILE:" then the message, C++'s what().
    if (i + 1 < lines.size() && !lines[i + 1].empty() &&
        (l.back() == ':' || lines[i + 1].find("what():") != std::string_view::npos)) {
      std::string_view next = lines[i + 1];
      while (!next.empty() && (next[0] == ' ' || next[0] == '\t')) next.remove_prefix(1);
      out += " ";
      out += next;
    }
    return out.substr(0, 200);
  }
  return std::string(lines.back().substr(0, 200));
}

}  // namespace arbiter
