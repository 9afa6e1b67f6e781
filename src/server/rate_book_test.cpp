// The rate book (server/rate_book.h): counts in a sliding window per key, a taken-back count,
// and bounded memory under a flood of keys.
#include "server/rate_book.h"

#include <gtest/gtest.h>

#include <string>

namespace arbiter::server {
namespace {

using Clock = RateBook::Clock;

TEST(RateBook, CountsPerKeyInTheWindowAndTakesBackACount) {
  RateBook book(3, std::chrono::minutes(10));
  const Clock::time_point t0{};
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(book.note("a", t0 + std::chrono::minutes(i)));
  EXPECT_FALSE(book.note("a", t0 + std::chrono::minutes(3)));
  EXPECT_FALSE(book.under("a", t0 + std::chrono::minutes(3)));
  EXPECT_TRUE(book.under("b", t0 + std::chrono::minutes(3)));
  book.forget_last("a");
  EXPECT_TRUE(book.under("a", t0 + std::chrono::minutes(3)));
  EXPECT_TRUE(book.note("a", t0 + std::chrono::minutes(3)));
  EXPECT_FALSE(book.under("a", t0 + std::chrono::minutes(9)));
  EXPECT_TRUE(book.under("a", t0 + std::chrono::minutes(10)));  // the first left the window
}

TEST(RateBook, AFloodOfKeysKeepsTheBookBoundedAndTheLatestCounted) {
  RateBook book(2, std::chrono::minutes(10), 1000);
  const Clock::time_point t0{};
  for (int i = 0; i < 100'000; ++i)
    book.note("10.0." + std::to_string(i), t0 + std::chrono::milliseconds(i));
  EXPECT_LE(book.keys(), 1000u);
  // The ones heard from last are still counted; the first were forgiven.
  const auto now = t0 + std::chrono::milliseconds(100'000);
  book.note("10.0.99999", now);
  EXPECT_FALSE(book.under("10.0.99999", now));
  EXPECT_TRUE(book.under("10.0.0", now));
}

}  // namespace
}  // namespace arbiter::server
