// Tests of TcpListener and tcp_connect on the loopback interface.
#include "remote/tcp.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "remote/timing_test.h"

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

}  // namespace
}  // namespace arbiter
