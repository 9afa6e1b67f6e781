#include "league/bots.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace arbiter::league {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  fs::path dir;
  std::unique_ptr<tournament::Store> store;
  tournament::BotVersion version;

  Fixture() {
    char tmpl[] = "/tmp/arbiter-bots-test-XXXXXX";
    dir = ::mkdtemp(tmpl);
    auto opened = tournament::open_store("sqlite:" + (dir / "s.db").string());
    EXPECT_TRUE(opened) << opened.error().message;
    store = std::move(*opened);
    fs::create_directories(dir / "bot");
    std::ofstream(dir / "bot" / "arbiter-bot.toml")
        << "name = \"alice\"\ngame = \"battleship\"\nrun = [\"python3\", \"bot.py\"]\n";
    std::ofstream(dir / "bot" / "bot.py") << "print('hello')\n";
    AddOptions options;  // no gate: these tests are about the store and the cache
    options.cache = dir / "cache";
    auto added = add_bot(*store, dir / "bot", options);
    EXPECT_TRUE(added) << added.error().message;
    version = *added;
  }
  ~Fixture() { fs::remove_all(dir); }
};

TEST(StoreShelf, ACacheThatDoesNotMatchItsHashIsFetchedAgain) {
  Fixture f;
  ASSERT_EQ(f.version.status, "active");
  const fs::path cache = f.dir / "worker-cache";
  {
    StoreShelf shelf(*f.store, cache);
    auto dir = shelf.open(f.version.artifact);
    ASSERT_TRUE(dir) << dir.error().message;
    std::ofstream(*dir / "bot.py", std::ios::app) << "import os; os.system('evil')\n";
  }
  StoreShelf fresh(*f.store, cache);  // another worker process
  auto dir = fresh.open(f.version.artifact);
  ASSERT_TRUE(dir);
  auto tree = read_directory(*dir);
  ASSERT_TRUE(tree);
  EXPECT_EQ(content_hash(*tree), f.version.artifact);
  EXPECT_EQ(fs::status(cache).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST(StoreShelf, ALinkInPlaceOfACachedTreeIsReplaced) {
  Fixture f;
  const fs::path cache = f.dir / "worker-cache";
  fs::create_directories(cache);
  fs::create_directories(f.dir / "elsewhere");
  std::ofstream(f.dir / "elsewhere" / "bot.py") << "print('not the bot')\n";
  const std::string hex = f.version.artifact.substr(7);
  fs::create_directory_symlink(f.dir / "elsewhere", cache / hex);
  StoreShelf shelf(*f.store, cache);
  auto dir = shelf.open(f.version.artifact);
  ASSERT_TRUE(dir) << dir.error().message;
  EXPECT_FALSE(fs::is_symlink(*dir));
  EXPECT_EQ(content_hash(*read_directory(*dir)), f.version.artifact);
}

TEST(StoreShelf, OnlyAnActiveVersionPlaysAndARetiredOneOnlyWherePinned) {
  Fixture f;
  StoreShelf shelf(*f.store, f.dir / "cache");
  const StoredBotRef ref{"alice", 1};
  auto taken = shelf.take(ref, "", ProgramTerms{});
  ASSERT_TRUE(taken) << taken.error().message;
  EXPECT_EQ(taken->label, "alice@1");
  EXPECT_EQ(taken->argv, (std::vector<std::string>{"python3", "bot.py"}));
  EXPECT_FALSE(
      shelf.take(ref, "sha256:" + std::string(64, '0'), ProgramTerms{}));  // pinned elsewhere
  ASSERT_TRUE(f.store->set_bot_status("alice", 1, "retired", "old"));
  EXPECT_FALSE(shelf.take(ref, "", ProgramTerms{}));
  EXPECT_TRUE(shelf.take(ref, f.version.artifact, ProgramTerms{}));
  ASSERT_TRUE(f.store->set_bot_status("alice", 1, "checking", ""));
  auto checking = shelf.take(ref, f.version.artifact, ProgramTerms{});
  ASSERT_FALSE(checking);
  EXPECT_NE(checking.error().message.find("it is checking"), std::string::npos);
}

TEST(StoreShelf, DamagedBlobsAreNeverUnpacked) {
  Fixture f;
  const std::string other = "sha256:" + std::string(64, 'b');
  ASSERT_TRUE(f.store->put_blob(other, *f.store->blob(f.version.artifact).value()));
  StoreShelf shelf(*f.store, f.dir / "cache2");
  auto dir = shelf.open(other);
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message.find("damaged"), std::string::npos) << dir.error().message;
  EXPECT_FALSE(fs::exists(f.dir / "cache2" / std::string(64, 'b')));
}

}  // namespace
}  // namespace arbiter::league
