#include "referee/game_log.h"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "referee/call_record.h"

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

// A call record's text is what dump() writes for the same record built as Json, with every
// optional field in or out, and the log passes it on as text or (kept, to observers) as Json.
TEST(GameLog, CallRecordTextIsTheDumpOfTheSameRecord) {
  const Json args = {{"map", Json::array()}, {"note", "a \"quote\"\n"}};
  const Json reply = Json::array({"pass", 3});
  const Ejection ejection{2, Why::foul, "take_turn", "bad-placement: tile\tnot \"in\" hand é"};
  for (int mask = 0; mask < 8; ++mask) {
    const bool clocked = (mask & 1) != 0, replied = (mask & 2) != 0, ejected = (mask & 4) != 0;
    CallRecord record(2, "take_turn", [&](std::string& out) { out += dump(args); });
    Json expected = {{"type", "call"}, {"seat", 2}, {"call", "take_turn"}, {"args", args}};
    if (clocked) {
      record.set_clock(std::chrono::milliseconds(1500));
      expected["clock_us"] = 1'500'000;
    }
    if (replied) {
      record.set_reply(dump(reply));
      expected["reply"] = reply;
    }
    expected["verdict"] = ejected ? "foul" : "ok";
    if (ejected) expected["detail"] = ejection.detail;
    expected["elapsed_us"] = 1234;
    const std::string text =
        std::move(record).text(ejected ? &ejection : nullptr, std::chrono::microseconds(1234));
    EXPECT_EQ(text, dump(expected)) << "mask " << mask;

    std::ostringstream out;
    GameLog log(&out, /*keep=*/true);
    log.write_text(text);
    EXPECT_EQ(out.str(), text + "\n");
    ASSERT_EQ(log.lines().size(), 1u);
    EXPECT_EQ(log.lines()[0], expected);
  }
}

}  // namespace
}  // namespace arbiter
