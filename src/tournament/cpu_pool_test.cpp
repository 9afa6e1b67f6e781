#include "tournament/cpu_pool.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace arbiter::tournament {
namespace {

TEST(CpuList, ReadsListsAndRanges) {
  EXPECT_EQ(parse_cpu_list("0,1").value(), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_cpu_list("3").value(), (std::vector<int>{3}));
  EXPECT_EQ(parse_cpu_list("6,0-2").value(), (std::vector<int>{0, 1, 2, 6}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 6, 8, 9}), "0-2,6,8-9");
  EXPECT_EQ(format_cpu_list({4}), "4");
}

TEST(CpuList, RefusesWhatIsNotOne) {
  for (const char* bad : {"", ",", "a", "1,", "-1", "2-1", "0,0", "1-1,1", "99999", "0.5", "1 2"})
    EXPECT_FALSE(parse_cpu_list(bad)) << bad;
  EXPECT_NE(parse_cpu_list("2-1").error().message.find("backwards"), std::string::npos);
}

TEST(CpuList, ThisProcessRunsOnSomeCpu) {
  EXPECT_FALSE(allowed_cpus().empty());
}

TEST(CpuPool, AMatchWaitsForFreeCpusRatherThanShare) {
  CpuPool pool({0, 1});
  auto first = pool.take(1, [] { return false; });
  auto second = pool.take(1, [] { return false; });
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->front(), second->front());
  std::atomic<bool> third_has{false};
  std::thread waiter([&] {
    auto third = pool.take(1, [] { return false; });
    third_has = third.has_value();
    pool.give_back(*third);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_FALSE(third_has.load());  // both CPUs are held
  pool.give_back(*first);
  waiter.join();
  EXPECT_TRUE(third_has.load());
  EXPECT_EQ(pool.peak_holders(), 2u);
  pool.give_back(*second);
}

TEST(CpuPool, GivesUpWhenTold) {
  CpuPool pool({5});
  auto held = pool.take(1, [] { return false; });
  ASSERT_TRUE(held);
  EXPECT_EQ(held->front(), 5);
  EXPECT_FALSE(pool.take(1, [] { return true; }));
}

}  // namespace
}  // namespace arbiter::tournament
