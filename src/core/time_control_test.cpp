#include "core/time_control.h"

#include <gtest/gtest.h>

namespace arbiter {
namespace {

using namespace std::chrono_literals;

TEST(TimeControl, ParsesBankIncrementAndGrace) {
  EXPECT_EQ(parse_time_control("60s+1s").value(), (TimeControl{60s, 1s, 0s}));
  EXPECT_EQ(parse_time_control("10s+0.1s").value(), (TimeControl{10s, 100ms, 0s}));
  EXPECT_EQ(parse_time_control("5m").value(), (TimeControl{300s, 0s, 0s}));
  EXPECT_EQ(parse_time_control("60s+1s/5s").value(), (TimeControl{60s, 1s, 5s}));
  EXPECT_EQ(parse_time_control("60s+0s~2s").value(), (TimeControl{60s, 0s, 0s, 2s}));
  EXPECT_EQ(parse_time_control("60s+1s/5s~2s").value(), (TimeControl{60s, 1s, 5s, 2s}));
  for (const char* bad :
       {"", "+1s", "0s+1s", "60x+1s", "60s+", "60s+1s/", "25h", "1s+-1s", "60s~", "60s~2x"})
    EXPECT_FALSE(parse_time_control(bad)) << bad;
  EXPECT_NE(parse_time_control("60x").error().message.find("write BANK+INCREMENT"),
            std::string::npos);
}

TEST(TimeControl, FormatsAsWritten) {
  for (const char* text : {"60s+1s", "10s+100ms", "300s+0s", "60s+1s/5s", "60s+0s~2s"})
    EXPECT_EQ(format_time_control(parse_time_control(text).value()), text) << text;
}

}  // namespace
}  // namespace arbiter
