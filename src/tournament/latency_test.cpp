#include "tournament/latency.h"

#include <gtest/gtest.h>

namespace arbiter::tournament {
namespace {

using namespace std::chrono_literals;

TEST(LatencyHistogram, QuantilesAreWithinABucket) {
  LatencyHistogram h;
  for (int ms = 1; ms <= 100; ++ms) h.add(std::chrono::milliseconds(ms));
  ASSERT_EQ(h.count(), 100);
  const auto near = [](Duration got, Duration want) {
    const double r = static_cast<double>(got.count()) / static_cast<double>(want.count());
    return r > 0.95 && r < 1.05;
  };
  EXPECT_TRUE(near(*h.quantile(0.5), 50ms)) << h.quantile(0.5)->count();
  EXPECT_TRUE(near(*h.quantile(0.99), 99ms)) << h.quantile(0.99)->count();
  EXPECT_FALSE(LatencyHistogram().quantile(0.5));
}

TEST(LatencyHistogram, MergesAndRoundTrips) {
  LatencyHistogram a, b;
  a.add(1ms);
  b.add(1s);
  b.add(1s);
  a.merge(b);
  EXPECT_EQ(a.count(), 3);
  auto back = LatencyHistogram::decode(a.encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->encode(), a.encode());
  EXPECT_GT(*back->quantile(0.5), 900ms);
}

TEST(LatencyHistogram, AStoredOneIsNotTakenOnTrust) {
  for (const char* bad : {"{}", "[[1]]", "[[-1, 2]]", "[[3, 0]]", "[[3, -5]]", "[[99999, 1]]",
                          "[[1, 1], [1, 2]]", "[[\"1\", 1]]", "[[1, 1099511627777]]"})
    EXPECT_FALSE(LatencyHistogram::decode(*parse_json(bad))) << bad;
}

TEST(SeatLatency, ReadsTheCallRecordsOfEachSeat) {
  const std::string log =
      "{\"type\":\"match\",\"seats\":[\"a\",\"b\"]}\n"
      "{\"args\":{\"x\":\"\\\"elapsed_us\\\":99\"},\"call\":\"setup\",\"cpu_us\":900,"
      "\"elapsed_us\":1000,\"seat\":0,\"type\":\"call\",\"verdict\":\"ok\"}\n"
      "{\"args\":{},\"call\":\"setup\",\"elapsed_us\":2000,\"seat\":1,\"type\":\"call\","
      "\"verdict\":\"ok\"}\n"
      "{\"args\":{},\"call\":\"win\",\"elapsed_us\":5,\"seat\":7,\"type\":\"call\","
      "\"verdict\":\"ok\"}\n"
      "{\"type\":\"result\",\"winners\":[0]}\n";
  const Json got = seat_latency(log, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["calls"], 1);
  EXPECT_TRUE(got[0].contains("cpu"));
  EXPECT_EQ(got[1]["calls"], 1);
  EXPECT_FALSE(got[1].contains("cpu"));
  auto wall = LatencyHistogram::decode(got[0]["wall"]);
  ASSERT_TRUE(wall);
  const auto median = *wall->quantile(0.5);
  EXPECT_GT(median, 950us);  // 1000 us, not the 99 in the arguments' text
  EXPECT_LT(median, 1050us);
}

TEST(EntrantLatency, TheLimitShareIsOfWhatTheLimitJudges) {
  EntrantLatency l;
  for (int i = 0; i < 10; ++i) {
    l.wall.add(90ms);
    l.judged.add(40ms);
  }
  l.timeouts = 1;
  const LatencySummary s = l.summary(100ms);
  EXPECT_EQ(s.calls, 10);
  ASSERT_TRUE(s.limit_share);
  EXPECT_NEAR(*s.limit_share, 0.4, 0.02);
  EXPECT_EQ(s.timeouts, 1);
}

}  // namespace
}  // namespace arbiter::tournament
