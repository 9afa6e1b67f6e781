// Runs the course's public test cases (tests/data/qtests, N-in.json / N-out.json) through the
// harness functions and compares the outputs as JSON values.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/json.h"
#include "apps/q_course/harness.h"

namespace arbiter::q::harness {
namespace {

namespace fs = std::filesystem;

using HarnessFn = std::function<Expected<Json>(const std::vector<Json>&)>;

struct Milestone {
  int number;        // the folder under priime0__swdev/
  const char* name;  // the harness's name, for test names and messages
  HarnessFn run;
  std::size_t cases;  // how many N-in.json / N-out.json pairs the folder holds (qtests README)
};

// To add a milestone, add a row; the game harnesses take options, so wrap them in a lambda.
const std::vector<Milestone>& milestones() {
  static const std::vector<Milestone> table = {
      {3, "xmap", xmap, 45},
      {4, "xlegal", xlegal, 68},
      {5, "xscore", xscore, 67},
      {6, "xstrategy", xstrategy, 84},
  };
  return table;
}

void PrintTo(const Milestone& m, std::ostream* os) {
  *os << "M" << m.number << " " << m.name;
}

struct Case {
  fs::path in;
  fs::path out;
};

// Every N-in.json under `dir` with its N-out.json sibling, sorted by path.
std::vector<Case> find_cases(const fs::path& dir) {
  static const std::regex kInput(R"((\d+)-in\.json)");
  std::vector<Case> cases;
  if (!fs::is_directory(dir)) return cases;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (!entry.is_regular_file() || !std::regex_match(file, m, kInput)) continue;
    cases.push_back({entry.path(), entry.path().parent_path() / (m[1].str() + "-out.json")});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.in < b.in; });
  return cases;
}

Expected<std::vector<Json>> read_values(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return fail("cannot open " + p.string());
  return read_json_values(in);
}

class QTests : public ::testing::TestWithParam<Milestone> {};

TEST_P(QTests, EveryPublicCasePasses) {
  const Milestone& m = GetParam();
  const fs::path dir = fs::path(ARBITER_QTESTS_DIR) / "priime0__swdev" / std::to_string(m.number);
  const std::vector<Case> cases = find_cases(dir);
  ASSERT_GT(cases.size(), 0u) << "no cases under " << dir;
  EXPECT_EQ(cases.size(), m.cases) << "case count under " << dir;

  std::size_t passed = 0;
  for (const Case& c : cases) {
    const std::string where = fs::relative(c.in, dir).string();
    auto in = read_values(c.in);
    auto expected = read_values(c.out);
    if (!in || !expected) {
      ADD_FAILURE() << m.name << " " << where << ": unreadable test data: "
                    << (!in ? in.error().message : expected.error().message);
      continue;
    }
    if (expected->size() != 1) {
      ADD_FAILURE() << m.name << " " << where << ": expected output holds " << expected->size()
                    << " JSON values";
      continue;
    }
    auto actual = m.run(*in);
    if (!actual) {
      ADD_FAILURE() << m.name << " " << where << ": error: " << actual.error().message
                    << "\n  expected: " << dump(expected->front());
    } else if (*actual != expected->front()) {
      ADD_FAILURE() << m.name << " " << where << ": wrong output"
                    << "\n  expected: " << dump(expected->front())
                    << "\n  actual:   " << dump(*actual);
    } else {
      ++passed;
    }
  }
  std::cout << "[ M" << m.number << " " << m.name << " ] " << passed << "/" << cases.size()
            << " cases passed\n";
}

INSTANTIATE_TEST_SUITE_P(Milestones, QTests, ::testing::ValuesIn(milestones()),
                         [](const ::testing::TestParamInfo<Milestone>& info) {
                           return "M" + std::to_string(info.param.number) + "_" + info.param.name;
                         });

// --- bad input -------------------------------------------------------------------------------

std::vector<Json> values(const char* text) {
  return *parse_json_values(text);
}

// The error of a harness run, checked to be a single line; "" if the run succeeded.
std::string error_of(const Expected<Json>& r) {
  if (r) return "";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  return r.error().message;
}

constexpr const char* kMap = R"([[0, [0, {"color": "red", "shape": "star"}]]])";
constexpr const char* kPub = R"({"map": [[0, [0, {"color": "red", "shape": "star"}]]],
    "players": [{"score": 0, "tile*": [{"color": "red", "shape": "circle"}]}, 2], "tile*": 3})";

