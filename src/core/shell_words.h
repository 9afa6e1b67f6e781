// Command lines as a POSIX shell writes them, for program players given as one string
// ("cmd:python3 'my bot.py' --fast"): splitting into arguments, and quoting one argument so that
// splitting gives it back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter {

// Splits at unquoted blanks (space, tab). Within single quotes every character is literal;
// within double quotes a backslash escapes only \ " $ and `; outside quotes a backslash makes the
// next character literal. Quotes join with what touches them ("a"'b'c is one word, abc); ""
// is an empty word. No expansion of any kind ($, *, ~ stay as they are). Fails with one line for
// an unterminated quote or a trailing backslash.
Expected<std::vector<std::string>> split_shell_words(std::string_view text);

// `word` as split_shell_words reads it back: unchanged when it has no blank, quote or character a
// shell treats specially, else in single quotes (a ' inside as '\'').
std::string shell_word(std::string_view word);

// The words quoted and joined by spaces: split_shell_words(join_shell_words(w)) == w.
std::string join_shell_words(const std::vector<std::string>& words);

}  // namespace arbiter
