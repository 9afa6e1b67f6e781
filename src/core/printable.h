// Text from outside (a player's bytes, a stored row, a request path) made safe to print: on a
// terminal, in a log line or in an error message.
#pragma once

#include <string>
#include <string_view>

namespace arbiter {

// `text` as one printable line: line breaks and tabs become spaces, other control characters
// and bytes that are not UTF-8 become \xNN.
std::string printable_line(std::string_view text);
// The same, but keeping line breaks and tabs: text of several lines (a program's stderr).
std::string printable_text(std::string_view text);

// Whether `text` is well-formed UTF-8 (the same sequences the two above keep as they are).
bool is_utf8(std::string_view text);

}  // namespace arbiter