TEST(RulesHarness, WrongNumberOfValues) {
  EXPECT_EQ(error_of(xmap(values(kMap))), "xmap: expected 2 JSON values (JMap, JTile), got 1");
  EXPECT_EQ(error_of(xlegal({})), "xlegal: expected 2 JSON values (JPub, JPlacements), got 0");
  EXPECT_NE(error_of(xscore(values("[] [] []"))), "");
  EXPECT_NE(error_of(xstrategy(values(R"("dag")"))), "");
}

TEST(RulesHarness, WrongShapes) {
  EXPECT_NE(error_of(xmap(values(R"([] {"color": "red", "shape": "hexagon"})"))).find("hexagon"),
            std::string::npos);
  EXPECT_NE(error_of(xmap(values(R"({} {"color": "red", "shape": "star"})"))), "");
  EXPECT_NE(error_of(xlegal(values(R"({"map": []} [])"))), "");
  EXPECT_NE(error_of(xscore(values((std::string(kMap) + " 5").c_str()))), "");
  EXPECT_NE(error_of(xstrategy(values(R"("dag" "ldasg")"))), "");
  EXPECT_NE(error_of(xstrategy(values(R"({} [])"))), "");
}

TEST(RulesHarness, UnknownStrategy) {
  const std::string in = std::string(R"("greedy" )") + kPub;
  EXPECT_NE(error_of(xstrategy(values(in.c_str()))).find("unknown strategy \"greedy\""),
            std::string::npos);
}

TEST(RulesHarness, StrategyAndPubInEitherOrder) {
  const std::string first = std::string(R"("dag" )") + kPub;
  const std::string last = std::string(kPub) + R"( "dag")";
  const Json want = Json::parse(R"({"coordinate": {"row": -1, "column": 0},
                                    "1tile": {"color": "red", "shape": "circle"}})");
  EXPECT_EQ(xstrategy(values(first.c_str())), want);
  EXPECT_EQ(xstrategy(values(last.c_str())), want);
}

TEST(RulesHarness, ScoreNeedsThePlacedCellsOnTheMap) {
  const std::string in = std::string(kMap) + R"( [{"coordinate": {"row": 5, "column": 5},
                                                   "1tile": {"color": "red", "shape": "star"}}])";
  EXPECT_NE(error_of(xscore(values(in.c_str()))).find("not on the map"), std::string::npos);
}

TEST(RulesHarness, IllegalPlacementIsFalse) {
  const std::string in = std::string(kPub) + R"( [{"coordinate": {"row": 0, "column": 1},
                                                   "1tile": {"color": "blue", "shape": "star"}}])";
  EXPECT_EQ(xlegal(values(in.c_str())), Json(false));  // not owned
}

// The course's reference builds a JMap cell by cell, so a row naming a column twice keeps the
// later cell; the harnesses read it so too (the wire codec refuses it: codec_test).
TEST(RulesHarness, ARowNamingAColumnTwiceKeepsTheLaterCell) {
  const char* map = R"([[0, [0, {"color": "red", "shape": "square"}],
                            [0, {"color": "green", "shape": "star"}]]])";
  const std::string pub = fmt::format(R"({{"map": {}, "players": [{{"score": 0, "tile*":
      [{{"color": "green", "shape": "circle"}}]}}, 0], "tile*": 5}})",
                                      map);
  // Next to the green star a green circle fits; next to the red square it would not.
  const std::string legal = pub + R"( [{"coordinate": {"row": 0, "column": 1},
                                         "1tile": {"color": "green", "shape": "circle"}}])";
  EXPECT_EQ(xlegal(values(legal.c_str())), Json::parse(R"([[0, [0, {"color": "green", "shape":
      "star"}], [1, {"color": "green", "shape": "circle"}]]])"));
  const std::string tile = std::string(map) + R"( {"color": "green", "shape": "circle"})";
  EXPECT_EQ(xmap(values(tile.c_str())),
            Json::parse(R"([{"row": -1, "column": 0}, {"row": 0, "column": -1},
                            {"row": 0, "column": 1}, {"row": 1, "column": 0}])"));
  const std::string red = std::string(map) + R"( {"color": "red", "shape": "circle"})";
  EXPECT_EQ(xmap(values(red.c_str())), Json::array());
  const std::string score = std::string(map) + R"( [{"coordinate": {"row": 0, "column": 0},
                                                      "1tile": {"color": "green", "shape": "star"}}])";
  EXPECT_EQ(xscore(values(score.c_str())), Json(1));
}

}  // namespace
}  // namespace arbiter::q::harness
