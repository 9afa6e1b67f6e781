// Tests of the loopback channel pair, Channel::exchange and the Framer behind both wire formats.
#include "core/channel.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/timing_test.h"

#include "core/framer.h"

namespace arbiter {
namespace {

using namespace testing_time;

TEST(Loopback, RoundTripBothWays) {
  auto [a, b] = loopback_pair();
  ASSERT_TRUE(a->send(Json{{"call", "setup"}, {"args", {1, 2}}}, in(100ms)));
  auto got = b->receive(in(100ms));
  ASSERT_TRUE(got) << got.error().detail;
  EXPECT_EQ(*got, (Json{{"call", "setup"}, {"args", {1, 2}}}));
  ASSERT_TRUE(b->send("pass", in(100ms)));
  got = a->receive(in(100ms));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, "pass");
}

TEST(Loopback, MessagesArriveInOrder) {
  auto [a, b] = loopback_pair();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(a->send(i, in(100ms)));
  for (int i = 0; i < 5; ++i) {
    auto got = b->receive(in(100ms));
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, i);
  }
}

TEST(Loopback, ExchangeWithAnEchoingPeer) {
  auto [a, b] = loopback_pair();
  std::thread echo([&b] {
    auto request = b->receive(in(500ms));
    if (request) (void)b->send(Json{{"echo", *request}}, in(500ms));
  });
  auto reply = a->exchange(Json::array({"take_turn", 7}), in(500ms));
  echo.join();
  ASSERT_TRUE(reply) << reply.error().detail;
  EXPECT_EQ(*reply, (Json{{"echo", {"take_turn", 7}}}));
}

TEST(Loopback, AMessageWaitingBeforeTheCallIsUnsolicitedNotTheAnswer) {
  auto [a, b] = loopback_pair();
  // Two answers written at once: the first answers the first call, the second answers nothing.
  ASSERT_TRUE(b->send("first", in(500ms)));
  ASSERT_TRUE(b->send("second", in(500ms)));
  auto garbage = a->try_receive();  // as if the first were the answer to an earlier call
  ASSERT_TRUE(garbage && *garbage);
  auto reply = a->exchange(Json::array({"take_turn", 1}), in(500ms));
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().why, Why::foul);
  EXPECT_TRUE(reply.error().detail.starts_with("unsolicited: \"second\"")) << reply.error().detail;
  // The call was not made: the peer has nothing to read.
  auto asked = b->try_receive();
  ASSERT_TRUE(asked);
  EXPECT_FALSE(*asked);
}

TEST(Loopback, TryReceiveNeverBlocks) {
  auto [a, b] = loopback_pair();
  const auto start = std::chrono::steady_clock::now();
  auto none = b->try_receive();
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_LT(since(start), 20ms);
  ASSERT_TRUE(a->send(true, in(100ms)));
  auto some = b->try_receive();
  ASSERT_TRUE(some);
  ASSERT_TRUE(*some);
  EXPECT_EQ(**some, true);
}

TEST(Loopback, TimesOutAtTheDeadline) {
  auto [a, b] = loopback_pair();
  const auto start = std::chrono::steady_clock::now();
  auto got = b->receive(in(30ms));
  const Ms took = since(start);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::timeout);
  EXPECT_GE(took, 30ms);
  EXPECT_LT(took, 80ms);
}

TEST(Loopback, DeadlineOnAManualClock) {
  auto [a, b] = loopback_pair();
  ManualClock clock;
  std::thread mover([&clock] {
    std::this_thread::sleep_for(10ms);
    clock.advance(10s);
  });
  auto got = b->receive(Deadline::after(clock, 5s));
  mover.join();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::timeout);
}

TEST(Loopback, PeerCloseIsHangUpAfterWhatWasSent) {
  auto [a, b] = loopback_pair();
  ASSERT_TRUE(a->send(1, in(100ms)));
  ASSERT_TRUE(a->send(2, in(100ms)));
  a->close();
  a->close();  // idempotent
  EXPECT_EQ(b->receive(in(100ms)).value_or(0), 1);
  EXPECT_EQ(b->receive(in(100ms)).value_or(0), 2);
  auto end = b->receive(in(100ms));
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().why, Why::hang_up);
  auto sent = b->send(3, in(100ms));
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().why, Why::hang_up);
  // The closed end itself refuses everything.
  EXPECT_EQ(a->send(4, in(100ms)).error().why, Why::hang_up);
  EXPECT_EQ(a->receive(in(100ms)).error().why, Why::hang_up);
  EXPECT_EQ(a->try_receive().error().why, Why::hang_up);
}

