// Tests of FdChannel over pipe pairs and socketpairs, with a raw peer that writes arbitrary bytes.
#include "remote/fd_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "core/timing_test.h"

#include "remote/child_process.h"

namespace arbiter {
namespace {

using namespace testing_time;

enum class Kind { pipes, sockets };

// The far side of a channel under test, as plain descriptors.
struct Peer {
  int to_us = -1;    // what the peer writes here, the channel reads
  int from_us = -1;  // what the channel writes, the peer reads here (== to_us for a socket)

  void write(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(to_us, bytes.data(), bytes.size());
      ASSERT_GT(n, 0);
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void close() {
    if (from_us >= 0 && from_us != to_us) ::close(from_us);
    if (to_us >= 0) ::close(to_us);
    to_us = from_us = -1;
  }
};

struct Ends {
  std::unique_ptr<FdChannel> channel;
  Peer peer;
  Ends() = default;
  Ends(Ends&& other) noexcept
      : channel(std::move(other.channel)), peer(std::exchange(other.peer, Peer{})) {}
  ~Ends() { peer.close(); }
};

// A channel under test and the raw descriptors of its peer.
Ends make_ends(Kind kind, Framing framing = Framing::lines, ChannelLimits limits = {}) {
  ChildProcess::ignore_sigpipe();
  Ends e;
  if (kind == Kind::sockets) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    e.channel = std::make_unique<FdChannel>(sv[0], sv[0], framing, limits, "socketpair");
    e.peer.to_us = e.peer.from_us = sv[1];
  } else {
    int in[2], out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    e.channel = std::make_unique<FdChannel>(in[0], out[1], framing, limits, "pipes");
    e.peer.to_us = in[1];
    e.peer.from_us = out[0];
  }
  return e;
}

// Two channels back to back.
std::pair<std::unique_ptr<FdChannel>, std::unique_ptr<FdChannel>> make_pair(Kind kind) {
  ChildProcess::ignore_sigpipe();
  if (kind == Kind::sockets) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    return {std::make_unique<FdChannel>(sv[0], sv[0], Framing::lines, ChannelLimits{}, "a"),
            std::make_unique<FdChannel>(sv[1], sv[1], Framing::lines, ChannelLimits{}, "b")};
  }
  int ab[2], ba[2];
  EXPECT_EQ(::pipe2(ab, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(ba, O_CLOEXEC), 0);
  return {std::make_unique<FdChannel>(ba[0], ab[1], Framing::lines, ChannelLimits{}, "a"),
          std::make_unique<FdChannel>(ab[0], ba[1], Framing::lines, ChannelLimits{}, "b")};
}

class FdChannelTest : public testing::TestWithParam<Kind> {};

TEST_P(FdChannelTest, TwoAnswersAtOnceMakeTheSecondUnsolicitedAtTheNextCall) {
  auto e = make_ends(GetParam());
  e.peer.write("\"first\"\n\"second\"\n");
  auto first = e.channel->receive(in(500ms));
  ASSERT_TRUE(first) << first.error().detail;
  EXPECT_EQ(*first, "first");
  auto next = e.channel->exchange(Json::array({"take-turn", Json::array()}), in(500ms));
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().why, Why::foul);
  EXPECT_TRUE(next.error().detail.starts_with("unsolicited: ")) << next.error().detail;
}

TEST_P(FdChannelTest, ALineWithANulIsMalformedWhateverFollowsIt) {
  auto e = make_ends(GetParam());
  e.peer.write(std::string("\"pass\"\0 junk {{{\n\"pass\"\0\n", 25));
  for (int i = 0; i < 2; ++i) {
    auto got = e.channel->receive(in(500ms));
    ASSERT_FALSE(got) << "accepted " << dump(*got);
    EXPECT_EQ(got.error().why, Why::malformed);
    EXPECT_NE(got.error().detail.find("NUL byte"), std::string::npos) << got.error().detail;
  }
}

TEST_P(FdChannelTest, RoundTripAndExchange) {
  auto [a, b] = make_pair(GetParam());
  ASSERT_TRUE(a->send(Json{{"call", "win"}, {"args", true}}, in(100ms)));
  auto got = b->receive(in(100ms));
  ASSERT_TRUE(got) << got.error().detail;
  EXPECT_EQ(*got, (Json{{"call", "win"}, {"args", true}}));

  std::thread echo([&b] {
    auto request = b->receive(in(500ms));
    if (request) (void)b->send(Json::array({"echo", *request}), in(500ms));
  });
  auto reply = a->exchange("ping", in(500ms));
  echo.join();
  ASSERT_TRUE(reply) << reply.error().detail;
  EXPECT_EQ(*reply, Json::array({"echo", "ping"}));
}

TEST_P(FdChannelTest, LargeMessageRoundTrip) {
  // Bigger than any pipe or socket buffer: both sides must make progress together.
  auto [a, b] = make_pair(GetParam());
  const Json big = std::string(900'000, 'q');
  std::thread sender([&a, &big] { EXPECT_TRUE(a->send(big, in(2s))); });
  auto got = b->receive(in(2s));
  sender.join();
  ASSERT_TRUE(got) << got.error().detail;
  EXPECT_EQ(*got, big);
}

TEST_P(FdChannelTest, MessageSplitAcrossWrites) {
  Ends e = make_ends(GetParam());
  std::thread writer([&e] {
    e.peer.write("{\"a\":");
    std::this_thread::sleep_for(20ms);
    e.peer.write("[1,");
    std::this_thread::sleep_for(20ms);
    e.peer.write("2]}\n");
  });
  auto got = e.channel->receive(in(500ms));
  writer.join();
  ASSERT_TRUE(got) << got.error().detail;
  EXPECT_EQ(*got, (Json{{"a", {1, 2}}}));
}

TEST_P(FdChannelTest, SeveralMessagesInOneWrite) {
  Ends e = make_ends(GetParam());
  e.peer.write("1\n\n[2]\n{\"c\":3}\n");
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), 1);
  // The rest is already buffered: try_receive hands it out without reading.
  auto second = e.channel->try_receive();
  ASSERT_TRUE(second && *second);
  EXPECT_EQ(**second, Json::array({2}));
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), (Json{{"c", 3}}));
  auto none = e.channel->try_receive();
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST_P(FdChannelTest, TryReceiveNeverBlocks) {
  Ends e = make_ends(GetParam());
  const auto start = std::chrono::steady_clock::now();
  auto none = e.channel->try_receive();
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  e.peer.write("[\"half");
  none = e.channel->try_receive();
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_LT(since(start), 20ms);
  e.peer.write("\"]\n");
  auto some = e.channel->try_receive();
  ASSERT_TRUE(some && *some);
  EXPECT_EQ(**some, Json::array({"half"}));
}

