#include "games/speed_scrabble/distributor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <latch>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace arbiter::speed_scrabble {
namespace {

// Three players, hand 10, start 7 (ordinals 1..7 at once).
std::vector<std::string> three_hands() {
  return {"ABCDEFGHIJ", "KLMNOPQRST", "UVWXYZABCD"};
}

// `players` random hands of `hand` letters (deterministic).
std::vector<std::string> random_hands(int players, int hand, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> letter(0, 25);
  std::vector<std::string> out(players);
  for (std::string& tiles : out) {
    for (int k = 0; k < hand; ++k) tiles += static_cast<char>('A' + letter(rng));
  }
  return out;
}

// What try_get_tile shows player p for ordinals 1..hand, '.' for a locked tile.
std::string visible(const Distributor& d, Seat p) {
  std::string out;
  for (int k = 1; k <= d.hand(); ++k) out += d.try_get_tile(k, p).value_or('.');
  return out;
}

TEST(Distributor, Dimensions) {
  const Distributor d(three_hands(), 7);
  EXPECT_EQ(d.players(), 3);
  EXPECT_EQ(d.hand(), 10);
  EXPECT_EQ(d.start(), 7);
  EXPECT_EQ(d.dealt(0), "ABCDEFGHIJ");
  EXPECT_EQ(d.dealt(2), "UVWXYZABCD");
}

TEST(Distributor, StartTilesAreAvailableAtOnce) {
  const Distributor d(three_hands(), 7);
  for (Seat p = 0; p < 3; ++p) {
    for (int k = 1; k <= 7; ++k) EXPECT_EQ(d.try_get_tile(k, p), three_hands()[p][k - 1]);
  }
  EXPECT_EQ(d.available(), 7);
}

TEST(Distributor, TilesBeyondStartAreLocked) {
  const Distributor d(three_hands(), 7);
  for (Seat p = 0; p < 3; ++p) {
    for (int k = 8; k <= 10; ++k) EXPECT_EQ(d.try_get_tile(k, p), std::nullopt);
  }
  EXPECT_EQ(visible(d, 1), "KLMNOPQ...");
  for (int k = 1; k <= 10; ++k) EXPECT_FALSE(d.is_unlocked(k));
}

TEST(Distributor, StartMayBeTheWholeHandOrOneTile) {
  const Distributor all(three_hands(), 10);
  EXPECT_EQ(visible(all, 0), "ABCDEFGHIJ");
  EXPECT_EQ(all.available(), 10);
  const Distributor one(three_hands(), 1);
  EXPECT_EQ(visible(one, 0), "A.........");
  EXPECT_EQ(one.available(), 1);
}

TEST(Distributor, UnlockMakesTheNextOrdinalAvailableToEveryPlayer) {
  Distributor d(three_hands(), 7);
  EXPECT_TRUE(d.unlock(7));  // a valid 7-board: ordinal 8 for everyone
  EXPECT_TRUE(d.is_unlocked(7));
  EXPECT_EQ(visible(d, 0), "ABCDEFGH..");
  EXPECT_EQ(visible(d, 1), "KLMNOPQR..");
  EXPECT_EQ(visible(d, 2), "UVWXYZAB..");
  EXPECT_EQ(d.available(), 8);
  EXPECT_TRUE(d.unlock(8));
  EXPECT_EQ(visible(d, 2), "UVWXYZABC.");
  EXPECT_EQ(d.available(), 9);
}

TEST(Distributor, UnlockIsIdempotent) {
  Distributor d(three_hands(), 7);
  EXPECT_TRUE(d.unlock(7));
  EXPECT_FALSE(d.unlock(7));  // the same valid board again changes nothing
  EXPECT_FALSE(d.unlock(7));
  EXPECT_EQ(visible(d, 0), "ABCDEFGH..");
  EXPECT_EQ(d.available(), 8);
}

TEST(Distributor, UnlockBelowStartIsRecordedButShowsNothingNew) {
  Distributor d(three_hands(), 7);
  EXPECT_TRUE(d.unlock(3));  // a valid 3-board: ordinal 4 was available anyway
  EXPECT_TRUE(d.is_unlocked(3));
  EXPECT_EQ(visible(d, 0), "ABCDEFG...");
  EXPECT_EQ(d.available(), 7);
}

TEST(Distributor, UnlockOfTheWholeHandUnlocksNothing) {
  Distributor d(three_hands(), 7);
  EXPECT_TRUE(d.unlock(10));  // the winning board: there is no ordinal 11
  EXPECT_TRUE(d.is_unlocked(10));
  EXPECT_EQ(visible(d, 0), "ABCDEFG...");
  EXPECT_EQ(d.available(), 7);
  EXPECT_EQ(d.try_get_tile(11, 0), std::nullopt);
}

// The chosen semantics: availability is per ordinal (tile k iff valid[k-1]), so an out-of-order
// unlock leaves a gap that try_get_tile shows and available() and TileCursor do not step over.
TEST(Distributor, OutOfOrderUnlocks) {
  Distributor d(three_hands(), 7);
  TileCursor cursor;
  EXPECT_EQ(cursor.take_new(d, 0), "ABCDEFG");

  EXPECT_TRUE(d.unlock(9));  // ordinal 10, while 8 and 9 are still locked
  EXPECT_EQ(d.try_get_tile(10, 0), 'J');
  EXPECT_EQ(d.try_get_tile(9, 0), std::nullopt);
  EXPECT_EQ(d.try_get_tile(8, 0), std::nullopt);
  EXPECT_EQ(visible(d, 0), "ABCDEFG..J");
  EXPECT_EQ(d.available(), 7);
  EXPECT_EQ(cursor.take_new(d, 0), "");  // the cursor waits at 8
  EXPECT_EQ(cursor.next(), 8);

  EXPECT_TRUE(d.unlock(7));  // ordinal 8; 9 is still locked
  EXPECT_EQ(visible(d, 0), "ABCDEFGH.J");
  EXPECT_EQ(d.available(), 8);
  EXPECT_EQ(cursor.take_new(d, 0), "H");

  EXPECT_TRUE(d.unlock(8));  // closes the gap: 9 and 10 together
  EXPECT_EQ(visible(d, 0), "ABCDEFGHIJ");
  EXPECT_EQ(d.available(), 10);
  EXPECT_EQ(cursor.take_new(d, 0), "IJ");
  EXPECT_EQ(cursor.next(), 11);
}

TEST(Distributor, OrderOfUnlocksDoesNotMatterInTheEnd) {
  const std::vector<std::string> hands = random_hands(4, 15, 1);
  std::vector<int> order = {14, 7, 12, 8, 13, 9, 11, 10};
  std::mt19937 rng(5);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    Distributor d(hands, 7);
    int last_available = d.available();
    for (const int k : order) {
      d.unlock(k);
      EXPECT_GE(d.available(), last_available);  // entitlement only grows
      last_available = d.available();
    }
    EXPECT_EQ(d.available(), 15);
    for (Seat p = 0; p < 4; ++p) EXPECT_EQ(visible(d, p), hands[p]);
  }
}

