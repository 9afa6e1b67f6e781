#include "core/units.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using std::chrono::microseconds;

TEST(Units, SizesInTheUnitsPeopleWrite) {
  EXPECT_EQ(parse_size("512M").value(), 512u << 20);
  EXPECT_EQ(parse_size("512MiB").value(), 512u << 20);
  EXPECT_EQ(parse_size("4k").value(), 4096u);
  EXPECT_EQ(parse_size("1G").value(), 1u << 30);
  EXPECT_EQ(parse_size("1.5K").value(), 1536u);
  EXPECT_EQ(parse_size("65536").value(), 65536u);
  EXPECT_EQ(parse_size("2 GB").value(), 2ull << 30);
  for (const char* bad : {"", "M", "5X", "-1M", "1e400", "nan", "12 parsecs", "1T"})
    EXPECT_FALSE(parse_size(bad)) << bad;
  EXPECT_EQ(parse_size("5X").error().message,
            "\"5X\" is not a size; write it like 512M or 4K (units K, M, G; a bare number is "
            "bytes)");
}

TEST(Units, DurationsInTheUnitsPeopleWrite) {
  EXPECT_EQ(parse_duration("60s").value(), microseconds(60'000'000));
  EXPECT_EQ(parse_duration("0.1s").value(), microseconds(100'000));
  EXPECT_EQ(parse_duration("250ms").value(), microseconds(250'000));
  EXPECT_EQ(parse_duration("2m").value(), microseconds(120'000'000));
  EXPECT_EQ(parse_duration("1.5").value(), microseconds(1'500'000));
  for (const char* bad : {"", "s", "10 fortnights", "-1s", "inf"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(Units, FormatsRoundTrip) {
  EXPECT_EQ(format_size(512u << 20), "512 MiB");
  EXPECT_EQ(format_size(1536), "1536 bytes");
  EXPECT_EQ(format_size(64u << 10), "64 KiB");
  EXPECT_EQ(format_duration(microseconds(1'500'000)), "1.5 s");
  EXPECT_EQ(format_duration(microseconds(250'000)), "250 ms");
  EXPECT_EQ(format_duration(microseconds(17)), "17 us");
}

}  // namespace
}  // namespace arbiter
