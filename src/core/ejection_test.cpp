#include "core/ejection.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

TEST(Ejection, DetailsQuoteAFewHundredBytesAtMost) {
  const std::string short_one = "malformed JSON: syntax error";
  EXPECT_EQ(Ejection(0, Why::malformed, "setup", short_one).detail, short_one);
  // A reply of a 1 MB number: the parse error quotes all of it.
  const std::string huge =
      "malformed JSON: number overflow parsing '" + std::string(1000000, '1') + "'";
  const Ejection e(1, Why::malformed, "take_turn", huge);
  EXPECT_LE(e.detail.size(), kMaxDetailBytes);
  EXPECT_TRUE(e.detail.starts_with("malformed JSON: number overflow parsing '111"));
  EXPECT_TRUE(e.detail.ends_with("(" + std::to_string(huge.size()) + " bytes in all)")) << e.detail;
  // Never cut inside a character: "é" is two bytes, so some cut falls inside one.
  for (std::size_t pad = 0; pad < 4; ++pad) {
    std::string accents(pad, 'x');
    for (int i = 0; i < 400; ++i) accents += "é";
    const std::string cut = bounded_detail(accents);
    EXPECT_LE(cut.size(), kMaxDetailBytes);
    const std::size_t body = cut.find("...");
    ASSERT_NE(body, std::string::npos);
    EXPECT_EQ((body - pad) % 2, 0u) << pad;
  }
}

}  // namespace
}  // namespace arbiter
