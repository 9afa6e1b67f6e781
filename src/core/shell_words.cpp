// Shell-like splitting and quoting of command lines.
#include "core/shell_words.h"

#include <optional>

namespace arbiter {

Expected<std::vector<std::string>> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::optional<std::string> word;  // the word being read; none between words
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (word) words.push_back(std::move(*word));
      word.reset();
      continue;
    }
    if (!word) word.emplace();
    if (c == '\'') {
      const auto end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        return fail("the command has a ' that is never closed");
      *word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\\\"$`").find(text[j + 1]) != std::string_view::npos)
          ++j;
        *word += text[j];
      }
      if (j >= text.size()) return fail("the command has a \" that is never closed");
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) return fail("the command ends in a lone backslash");
      *word += text[++i];
    } else {
      *word += c;
    }
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

std::string shell_word(std::string_view word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`!*?;&|<>(){}[]#~") == std::string::npos)
    return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string join_shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_word(w);
  }
  return out;
}

}  // namespace arbiter
