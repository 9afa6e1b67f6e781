// Tests of TcpListener and tcp_connect on the loopback interface.
#include "remote/tcp.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/timing_test.h"

#include "remote/fd_channel.h"

namespace arbiter {
namespace {

using namespace testing_time;

struct Connection {
  std::unique_ptr<Channel> client;
  std::unique_ptr<Channel> server;
};

Connection connect_through(TcpListener& listener, const std::string& host,
                           Framing framing = Framing::lines) {
  Connection c;
  auto client = tcp_connect(host, listener.port(), in(500ms), framing);
  EXPECT_TRUE(client) << client.error().message;
  if (!client) return c;
  c.client = std::move(*client);
  auto server = listener.accept(in(500ms), framing);
  EXPECT_TRUE(server && *server);
  if (server && *server) c.server = std::move(**server);
  return c;
}

TEST(Tcp, ListenOnAFreePortConnectAndExchange) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener) << listener.error().message;
  ASSERT_NE((*listener)->port(), 0);
  Connection c = connect_through(**listener, "127.0.0.1");
  ASSERT_TRUE(c.client && c.server);
  EXPECT_EQ(c.client->describe(), "tcp 127.0.0.1:" + std::to_string((*listener)->port()));
  EXPECT_TRUE(c.server->describe().starts_with("tcp 127.0.0.1:"));

  std::thread echo([&c] {
    auto request = c.server->receive(in(500ms));
    if (request) (void)c.server->send(Json{{"got", *request}}, in(500ms));
  });
  auto reply = c.client->exchange(Json::array({"setup", {1, 2}}), in(500ms));
  echo.join();
  ASSERT_TRUE(reply) << reply.error().detail;
  EXPECT_EQ(*reply, (Json{{"got", {"setup", {1, 2}}}}));
}

TEST(Tcp, LocalhostAndValuesFraming) {
  auto listener = TcpListener::listen("localhost", 0);
  ASSERT_TRUE(listener) << listener.error().message;
  Connection c = connect_through(**listener, "localhost", Framing::values);
  ASSERT_TRUE(c.client && c.server);
  ASSERT_TRUE(c.client->send("pass", in(100ms)));
  ASSERT_TRUE(c.client->send(Json::array({"replace"}), in(100ms)));
  EXPECT_EQ(c.server->receive(in(200ms)).value_or(0), "pass");
  EXPECT_EQ(c.server->receive(in(200ms)).value_or(0), Json::array({"replace"}));
}

TEST(Tcp, AnyAddress) {
  auto listener = TcpListener::listen("0.0.0.0", 0);
  ASSERT_TRUE(listener) << listener.error().message;
  Connection c = connect_through(**listener, "127.0.0.1");
  ASSERT_TRUE(c.client && c.server);
}

TEST(Tcp, AcceptTimesOut) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  const auto start = std::chrono::steady_clock::now();
  auto none = (*listener)->accept(in(30ms), Framing::lines);
  const Ms took = since(start);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(*none);
  EXPECT_GE(took, 30ms);
  EXPECT_LT(took, 80ms);
}

TEST(Tcp, AcceptOnAClosedListenerFails) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  (*listener)->close();
  EXPECT_FALSE((*listener)->accept(in(30ms), Framing::lines));
}

TEST(Tcp, ConnectToAClosedPortFails) {
  std::uint16_t port;
  {
    auto listener = TcpListener::listen("127.0.0.1", 0);
    ASSERT_TRUE(listener);
    port = (*listener)->port();
  }
  const auto start = std::chrono::steady_clock::now();
  auto client = tcp_connect("127.0.0.1", port, in(500ms), Framing::lines);
  ASSERT_FALSE(client);
  EXPECT_TRUE(client.error().message.starts_with("cannot connect to 127.0.0.1:"))
      << client.error().message;
  EXPECT_LT(since(start), 100ms);
}

TEST(Tcp, ListenOnABusyPortFails) {
  auto first = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(first);
  auto second = TcpListener::listen("127.0.0.1", (*first)->port());
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("cannot listen on"), std::string::npos);
}

TEST(Tcp, HalfCloseIsHangUpAfterTheData) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  Connection c = connect_through(**listener, "127.0.0.1");
  ASSERT_TRUE(c.client && c.server);
  ASSERT_TRUE(c.client->send(1, in(100ms)));
  ASSERT_TRUE(c.client->send(2, in(100ms)));
  auto* client = dynamic_cast<FdChannel*>(c.client.get());
  ASSERT_NE(client, nullptr);
  client->close_write();
  EXPECT_EQ(c.server->receive(in(200ms)).value_or(0), 1);
  EXPECT_EQ(c.server->receive(in(200ms)).value_or(0), 2);
  auto end = c.server->receive(in(200ms));
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().why, Why::hang_up);
  // The other direction still works.
  ASSERT_TRUE(c.server->send("last word", in(100ms)));
  EXPECT_EQ(c.client->receive(in(200ms)).value_or(0), "last word");
}

