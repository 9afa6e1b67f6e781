// Splitting and quoting command lines (core/shell_words.h).
#include "core/shell_words.h"

#include <random>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

std::vector<std::string> split(std::string_view text) {
  auto words = split_shell_words(text);
  EXPECT_TRUE(words.has_value()) << text;
  return words.value_or(std::vector<std::string>{"(failed)"});
}

TEST(ShellWords, SplitsLikeAShellWithoutExpanding) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split("python3 bot.py --fast"), (V{"python3", "bot.py", "--fast"}));
  EXPECT_EQ(split("  python3\t  bot.py  "), (V{"python3", "bot.py"}));
  EXPECT_EQ(split("python3 \"my bot.py\""), (V{"python3", "my bot.py"}));
  EXPECT_EQ(split("python3 'my bot.py'"), (V{"python3", "my bot.py"}));
  EXPECT_EQ(split("python3 my\\ bot.py"), (V{"python3", "my bot.py"}));
  EXPECT_EQ(split("a\"b c\"'d e'f"), (V{"ab cd ef"}));
  EXPECT_EQ(split("echo '' \"\""), (V{"echo", "", ""}));
  EXPECT_EQ(split("x \"say \\\"hi\\\" \\n\""), (V{"x", "say \"hi\" \\n"}));
  EXPECT_EQ(split("x 'it''s' $HOME *"), (V{"x", "its", "$HOME", "*"}));
  EXPECT_EQ(split(""), V{});
}

TEST(ShellWords, RefusesUnterminatedQuotesAndATrailingBackslash) {
  for (std::string_view bad : {"python3 'bot.py", "python3 \"bot.py", "python3 bot.py\\",
                               "x \"a\\\""}) {
    auto words = split_shell_words(bad);
    ASSERT_FALSE(words.has_value()) << bad;
    EXPECT_EQ(words.error().message.find('\n'), std::string::npos);
  }
}

TEST(ShellWords, QuotingRoundTripsAnyWords) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab ' \"\\$`*\t~#x;&|()";
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::string> words(1 + rng() % 4);
    for (auto& w : words)
      for (unsigned k = rng() % 6; k > 0; --k) w += alphabet[rng() % alphabet.size()];
    EXPECT_EQ(split(join_shell_words(words)), words) << join_shell_words(words);
  }
  EXPECT_EQ(shell_word("bot.py"), "bot.py");
  EXPECT_EQ(shell_word("my bot.py"), "'my bot.py'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word(""), "''");
}

}  // namespace
}  // namespace arbiter
