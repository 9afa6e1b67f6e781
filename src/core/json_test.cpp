#include "core/json.h"

#include <limits>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(Json, ParsesASequenceOfValues) {
  auto v = parse_json_values(" \"dag\"\n{\"a\": [1, 2, {\"b\": \"}\"}]}  [3]\n 4 true null ");
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_EQ(v->size(), 6u);
  EXPECT_EQ((*v)[0], "dag");
  EXPECT_EQ((*v)[1]["a"][2]["b"], "}");
  EXPECT_EQ((*v)[2], Json::array({3}));
  EXPECT_EQ((*v)[3], 4);
  EXPECT_EQ((*v)[4], true);
  EXPECT_TRUE((*v)[5].is_null());
}

TEST(Json, EscapedQuotesInsideStrings) {
  auto v = parse_json_values(R"({"k": "a\"]b"} "x\\")");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ((*v)[0]["k"], "a\"]b");
  EXPECT_EQ((*v)[1], "x\\");
}

TEST(Json, EmptyInputIsNoValues) {
  auto v = parse_json_values("  \n ");
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->empty());
}

TEST(Json, TruncatedAndMalformedInputAreErrors) {
  auto truncated = parse_json_values("[1, 2, {\"a\": 3}");
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
  auto bad = parse_json_values("[1, 2] {\"a\" 3}");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("JSON value 2"), std::string::npos);
  EXPECT_FALSE(parse_json_values("tru"));
  EXPECT_FALSE(parse_json_values("[1,]"));
}

TEST(Json, OneValueIsExactlyOneValue) {
  using namespace std::string_view_literals;
  EXPECT_EQ(parse_json(" \"pass\"\r\n").value_or(0), "pass");
  for (std::string_view bad : {"\"pass\"\0 junk {{{"sv, "\"pass\"\0"sv, "[1,\0 2]"sv, "\0"sv,
                               "\"pa\0ss\""sv, "\"pass\" junk"sv, "1 2"sv, "[1] [2]"sv}) {
    auto parsed = parse_json(bad);
    EXPECT_FALSE(parsed) << "accepted: " << excerpt(parsed.value_or(Json()));
    if (!parsed) {
      EXPECT_TRUE(parsed.error().message.starts_with("malformed JSON")) << parsed.error().message;
    }
  }
  EXPECT_NE(parse_json("\"pass\"\0 x"sv).error().message.find("NUL byte at offset 6"),
            std::string::npos);
  // Escaped, a NUL is an ordinary character of a string.
  EXPECT_EQ(parse_json("\"a\\u0000b\"").value_or(0), std::string("a\0b", 3));
}

TEST(Json, ReadsFromAStream) {
  std::istringstream in("1 2 3");
  auto v = read_json_values(in);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->size(), 3u);
}

TEST(Json, ShapeHelpersExplainWhatIsWrong) {
  Json j = {{"n", -3}, {"s", "x"}, {"big", 9999999}};
  EXPECT_EQ(*to_int(j["n"], "n"), -3);
  EXPECT_FALSE(to_natural(j["n"], "n"));
  EXPECT_EQ(*to_natural(j["big"], "big"), 9999999u);
  auto missing = member(j, "zzz", "thing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "thing: missing field \"zzz\"");
  EXPECT_FALSE(to_string(j["n"], "s"));
  EXPECT_FALSE(to_int(Json(1.5), "x"));
  EXPECT_FALSE(to_int(Json(std::uint64_t{18446744073709551615ULL}), "x"));
}

TEST(Json, AppendedTextIsWhatDumpWrites) {
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{42},
                         std::numeric_limits<std::int64_t>::min(),
                         std::numeric_limits<std::int64_t>::max()}) {
    std::string out = "x";
    append_json_int(out, v);
    EXPECT_EQ(out, "x" + dump(Json(v)));
  }
  for (std::uint64_t v : {std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max()}) {
    std::string out;
    append_json_uint(out, v);
    EXPECT_EQ(out, dump(Json(v)));
  }
  // Every byte alone, then random strings over all bytes (controls, quotes, invalid UTF-8).
  for (int b = 0; b < 256; ++b) {
    const std::string s(1, static_cast<char>(b));
    std::string out;
    append_json_string(out, s);
    EXPECT_EQ(out, dump(Json(s))) << "byte " << b;
  }
  std::mt19937_64 gen(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(gen() % 12, '\0');
    for (char& c : s) c = static_cast<char>(i % 3 == 0 ? gen() % 256 : gen() % 128);
    std::string out;
    append_json_string(out, s);
    ASSERT_EQ(out, dump(Json(s))) << "case " << i;
  }
}

}  // namespace
}  // namespace arbiter
