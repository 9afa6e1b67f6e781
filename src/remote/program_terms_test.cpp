// Tests of the program terms' text forms: term_settings over random pairs of terms.
#include "remote/program_terms.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace arbiter {
namespace {

// Random terms, as set_term makes them from written settings.
ProgramTerms random_terms(std::mt19937& rng) {
  const auto pick = [&](const std::vector<Json>& choices) {
    return choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)];
  };
  ProgramTerms terms;
  const auto set = [&](const char* key, const Json& value) {
    auto ok = set_term(terms, key, value);
    EXPECT_TRUE(ok) << key << " " << value.dump();
  };
  set("memory", pick({"none", "64M", "256M", "1G"}));
  set("processes", pick({"none", 8, 64}));
  set("cpu_time", pick({"none", "5s", "60s"}));
  set("cpus", pick({"none", "0.5", 1, "2"}));
  set("output", pick({"none", "1M", "16M"}));
  set("open_files", pick({"none", 32, 256}));
  set("dir", pick({"none", "/srv/a", "/srv/b"}));
  set("stderr", pick({"none", "/srv/logs"}));
  set("sandbox", pick({true, true, false}));
  if (terms.sandbox) {
    set("network", pick({true, false}));
    set("read_only",
        pick({Json::array(), Json::array({"/srv/data"}), Json::array({"/srv/data", "/srv/more"})}));
    set("env", pick({Json::array(), Json::array({"A=1"}), Json::array({"A=2", "B"})}));
  }
  return terms;
}

// Settings applied as play's --entrant applies them: text, true/false as booleans, and the
// items of a list adding up.
ProgramTerms apply(ProgramTerms terms, const std::vector<TermSetting>& settings) {
  std::map<std::string, Json> lists;
  for (const auto& [key, value] : settings) {
    Json j = value == "true" ? Json(true) : value == "false" ? Json(false) : Json(value);
    if (key == "read_only" || key == "env") {
      lists[key].push_back(value);
      j = lists[key];
    }
    auto ok = set_term(terms, key, j);
    EXPECT_TRUE(ok) << key << "=" << value << ": " << (ok ? "" : ok.error().message);
  }
  return terms;
}

TEST(TermSettings, TurnOneSetOfTermsIntoAnother) {
  std::mt19937 rng(21);
  int given = 0;
  for (int i = 0; i < 3000; ++i) {
    const ProgramTerms from = random_terms(rng);
    const ProgramTerms to = random_terms(rng);
    const auto settings = term_settings(to, from);
    if (!settings) {
      // Only a list that must become empty cannot be said.
      ASSERT_TRUE(to.sandbox.has_value());
      EXPECT_TRUE(to.sandbox->read_only.empty() || to.sandbox->environment.empty());
      continue;
    }
    ++given;
    EXPECT_EQ(apply(from, *settings), to) << i;
    if (from == to) {
      EXPECT_TRUE(settings->empty());
    }
  }
  EXPECT_GT(given, 2000);
}

TEST(TermSettings, FlagsSayWhatDiffersFromTheDefaults) {
  EXPECT_TRUE(term_flags(ProgramTerms{}).empty());
  ProgramTerms terms;
  ASSERT_TRUE(set_term(terms, "memory", "256M"));
  ASSERT_TRUE(set_term(terms, "cpu_time", "5s"));
  ASSERT_TRUE(set_term(terms, "cpus", "0.5"));
  ASSERT_TRUE(set_term(terms, "read_only", Json::array({"/srv/data"})));
  ASSERT_TRUE(set_term(terms, "network", true));
  EXPECT_EQ(term_flags(terms),
            (std::vector<std::string>{"--memory", "256M", "--cpu-time", "5s", "--cpus", "0.5",
                                      "--read-only", "/srv/data", "--allow-network"}));
  ASSERT_TRUE(set_term(terms, "sandbox", false));
  EXPECT_EQ(term_flags(terms), (std::vector<std::string>{"--memory", "256M", "--cpu-time", "5s",
                                                         "--cpus", "0.5", "--unsafe-no-sandbox"}));
  for (const Json& bad : {Json("x"), Json(0), Json("2000"), Json(true)})
    EXPECT_FALSE(set_term(terms, "cpus", bad)) << bad;
}

}  // namespace
}  // namespace arbiter