TEST_P(FdChannelTest, TimesOutWhenNothingArrives) {
  Ends e = make_ends(GetParam());
  const auto start = std::chrono::steady_clock::now();
  auto got = e.channel->receive(in(40ms));
  const Ms took = since(start);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::timeout);
  EXPECT_GE(took, 40ms);
  EXPECT_LT(took, 90ms);
}

TEST_P(FdChannelTest, PassedDeadlineStillTakesWhatIsThere) {
  Ends e = make_ends(GetParam());
  e.peer.write("7\n");
  const Deadline past(SteadyClock::instance(), SteadyClock::instance().now() - 1s);
  EXPECT_EQ(e.channel->receive(past).value_or(0), 7);
  EXPECT_EQ(e.channel->receive(past).error().why, Why::timeout);
}

TEST_P(FdChannelTest, PeerCloseIsHangUpAfterTheData) {
  Ends e = make_ends(GetParam());
  e.peer.write("1\n2\n");
  e.peer.close();
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), 1);
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), 2);
  auto end = e.channel->receive(in(100ms));
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().why, Why::hang_up);
  EXPECT_EQ(end.error().detail, "end of input");
  EXPECT_EQ(e.channel->try_receive().error().why, Why::hang_up);
}

TEST_P(FdChannelTest, EndOfInputMidLineIsHangUp) {
  Ends e = make_ends(GetParam());
  e.peer.write("{\"a\":");
  e.peer.close();
  auto got = e.channel->receive(in(100ms));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  EXPECT_EQ(got.error().detail, "end of input in the middle of a message");
}

TEST_P(FdChannelTest, GarbageIsMalformedAndTheStreamGoesOn) {
  Ends e = make_ends(GetParam());
  e.peer.write("this is not json\n5\n");
  auto bad = e.channel->receive(in(100ms));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().why, Why::malformed);
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), 5);
}

TEST_P(FdChannelTest, LineOverTheCapIsMalformedWithoutWaitingForTheNewline) {
  Ends e = make_ends(GetParam(), Framing::lines, ChannelLimits{.max_message = 1024});
  e.peer.write("\"" + std::string(1500, 'x'));
  const auto start = std::chrono::steady_clock::now();
  auto got = e.channel->receive(in(1s));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::malformed);
  EXPECT_EQ(got.error().detail, "message larger than 1024 bytes");
  EXPECT_LT(since(start), 100ms);
}

TEST_P(FdChannelTest, CompleteLineOverTheCapIsMalformed) {
  Ends e = make_ends(GetParam(), Framing::lines, ChannelLimits{.max_message = 1024});
  e.peer.write("\"" + std::string(1200, 'x') + "\"\n");
  auto got = e.channel->receive(in(100ms));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::malformed);
}

TEST_P(FdChannelTest, EndlessLineIsRejectedWithoutBufferingIt) {
  Ends e = make_ends(GetParam());
  ASSERT_EQ(::fcntl(e.peer.to_us, F_SETFL, O_NONBLOCK), 0);
  constexpr std::size_t kTotal = 2 << 20;
  std::atomic<std::size_t> written{0};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const std::string block(16 * 1024, 'a');
    while (written < kTotal && !stop) {
      const ssize_t n = ::write(e.peer.to_us, block.data(), block.size());
      if (n > 0) {
        written += static_cast<std::size_t>(n);
      } else if (errno == EAGAIN) {
        pollfd p{e.peer.to_us, POLLOUT, 0};
        ::poll(&p, 1, 5);
      } else {
        return;
      }
    }
  });
  auto got = e.channel->receive(in(2s));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::malformed);
  EXPECT_EQ(got.error().detail, "message larger than 1048576 bytes");
  std::this_thread::sleep_for(30ms);
  // The channel stopped reading: the writer is stuck short of its 2 MiB.
  EXPECT_LT(written.load(), kTotal);
  stop = true;
  writer.join();
}