TEST(TileCursor, FirstCallReturnsTheStartTiles) {
  const Distributor d(three_hands(), 7);
  TileCursor cursor;
  EXPECT_EQ(cursor.next(), 1);
  EXPECT_EQ(cursor.take_new(d, 1), "KLMNOPQ");
  EXPECT_EQ(cursor.next(), 8);
  EXPECT_EQ(cursor.take_new(d, 1), "");  // nothing new: the cursor stays
  EXPECT_EQ(cursor.next(), 8);
}

TEST(TileCursor, CatchesUpWithSeveralTilesInOrder) {
  Distributor d(three_hands(), 7);
  TileCursor fast, slow;
  EXPECT_EQ(fast.take_new(d, 0), "ABCDEFG");
  EXPECT_EQ(slow.take_new(d, 2), "UVWXYZA");
  d.unlock(7);
  EXPECT_EQ(fast.take_new(d, 0), "H");
  d.unlock(8);
  EXPECT_EQ(fast.take_new(d, 0), "I");
  d.unlock(9);
  EXPECT_EQ(fast.take_new(d, 0), "J");
  EXPECT_EQ(slow.take_new(d, 2), "BCD");  // three unlocks since its last call, in order
  EXPECT_EQ(slow.next(), 11);
  EXPECT_EQ(slow.take_new(d, 2), "");
  TileCursor late;  // a player that never asked before gets everything at once
  EXPECT_EQ(late.take_new(d, 1), "KLMNOPQRST");
}

