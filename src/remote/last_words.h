// A program's last words: of what it wrote on stderr before it died, the line that says why.
#pragma once

#include <string>
#include <string_view>

namespace arbiter {

// Of the last lines a program wrote on stderr (`tail`), the one that says why it died: the last
// line naming an error as runtimes do (Python's "ValueError: ...", Node's "Error: ...", Java's
// "Exception in thread ...", Go's "panic: ...", Rust's "panicked at" with its message, C++'s
// "terminate called" with what()), skipping stack frames and banners such as Node's "Node.js
// v20" after them; else the last line. At most 200 bytes; empty for an empty tail.
std::string telling_line(std::string_view tail);

}  // namespace arbiter