TEST(Tcp, PeerThatGoesAwayIsHangUp) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  Connection c = connect_through(**listener, "127.0.0.1");
  ASSERT_TRUE(c.client && c.server);
  c.client.reset();
  auto got = c.server->receive(in(200ms));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  // Writing into a reset connection: hang_up, and no SIGPIPE (MSG_NOSIGNAL).
  ChannelResult<void> sent;
  for (int i = 0; i < 10 && sent; ++i) sent = c.server->send(std::string(1000, 'x'), in(100ms));
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().why, Why::hang_up);
}

// --- SignUpDesk: concurrent sign-up ---

std::vector<std::unique_ptr<Channel>> idle_clients(const TcpListener& listener, int n) {
  std::vector<std::unique_ptr<Channel>> clients;
  for (int i = 0; i < n; ++i) {
    auto c = tcp_connect("127.0.0.1", listener.port(), in(500ms), Framing::lines);
    EXPECT_TRUE(c) << c.error().message;
    if (c) clients.push_back(std::move(*c));
  }
  return clients;
}

std::unique_ptr<Channel> client(const TcpListener& listener) {
  auto c = tcp_connect("127.0.0.1", listener.port(), in(500ms), Framing::lines);
  EXPECT_TRUE(c) << c.error().message;
  return c ? std::move(*c) : nullptr;
}

// The next arrival that is a sign-up message (dropped and late connections are skipped).
std::optional<SignUpDesk::Arrival> next_hello(SignUpDesk& desk, const Deadline& deadline) {
  for (;;) {
    auto arrival = desk.next(deadline);
    EXPECT_TRUE(arrival) << arrival.error().message;
    if (!arrival || !*arrival) return std::nullopt;
    if ((*arrival)->hello) return std::move(**arrival);
  }
}

TEST(SignUpDesk, IdleConnectionsDoNotDelayAPromptOne) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 2s});
  auto idle = idle_clients(**listener, 12);  // within the 16 one address may have pending
  auto prompt = client(**listener);
  ASSERT_TRUE(prompt);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(prompt->send("token", in(100ms)));
  auto got = next_hello(desk, in(1s));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got->hello, "token");
  EXPECT_LT(since(start), 100ms);
  EXPECT_EQ(desk.pending(), 12u);
  // The signed-up channel is the client's connection.
  ASSERT_TRUE(got->channel->send("welcome", in(100ms)));
  EXPECT_EQ(prompt->receive(in(200ms)).value_or(0), "welcome");
}

TEST(SignUpDesk, ASlowWriterGetsInAndDelaysNobody) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 2s});
  auto slow = client(**listener);
  auto fast = client(**listener);
  ASSERT_TRUE(slow && fast);
  auto* slow_fd = dynamic_cast<FdChannel*>(slow.get());
  ASSERT_NE(slow_fd, nullptr);
  std::thread dribble([slow_fd] {
    for (char c : std::string("\"slow\"\n")) {
      (void)slow_fd->send_text(std::string(1, c), in(100ms));
      std::this_thread::sleep_for(20ms);
    }
  });
  std::this_thread::sleep_for(30ms);  // the slow writer has begun
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(fast->send("fast", in(100ms)));
  auto first = next_hello(desk, in(1s));
  const Ms fast_took = since(start);
  auto second = next_hello(desk, in(1s));
  dribble.join();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first->hello, "fast");
  EXPECT_LT(fast_took, 50ms);
  EXPECT_EQ(*second->hello, "slow");
  // The order of connecting is kept, for whoever seats by it.
  EXPECT_EQ(first->number, 1u);
  EXPECT_EQ(second->number, 0u);
}

TEST(SignUpDesk, AWrongTokenIsJudgedAtOnceDespiteIdleConnections) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 2s});
  auto idle = idle_clients(**listener, 10);
  auto wrong = client(**listener);
  ASSERT_TRUE(wrong);
  const std::string token = make_token("a");
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(wrong->send(make_token("a"), in(100ms)));
  auto got = next_hello(desk, in(1s));
  ASSERT_TRUE(got && got->hello->is_string());
  EXPECT_FALSE(tokens_match(token, got->hello->get<std::string>()));
  ASSERT_TRUE(got->channel->send(Json::array({"refused", {"no tcp seat has this token"}}),
                                 in(100ms)));
  got->channel->close();
  EXPECT_EQ(wrong->receive(in(200ms)).value_or(0),
            Json::array({"refused", {"no tcp seat has this token"}}));
  EXPECT_LT(since(start), 100ms);
}

TEST(SignUpDesk, EachConnectionHasItsOwnWait) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 150ms});
  const auto start = std::chrono::steady_clock::now();
  auto first = client(**listener);
  // The desk accepts while it waits; the second connection comes 60 ms after the first.
  auto none = desk.next(in(60ms));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto second = client(**listener);
  auto late = desk.next(in(1s));
  const Ms first_out = since(start);
  ASSERT_TRUE(late && *late);
  ASSERT_FALSE((*late)->hello);
  EXPECT_EQ((*late)->hello.error().why, Why::timeout);
  EXPECT_EQ((*late)->hello.error().detail, "no sign-up within 150 ms");
  auto later = desk.next(in(1s));
  const Ms second_out = since(start);
  ASSERT_TRUE(later && *later);
  ASSERT_FALSE((*later)->hello);
  EXPECT_GE(first_out, 150ms);
  EXPECT_LT(first_out, 200ms);
  EXPECT_GE(second_out - first_out, 40ms);
  EXPECT_LT(second_out, 260ms);
  EXPECT_EQ(desk.pending(), 0u);
}