TEST(Distributor, BadArgumentsReturnNothing) {
  Distributor d(three_hands(), 7);
  for (const int k : {0, -1, 11, 12, INT_MIN, INT_MAX}) {
    for (Seat p = 0; p < 3; ++p) EXPECT_EQ(d.try_get_tile(k, p), std::nullopt) << k;
  }
  for (const Seat p : {-1, 3, 4, INT_MIN, INT_MAX}) {
    for (int k = 1; k <= 10; ++k) EXPECT_EQ(d.try_get_tile(k, p), std::nullopt) << p;
  }
  for (const int k : {0, -1, -7, 11, INT_MIN, INT_MAX}) {
    EXPECT_FALSE(d.unlock(k)) << k;
    EXPECT_FALSE(d.is_unlocked(k)) << k;
  }
  EXPECT_EQ(d.available(), 7);
  for (Seat p = 0; p < 3; ++p) EXPECT_EQ(visible(d, p), three_hands()[p].substr(0, 7) + "...");

  TileCursor cursor;
  EXPECT_EQ(cursor.take_new(d, 3), "");
  EXPECT_EQ(cursor.take_new(d, -1), "");
  EXPECT_EQ(cursor.next(), 1);
}

TEST(Distributor, RejectsBadDeals) {
  EXPECT_THROW(Distributor({}, 1), std::invalid_argument);
  EXPECT_THROW(Distributor({"", ""}, 1), std::invalid_argument);
  EXPECT_THROW(Distributor({"ABC", "AB"}, 1), std::invalid_argument);
  EXPECT_THROW(Distributor({"ABC", "ABC"}, 0), std::invalid_argument);
  EXPECT_THROW(Distributor({"ABC", "ABC"}, 4), std::invalid_argument);
  EXPECT_THROW(Distributor({"ABC", "ABC"}, -1), std::invalid_argument);
  EXPECT_NO_THROW(Distributor({"ABC"}, 3));
}

