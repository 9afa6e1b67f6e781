// Authors' tokens on a real store (league/authors.h): a token logs its author in and nothing
// else does: not a changed secret, another author's name, a revoked author, a malformed token;
// the store holds no token; constant-time comparison agrees with ==.
#include "league/authors.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace arbiter::league {
namespace {

class AuthorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/arbiter-authors-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = tournament::open_store("sqlite:" + dir_ + "/s.db");
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::optional<tournament::Author> login(std::string_view token) {
    auto who = authenticate(*store_, token);
    EXPECT_TRUE(who) << who.error().message;
    return who ? *who : std::nullopt;
  }

  std::string dir_;
  std::unique_ptr<tournament::Store> store_;
};

TEST_F(AuthorsTest, ATokenLogsInItsAuthorOnly) {
  auto ann = add_author(*store_, "ann", "author");
  ASSERT_TRUE(ann) << ann.error().message;
  auto org = add_author(*store_, "org", "organizer");
  ASSERT_TRUE(org);
  EXPECT_EQ(ann->token.substr(0, 4), "ann.");
  EXPECT_EQ(ann->token.size(), 4u + 64u);
  EXPECT_NE(ann->token.substr(4), org->token.substr(4));

  auto in = login(ann->token);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->name, "ann");
  EXPECT_EQ(in->role, "author");
  EXPECT_EQ(login(org->token)->role, "organizer");

  std::string changed = ann->token;
  changed.back() = changed.back() == '0' ? '1' : '0';
  EXPECT_FALSE(login(changed));
  // ann's secret under org's name, and the other way round.
  EXPECT_FALSE(login("org." + ann->token.substr(4)));
  EXPECT_FALSE(login("ann." + org->token.substr(4)));
  for (const std::string& bad : std::vector<std::string>{
           "", ".", "ann", "ann.", ".deadbeef", "nobody." + ann->token.substr(4), ann->token + "0",
           ann->token.substr(0, ann->token.size() - 1), "an n." + ann->token.substr(4),
           "ann." + std::string(64, 'G'), "ann.." + ann->token.substr(5)})
    EXPECT_FALSE(login(bad)) << bad;
}

TEST_F(AuthorsTest, ARevokedTokenLogsInNoMore) {
  auto ann = add_author(*store_, "ann", "author");
  ASSERT_TRUE(ann);
  ASSERT_TRUE(login(ann->token));
  ASSERT_TRUE(store_->revoke_author("ann").value());
  EXPECT_FALSE(login(ann->token));
  auto again = add_author(*store_, "ann", "author");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("exists already"), std::string::npos);
}

TEST_F(AuthorsTest, NamesAndRolesAreChecked) {
  for (const std::string& bad :
       std::vector<std::string>{"", "a.b", "has space", "x_y", std::string(21, 'a')}) {
    auto made = add_author(*store_, bad, "author");
    ASSERT_FALSE(made) << bad;
    EXPECT_NE(made.error().message.find("1 to 20 ASCII letters or digits"), std::string::npos);
  }
  auto role = add_author(*store_, "ann", "admin");
  ASSERT_FALSE(role);
  EXPECT_NE(role.error().message.find("author or organizer"), std::string::npos);
  EXPECT_TRUE(store_->authors()->empty());
}

TEST_F(AuthorsTest, TheStoreKeepsNoToken) {
  auto ann = add_author(*store_, "ann", "author");
  ASSERT_TRUE(ann);
  store_.reset();  // the file is whole on disk
  std::ifstream in(dir_ + "/s.db", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::ifstream wal(dir_ + "/s.db-wal", std::ios::binary);
  bytes << wal.rdbuf();
  EXPECT_EQ(bytes.str().find(ann->token.substr(4)), std::string::npos);
}

TEST(SameBytes, AgreesWithEquality) {
  EXPECT_TRUE(same_bytes("", ""));
  EXPECT_TRUE(same_bytes("abc", "abc"));
  EXPECT_FALSE(same_bytes("abc", "abd"));
  EXPECT_FALSE(same_bytes("abc", "ab"));
  EXPECT_FALSE(same_bytes(std::string("a\0b", 3), std::string("a\0c", 3)));
}

}  // namespace
}  // namespace arbiter::league
