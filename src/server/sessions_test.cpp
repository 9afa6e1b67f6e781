// The session book (server/sessions.h) on a real store: a session finds its author until it
// expires, is closed, or its author is revoked; logins of one author push out only that
// author's oldest sessions; the oldest of all go only past the whole book's cap; an address
// whose tokens are refused 30 times in ten minutes is throttled.
#include "server/sessions.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "league/authors.h"

namespace arbiter::server {
namespace {

class SessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/arbiter-sessions-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = tournament::open_store("sqlite:" + dir_ + "/s.db");
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
    for (const char* name : {"ann", "ben", "cat"})
      tokens_[name] = league::add_author(*store_, name, "author").value().token;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  SessionBook book(std::size_t max_sessions, std::size_t per_author) {
    SessionBook::Options o;
    o.max_sessions = max_sessions;
    o.max_per_author = per_author;
    o.lifetime = std::chrono::seconds(60);
    o.now = [this] { return now_; };
    return SessionBook(*store_, o);
  }
  std::string open(SessionBook& b, const std::string& who) {
    auto o = b.open(tokens_[who], "192.0.2.1");
    EXPECT_TRUE(o && *o);
    return o && *o ? (*o)->id : std::string();
  }
  bool alive(SessionBook& b, const std::string& id) {
    auto p = b.find(id);
    return p && *p;
  }

  std::string dir_;
  std::unique_ptr<tournament::Store> store_;
  std::map<std::string, std::string> tokens_;
  SessionBook::Clock::time_point now_{};
};

TEST_F(SessionsTest, ASessionLastsUntilItExpiresIsClosedOrItsAuthorIsRevoked) {
  auto b = book(100, 10);
  const std::string ann = open(b, "ann");
  const std::string ben = open(b, "ben");
  auto who = b.find(ann).value();
  ASSERT_TRUE(who);
  EXPECT_EQ(who->name, "ann");
  EXPECT_TRUE(who->by_cookie);
  EXPECT_EQ(who->csrf.size(), 64u);
  // Another first character (a token starts with "0" one time in sixteen).
  EXPECT_FALSE(alive(b, (ann[0] == '0' ? "1" : "0") + ann.substr(1)));
  EXPECT_FALSE(b.open("ann." + std::string(64, '0'), "192.0.2.1").value());
  b.close(ben);
  EXPECT_FALSE(alive(b, ben));
  ASSERT_TRUE(store_->revoke_author("ann").value());
  EXPECT_FALSE(alive(b, ann));
  const std::string cat = open(b, "cat");
  now_ += std::chrono::seconds(61);
  EXPECT_FALSE(alive(b, cat));
}

TEST_F(SessionsTest, OneAuthorsLoginsPushOutOnlyTheirOwnSessions) {
  auto b = book(6, 2);
  const std::string cat = open(b, "cat");
  std::vector<std::string> bens;
  for (int i = 0; i < 50; ++i) bens.push_back(open(b, "ben"));
  EXPECT_TRUE(alive(b, cat));
  EXPECT_TRUE(alive(b, bens.back()));
  EXPECT_TRUE(alive(b, bens[bens.size() - 2]));
  EXPECT_FALSE(alive(b, bens[bens.size() - 3]));
}

TEST_F(SessionsTest, AnAddressThatGuessesIsThrottledForAWhileAndOthersAreNot) {
  auto b = book(100, 10);
  const std::string wrong = "ann." + std::string(64, '0');
  for (int i = 0; i < 30; ++i) {
    EXPECT_FALSE(b.throttled("192.0.2.9"));
    EXPECT_FALSE(b.bearer(wrong, "192.0.2.9").value());
  }
  EXPECT_TRUE(b.throttled("192.0.2.9"));
  EXPECT_FALSE(b.throttled("192.0.2.1"));
  EXPECT_TRUE(b.bearer(tokens_["ann"], "192.0.2.1").value());  // a good token counts nothing
  for (int i = 0; i < 40; ++i) EXPECT_TRUE(b.bearer(tokens_["ann"], "192.0.2.1").value());
  EXPECT_FALSE(b.throttled("192.0.2.1"));
  now_ += std::chrono::seconds(601);
  EXPECT_FALSE(b.throttled("192.0.2.9"));
}

TEST(CookieValue, FindsTheNamedCookieOnly) {
  EXPECT_EQ(cookie_value("a=1; arbiter_session=xyz; b=2", "arbiter_session"), "xyz");
  EXPECT_EQ(cookie_value("arbiter_sessionx=1", "arbiter_session"), "");
  EXPECT_EQ(cookie_value("", "arbiter_session"), "");
  EXPECT_EQ(cookie_value("x_arbiter_session=1;arbiter_session=2", "arbiter_session"), "2");
}

}  // namespace
}  // namespace arbiter::server