// Readers hammer try_get_tile and take_new while one writer unlocks in order. Before unlock(k)
// the writer writes a plain (non-atomic) witness[k]; a reader that got ordinal k+1 reads
// witness[k] without any synchronization of its own. That is correct only if unlock's store
// releases and try_get_tile's load acquires; otherwise the reader may see the old value (the
// check fails) and ThreadSanitizer reports a data race. It also shows that no reader ever got a
// tile before it was unlocked: witness[k] is written just before unlock(k).
TEST(DistributorConcurrency, ReadersSeeExactlyTheirDealtSequence) {
  constexpr int kPlayers = 4;
  constexpr int kReaders = 8;  // two per seat, one by cursor and one probing ordinals directly
  constexpr int kHand = 200;   // longer than a game, for more interleavings
  constexpr int kStart = 7;
  constexpr int kRounds = 40;
  auto witness_value = [](int k) { return 1000 + 7 * k; };

  for (int round = 0; round < kRounds; ++round) {
    const std::vector<std::string> hands = random_hands(kPlayers, kHand, 100 + round);
    Distributor d(hands, kStart);
    std::vector<int> witness(kHand + 1, 0);  // plain ints: the happens-before witness
    std::vector<std::string> got(kReaders);
    std::vector<int> wrong_tile(kReaders, 0), wrong_witness(kReaders, 0), below_taken(kReaders, 0);
    std::latch go(kReaders + 1);

    auto check = [&](int r, Seat p, int k, char tile) {
      if (tile != hands[p][k - 1]) ++wrong_tile[r];
      if (k > kStart && witness[k - 1] != witness_value(k - 1)) ++wrong_witness[r];
    };

    std::vector<std::thread> threads;
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        const Seat p = r % kPlayers;
        std::mt19937 rng(r);
        go.arrive_and_wait();
        if (r < kPlayers) {
          // By cursor: take_new until the whole hand is in.
          TileCursor cursor;
          while (cursor.next() <= kHand) {
            const int first = cursor.next();
            const std::string fresh = cursor.take_new(d, p);
            for (std::size_t i = 0; i < fresh.size(); ++i) {
              check(r, p, first + static_cast<int>(i), fresh[i]);
            }
            got[r] += fresh;
            // Peek past the cursor: whatever shows there must be genuine too.
            const int ahead = cursor.next() + static_cast<int>(rng() % 4);
            if (const auto tile = d.try_get_tile(ahead, p)) check(r, p, ahead, *tile);
            if (fresh.empty()) std::this_thread::yield();
          }
        } else {
          // Directly: try_get_tile on the next ordinal, plus available() as a lower bound.
          int next = 1;
          while (next <= kHand) {
            const int avail = d.available();
            if (avail < next - 1) ++below_taken[r];  // available() covers what was taken
            if (const auto tile = d.try_get_tile(next, p)) {
              check(r, p, next, *tile);
              got[r] += *tile;
              ++next;
            } else {
              std::this_thread::yield();
            }
          }
        }
      });
    }
    threads.emplace_back([&] {
      go.arrive_and_wait();
      for (int k = kStart; k < kHand; ++k) {
        witness[k] = witness_value(k);
        d.unlock(k);
        if (k % 8 == 0) std::this_thread::yield();  // let readers catch up now and then
      }
      d.unlock(kHand);
    });
    for (std::thread& t : threads) t.join();

    for (int r = 0; r < kReaders; ++r) {
      SCOPED_TRACE(testing::Message() << "round " << round << " reader " << r);
      EXPECT_EQ(got[r], hands[r % kPlayers]);
      EXPECT_EQ(wrong_tile[r], 0);
      EXPECT_EQ(wrong_witness[r], 0);
      EXPECT_EQ(below_taken[r], 0);
    }
    EXPECT_EQ(d.available(), kHand);
  }
}

// Several validator threads unlock the same ordinals in different orders, with repeats, while
// cursors read: every cursor still ends with exactly its dealt sequence, in order, and
// available() never decreases.
TEST(DistributorConcurrency, ConcurrentOutOfOrderAndRepeatedUnlocks) {
  constexpr int kPlayers = 3;
  constexpr int kHand = 120;
  constexpr int kStart = 5;
  constexpr int kWriters = 2;
  constexpr int kRounds = 40;

  for (int round = 0; round < kRounds; ++round) {
    const std::vector<std::string> hands = random_hands(kPlayers, kHand, 200 + round);
    Distributor d(hands, kStart);
    std::vector<std::string> got(kPlayers);
    std::vector<int> went_back(kPlayers, 0);
    std::atomic<int> newly_set{0};
    std::latch go(kPlayers + kWriters);

    std::vector<std::thread> threads;
    for (Seat p = 0; p < kPlayers; ++p) {
      threads.emplace_back([&, p] {
        go.arrive_and_wait();
        TileCursor cursor;
        int last = 0;
        while (cursor.next() <= kHand) {
          const int avail = d.available();
          if (avail < last) ++went_back[p];
          last = avail;
          const std::string fresh = cursor.take_new(d, p);
          got[p] += fresh;
          if (fresh.empty()) std::this_thread::yield();
        }
      });
    }
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        std::vector<int> order;
        for (int k = 1; k <= kHand; ++k) order.push_back(k);
        for (int k = 1; k <= kHand; k += 3) order.push_back(k);  // repeats
        std::mt19937 rng(round * 10 + w);
        std::shuffle(order.begin(), order.end(), rng);
        go.arrive_and_wait();
        int mine = 0;
        for (const int k : order) mine += d.unlock(k) ? 1 : 0;
        newly_set += mine;
      });
    }
    for (std::thread& t : threads) t.join();

    EXPECT_EQ(newly_set.load(), kHand);  // each flag set by exactly one unlock call
    for (Seat p = 0; p < kPlayers; ++p) {
      EXPECT_EQ(got[p], hands[p]);
      EXPECT_EQ(went_back[p], 0);
    }
  }
}

}  // namespace
}  // namespace arbiter::speed_scrabble