TEST_P(FdChannelTest, NoNewlineTimesOutAsLinesButIsAValue) {
  {
    Ends e = make_ends(GetParam(), Framing::lines);
    e.peer.write("{\"a\":1}");
    auto got = e.channel->receive(in(30ms));
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().why, Why::timeout);
  }
  {
    Ends e = make_ends(GetParam(), Framing::values);
    e.peer.write("{\"a\":1}[\"setup\",[]]\"pass\" 42");
    EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), (Json{{"a", 1}}));
    EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), Json::parse("[\"setup\",[]]"));
    EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), "pass");
    // A bare number may go on: it needs the whitespace after it.
    auto number = e.channel->receive(in(30ms));
    ASSERT_FALSE(number);
    EXPECT_EQ(number.error().why, Why::timeout);
    e.peer.write(" ");
    EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), 42);
  }
}

TEST_P(FdChannelTest, ValuesFramingSendsWhatItReceives) {
  Ends e = make_ends(GetParam(), Framing::values);
  ASSERT_TRUE(e.channel->send(Json::array({"new_tiles", Json::array()}), in(100ms)));
  char buf[64] = {};
  const ssize_t n = ::read(e.peer.from_us, buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "[\"new_tiles\",[]]\n");
}

TEST_P(FdChannelTest, SendTimesOutWhenThePeerNeverReads) {
  Ends e = make_ends(GetParam());
  const Json chunk = std::string(16 * 1024, 'z');  // quick to encode even unoptimised
  const auto start = std::chrono::steady_clock::now();
  const Deadline deadline = in(50ms);
  ChannelResult<void> sent;
  for (int i = 0; i < 1000 && sent; ++i) sent = e.channel->send(chunk, deadline);
  const Ms took = since(start);
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().why, Why::timeout);
  EXPECT_GE(took, 50ms);
  EXPECT_LT(took, 100ms);
  EXPECT_FALSE(e.channel->send(1, in(20ms)));
}

TEST_P(FdChannelTest, SendToAPeerThatClosedIsHangUp) {
  Ends e = make_ends(GetParam());
  e.peer.close();
  auto sent = e.channel->send("hello", in(100ms));
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().why, Why::hang_up);
}

TEST_P(FdChannelTest, CloseFromAnotherThreadUnblocksReceive) {
  Ends e = make_ends(GetParam());
  std::thread closer([&e] {
    std::this_thread::sleep_for(20ms);
    e.channel->close();
  });
  const auto start = std::chrono::steady_clock::now();
  auto got = e.channel->receive(in(5s));
  const Ms took = since(start);
  closer.join();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  EXPECT_LT(took, 200ms);
  // The descriptors are really closed once the call returned: the peer sees end of input.
  char c;
  EXPECT_EQ(::read(e.peer.from_us, &c, 1), 0);
}

TEST_P(FdChannelTest, CloseIsIdempotentAndFinal) {
  Ends e = make_ends(GetParam());
  e.peer.write("1\n");
  e.channel->close();
  e.channel->close();
  EXPECT_EQ(e.channel->receive(in(50ms)).error().why, Why::hang_up);
  EXPECT_EQ(e.channel->try_receive().error().why, Why::hang_up);
  EXPECT_EQ(e.channel->send(1, in(50ms)).error().why, Why::hang_up);
  // End of input; a socket closed with unread data says so with a reset instead.
  char c;
  const ssize_t n = ::read(e.peer.from_us, &c, 1);
  EXPECT_TRUE(n == 0 || (n < 0 && errno == ECONNRESET)) << n << " " << errno;
}

TEST_P(FdChannelTest, CloseWriteIsEndOfInputForThePeerOnly) {
  Ends e = make_ends(GetParam());
  ASSERT_TRUE(e.channel->send("bye", in(100ms)));
  e.channel->close_write();
  std::string seen;
  char buf[64];
  ssize_t n;
  while ((n = ::read(e.peer.from_us, buf, sizeof buf)) > 0) seen.append(buf, n);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(seen, "\"bye\"\n");
  EXPECT_EQ(e.channel->send(1, in(50ms)).error().why, Why::hang_up);
  e.peer.write("\"still here\"\n");
  EXPECT_EQ(e.channel->receive(in(100ms)).value_or(0), "still here");
}

INSTANTIATE_TEST_SUITE_P(Transports, FdChannelTest, testing::Values(Kind::pipes, Kind::sockets),
                         [](const auto& info) {
                           return info.param == Kind::pipes ? "Pipes" : "Sockets";
                         });

}  // namespace
}  // namespace arbiter