TEST(Loopback, MessageOverTheCapIsMalformed) {
  auto [a, b] = loopback_pair(ChannelLimits{.max_message = 1024});
  ASSERT_TRUE(a->send(std::string(2000, 'x'), in(100ms)));
  auto got = b->receive(in(100ms));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::malformed);
  EXPECT_EQ(got.error().detail, "message larger than 1024 bytes");
}

TEST(Loopback, CloseFromAnotherThreadUnblocksReceive) {
  auto [a, b] = loopback_pair();
  std::thread closer([&b] {
    std::this_thread::sleep_for(20ms);
    b->close();
  });
  const auto start = std::chrono::steady_clock::now();
  auto got = b->receive(in(5s));
  const Ms took = since(start);
  closer.join();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  EXPECT_LT(took, 200ms);
}

TEST(Loopback, DescribesItsEnds) {
  auto [a, b] = loopback_pair();
  EXPECT_EQ(a->describe(), "loopback end 0");
  EXPECT_EQ(b->describe(), "loopback end 1");
}

// The Framer on its own: the wire formats, byte by byte where it matters.

std::vector<Json> drain(Framer& f) {
  std::vector<Json> out;
  for (;;) {
    auto m = f.next();
    if (!m || !*m) return out;
    out.push_back(std::move(**m));
  }
}

TEST(Framer, EncodesCompactJsonAndANewline) {
  EXPECT_EQ(Framer::encode(Json{{"b", 1}, {"a", {true, nullptr}}}),
            "{\"a\":[true,null],\"b\":1}\n");
}

TEST(Framer, LinesSkipEmptyLinesAndWaitForTheNewline) {
  Framer f(Framing::lines, {});
  f.append("\n \r\n1\n[2,");
  EXPECT_EQ(drain(f), std::vector<Json>{1});
  EXPECT_TRUE(f.partial());
  f.append("3]");
  EXPECT_EQ(drain(f), std::vector<Json>{});
  f.append("\r\n");
  EXPECT_EQ(drain(f), std::vector<Json>{Json::array({2, 3})});
  EXPECT_FALSE(f.partial());
}

TEST(Framer, ALineThatIsNotJsonIsMalformedAndSkipped) {
  Framer f(Framing::lines, {});
  f.append("hello\n4\n");
  auto bad = f.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().why, Why::malformed);
  EXPECT_EQ(drain(f), std::vector<Json>{4});
}

TEST(Framer, NestingIsCapped) {
  Framer f(Framing::lines, {});
  f.append(std::string(1000, '[') + std::string(1000, ']') + "\n");
  auto bad = f.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().why, Why::malformed);
}

TEST(Framer, OversizedPartialLineFailsAtOnceAndForGood) {
  Framer f(Framing::lines, ChannelLimits{.max_message = 16});
  f.append(std::string(16, '1'));
  EXPECT_TRUE(f.next());  // exactly at the cap: still waiting
  f.append("1");
  auto bad = f.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().detail, "message larger than 16 bytes");
  EXPECT_EQ(f.buffered(), 0u);
  f.append("\n2\n");
  EXPECT_FALSE(f.next());
}

TEST(Framer, ValuesBackToBack) {
  Framer f(Framing::values, {});
  f.append("\"a\\\"]\"[1,{\"b\":\"}\"}]{\"c\":[]}  true 12");
  EXPECT_EQ(drain(f), (std::vector<Json>{"a\"]", Json::parse("[1,{\"b\":\"}\"}]"),
                                         Json{{"c", Json::array()}}, true}));
  EXPECT_TRUE(f.partial());  // 12 may go on
  f.append("3\n\"x");
  EXPECT_EQ(drain(f), std::vector<Json>{123});
  f.append("\"");
  EXPECT_EQ(drain(f), std::vector<Json>{"x"});
}

TEST(Framer, ValuesSplitInsideAnEscape) {
  Framer f(Framing::values, {});
  f.append("[\"\\");
  EXPECT_EQ(drain(f), std::vector<Json>{});
  f.append("\"\"]\"");
  EXPECT_EQ(drain(f), std::vector<Json>{Json::array({"\""})});
  EXPECT_TRUE(f.partial());
}

TEST(Framer, ValuesOverTheCap) {
  Framer f(Framing::values, ChannelLimits{.max_message = 8});
  f.append("[1,2,3,4,5]");
  auto bad = f.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().detail, "message larger than 8 bytes");
}

TEST(Framer, ValuesGarbageIsMalformed) {
  Framer f(Framing::values, {});
  f.append("nope ");
  auto bad = f.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().why, Why::malformed);
  f.append("[}");
  EXPECT_FALSE(f.next());
}

}  // namespace
}  // namespace arbiter
