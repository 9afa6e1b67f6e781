#include "referee/game_log.h"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(GameLog, WritesOneCompactObjectPerLineAndKeepsACopy) {
  std::ostringstream out;
  GameLog log(&out, /*keep=*/true);
  log.write({{"type", "match"}, {"seed", 1}});
  log.write({{"type", "result"}, {"winners", {0}}});
  EXPECT_EQ(out.str(), "{\"seed\":1,\"type\":\"match\"}\n{\"type\":\"result\",\"winners\":[0]}\n");
  EXPECT_EQ(log.lines().size(), 2u);
  std::istringstream in(out.str());
  auto back = read_game_log(in);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, log.lines());
}

TEST(GameLog, RejectsWhatIsNotALog) {
  std::istringstream empty("");
  EXPECT_FALSE(read_game_log(empty));
  std::istringstream garbage("{\"type\":\"match\"}\nnot json\n");
  auto r = read_game_log(garbage);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos);
  std::istringstream untyped("[1,2]\n");
  EXPECT_FALSE(read_game_log(untyped));
}

TEST(GameLog, DifferencesIgnoreTimingOnly) {
  std::vector<Json> a = {{{"type", "call"}, {"seat", 0}, {"elapsed_us", 5}}};
  std::vector<Json> b = {{{"type", "call"}, {"seat", 0}, {"elapsed_us", 999}}};
  EXPECT_FALSE(first_difference(a, b));
  b[0]["seat"] = 1;
  auto d = first_difference(a, b);
  ASSERT_TRUE(d);
  EXPECT_NE(d->find("line 1"), std::string::npos);
  b = a;
  b.push_back({{"type", "result"}});
  EXPECT_TRUE(first_difference(a, b));
}

// An observer that asks for text gets each line as the log writes it, and one that asks for JSON
// gets the JSON, side by side on one log.
TEST(GameLog, ObserversGetTheLinesAsJsonOrAsTheLogsText) {
  struct Lines : MatchObserver {
    void on_line(const Json& line) override { json.push_back(line); }
    std::vector<Json> json;
  };
  struct Texts : MatchObserver {
    void on_line(const Json&) override { ADD_FAILURE() << "a text observer got JSON"; }
    bool wants_text() const override { return true; }
    void on_text(std::string_view line) override { text += std::string(line) + "\n"; }
    std::string text;
  };
  std::ostringstream out;
  GameLog log(&out);
  Lines lines;
  Texts texts;
  log.watch(lines);
  log.watch(texts);
  log.write(Json{{"type", "match"}, {"seed", 1}});
  log.write(Json{{"type", "call"}, {"args", {1, "é", nullptr}}});
  EXPECT_EQ(texts.text, out.str());
  ASSERT_EQ(lines.json.size(), 2u);
  EXPECT_EQ(lines.json[1]["args"][1], "é");
  // Without a stream or file of its own, the log still makes the text for the observer.
  GameLog bare(static_cast<std::ostream*>(nullptr));
  Texts only;
  bare.watch(only);
  bare.write(Json{{"type", "match"}});
  EXPECT_EQ(only.text, "{\"type\":\"match\"}\n");
}

}  // namespace
}  // namespace arbiter