TEST(SignUpDesk, AHangUpOrGarbageIsDoneAtOnce) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 2s});
  auto gone = client(**listener);
  auto garbage = client(**listener);
  ASSERT_TRUE(gone && garbage);
  const auto start = std::chrono::steady_clock::now();
  gone.reset();
  ASSERT_TRUE(dynamic_cast<FdChannel&>(*garbage).send_text("\x01 not json\n", in(100ms)));
  std::vector<Why> whys;
  for (int i = 0; i < 2; ++i) {
    auto arrival = desk.next(in(1s));
    ASSERT_TRUE(arrival && *arrival);
    ASSERT_FALSE((*arrival)->hello);
    whys.push_back((*arrival)->hello.error().why);
  }
  std::sort(whys.begin(), whys.end());
  EXPECT_EQ(whys, (std::vector<Why>{std::min(Why::malformed, Why::hang_up),
                                    std::max(Why::malformed, Why::hang_up)}));
  EXPECT_LT(since(start), 100ms);
}

TEST(SignUpDesk, WhenFullTheConnectionSilentLongestMakesRoom) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines,
                  {.wait = 2s, .max_pending = 3, .max_pending_per_host = 3});
  auto a = client(**listener);
  ASSERT_TRUE(desk.next(in(30ms)));  // accepts a
  auto b = client(**listener);
  ASSERT_TRUE(desk.next(in(30ms)));  // accepts b
  auto c = client(**listener);
  ASSERT_TRUE(desk.next(in(30ms)));  // accepts c
  // a writes part of its sign-up: now b has been silent the longest.
  ASSERT_TRUE(dynamic_cast<FdChannel&>(*a).send_text("\"a", in(100ms)));
  ASSERT_TRUE(desk.next(in(30ms)));
  EXPECT_EQ(desk.pending(), 3u);
  auto d = client(**listener);
  auto dropped = desk.next(in(1s));
  ASSERT_TRUE(dropped && *dropped);
  ASSERT_FALSE((*dropped)->hello);
  EXPECT_EQ((*dropped)->hello.error().why, Why::timeout);
  EXPECT_TRUE((*dropped)->hello.error().detail.starts_with("dropped to make room: 3 connections"))
      << (*dropped)->hello.error().detail;
  EXPECT_EQ(desk.pending(), 3u);
  // It was b: b's connection is closed by the desk's owner, and b sees it.
  (*dropped)->channel->close();
  auto b_end = b->receive(in(200ms));
  ASSERT_FALSE(b_end);
  EXPECT_EQ(b_end.error().why, Why::hang_up);
  // a, c and d are still pending and can sign up.
  ASSERT_TRUE(dynamic_cast<FdChannel&>(*a).send_text("\"\n", in(100ms)));
  ASSERT_TRUE(d->send("d", in(100ms)));
  ASSERT_TRUE(c->send("c", in(100ms)));
  std::vector<Json> hellos;
  for (int i = 0; i < 3; ++i) {
    auto got = next_hello(desk, in(1s));
    ASSERT_TRUE(got);
    hellos.push_back(*got->hello);
  }
  std::sort(hellos.begin(), hellos.end());
  EXPECT_EQ(hellos, (std::vector<Json>{"a", "c", "d"}));
}

TEST(SignUpDesk, AHundredIdleConnectionsFromOneAddressCannotKeepAPromptClientOut) {
  auto listener = TcpListener::listen("127.0.0.1", 0);
  ASSERT_TRUE(listener);
  SignUpDesk desk(**listener, Framing::lines, {.wait = 5s});  // 64 pending, 16 per address
  auto idle = idle_clients(**listener, 100);
  // Let the desk take them all in (each beyond 16 pushes out an older one).
  int dropped = 0;
  for (;;) {
    auto arrival = desk.next(in(100ms));
    ASSERT_TRUE(arrival);
    if (!*arrival) break;
    ASSERT_FALSE((*arrival)->hello);
    ++dropped;
  }
  EXPECT_EQ(dropped, 100 - 16);
  EXPECT_EQ(desk.pending(), 16u);
  const auto start = std::chrono::steady_clock::now();
  auto prompt = client(**listener);
  ASSERT_TRUE(prompt);
  ASSERT_TRUE(prompt->send("token", in(100ms)));
  auto got = next_hello(desk, in(1s));
  ASSERT_TRUE(got);
  EXPECT_EQ(*got->hello, "token");
  EXPECT_LT(since(start), 100ms);
}

}  // namespace
}  // namespace arbiter
