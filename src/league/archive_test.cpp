#include "league/archive.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <tuple>

#include <gtest/gtest.h>

namespace arbiter::league {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/arbiter-archive-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text, bool exec = false) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  fs::permissions(p, exec ? fs::perms(0755) : fs::perms(0644));
}

Tree sample(const fs::path& dir) {
  write(dir / "arbiter-bot.toml", "name = \"alice\"\n");
  write(dir / "bot.py", "print(1)\n", true);
  write(dir / "lib" / "util.py", "X = 1\n");
  fs::create_symlink("lib/util.py", dir / "util.py");
  auto tree = read_directory(dir);
  EXPECT_TRUE(tree) << tree.error().message;
  return *tree;
}

TEST(Archive, ADirectoryIsReadSortedWithItsModesAndLinks) {
  TempDir t;
  const Tree tree = sample(t.path);
  std::string paths;
  for (const auto& e : tree.entries) paths += e.path + " ";
  EXPECT_EQ(paths, "arbiter-bot.toml bot.py lib lib/util.py util.py ");
  EXPECT_TRUE(tree.find("bot.py")->executable);
  EXPECT_FALSE(tree.find("lib/util.py")->executable);
  EXPECT_EQ(tree.find("util.py")->kind, TreeEntry::Kind::symlink);
  EXPECT_EQ(tree.bytes(), 30u);
}

TEST(Archive, ThePackedTreeReadsBackToTheSameHashWhateverTheDiskSays) {
  TempDir a, b;
  const Tree first = sample(a.path);
  const Tree second = sample(b.path);
  // Other times and other write orders on disk give the same canonical bytes.
  fs::last_write_time(b.path / "bot.py", fs::file_time_type::clock::now() - std::chrono::hours(5));
  EXPECT_EQ(content_hash(first), content_hash(*read_directory(b.path)));
  auto back = read_archive(pack(first));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(content_hash(*back), content_hash(second));
  EXPECT_EQ(content_hash(first).size(), 7u + 64u);
}

TEST(Archive, UnpackWritesTheTreeAndNothingElse) {
  TempDir t, out;
  const Tree tree = sample(t.path);
  const fs::path dir = out.path / "bot";
  ASSERT_TRUE(unpack(tree, dir));
  EXPECT_EQ(content_hash(*read_directory(dir)), content_hash(tree));
  struct stat st {};
  ASSERT_EQ(::stat((dir / "bot.py").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  // Into a directory that exists: refused, nothing changed.
  EXPECT_FALSE(unpack(tree, dir));
}

TEST(Archive, ALongPathSurvivesTheUstarPrefix) {
  TempDir t;
  std::string deep(90, 'a');
  deep.append("/").append(90, 'b').append("/f.txt");
  write(t.path / deep, "x");
  auto tree = read_directory(t.path);
  ASSERT_TRUE(tree);
  auto back = read_archive(pack(*tree));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_NE(back->find(deep), nullptr);
  EXPECT_EQ(back->find(deep)->data, "x");
}

TEST(Archive, DirectoryRefusals) {
  {
    TempDir t;
    write(t.path / "a.txt", "x");
    fs::create_symlink("../../etc/passwd", t.path / "out");
    auto tree = read_directory(t.path);
    ASSERT_FALSE(tree);
    EXPECT_NE(tree.error().message.find("a link out of the bot's files"), std::string::npos)
        << tree.error().message;
  }
  {
    TempDir t;
    fs::create_symlink("/etc/passwd", t.path / "abs");
    EXPECT_FALSE(read_directory(t.path));
  }
  {
    TempDir t;
    ASSERT_EQ(::mkfifo((t.path / "pipe").c_str(), 0644), 0);
    auto tree = read_directory(t.path);
    ASSERT_FALSE(tree);
    EXPECT_NE(tree.error().message.find("not a file"), std::string::npos);
  }
  {
    TempDir t;
    write(t.path / "big", std::string(5000, 'x'));
    auto tree = read_directory(t.path, ArchiveCaps{.unpacked_bytes = 4096});
    ASSERT_FALSE(tree);
  }
  {
    TempDir t;
    for (int i = 0; i < 12; ++i) write(t.path / ("f" + std::to_string(i)), "x");
    auto tree = read_directory(t.path, ArchiveCaps{.files = 10});
    ASSERT_FALSE(tree);
    EXPECT_NE(tree.error().message.find("more than 10 files"), std::string::npos);
  }
}

TEST(Archive, AGzipBombIsRefusedBeforeItIsUnpackedWhole) {
  Tree tree;
  TreeEntry zeros;
  zeros.path = "zeros";
  zeros.data.assign(64u << 20, '\0');
  tree.entries.push_back(std::move(zeros));
  const std::string packed = pack(tree);
  ASSERT_LT(packed.size(), 1u << 20);
  auto back = read_archive(packed);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("compression bomb"), std::string::npos)
      << back.error().message;
}

// A tar of `entries` (path, type, data, link target), written by libarchive as GNU tar does.
std::string tar_of(
    const std::vector<std::tuple<std::string, char, std::string, std::string>>& entries) {
  // Written by hand (ustar with the GNU long-name extension for long paths), so that a test can
  // make what no well-behaved tool would.
  std::string out;
  const auto put = [&](const std::string& name, char type, const std::string& data,
                       const std::string& link) {
    char h[512] = {};
    std::copy_n(name.begin(), std::min<std::size_t>(name.size(), 100), h);
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    std::snprintf(h + 124, 12, "%011o", static_cast<unsigned>(data.size()));
    std::snprintf(h + 136, 12, "%011o", 0);
    h[156] = type;
    std::copy_n(link.begin(), std::min<std::size_t>(link.size(), 100), h + 157);
    std::copy_n("ustar  ", 8, h + 257);
    std::fill_n(h + 148, 8, ' ');
    unsigned sum = 0;
    for (char c : h) sum += static_cast<unsigned char>(c);
    std::snprintf(h + 148, 8, "%06o", sum);
    out.append(h, 512);
    out += data;
    out.append((512 - data.size() % 512) % 512, '\0');
  };
  for (const auto& [name, type, data, link] : entries) {
    if (name.size() > 100) put("././@LongLink", 'L', name + '\0', "");
    put(name, type, data, link);
  }
  out.append(1024, '\0');
  return out;
}

TEST(Archive, ANameNoUstarHeaderHoldsIsRefusedAndOneThatSplitsRoundTrips) {
  const std::string unsplittable(200, 'B');
  auto refused = read_archive(tar_of({{unsplittable, '0', "x", ""}}));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("over 99 bytes"), std::string::npos);
  EXPECT_FALSE(read_archive(tar_of({{"d/" + std::string(150, 'x'), '0', "x", ""}})));
  std::string splits(90, 'a');
  splits += "/" + std::string(60, 'c') + "/" + std::string(80, 'b');
  auto tree = read_archive(tar_of({{splits, '0', "x", ""}}));
  ASSERT_TRUE(tree) << tree.error().message;
  auto back = read_archive(pack(*tree));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(content_hash(*back), content_hash(*tree));
  EXPECT_NE(back->find(splits), nullptr);
}

TEST(Archive, ALinkIsJudgedWhereItEndsUpOnceTheTopDirectoryIsTakenOff) {
  const auto tree = read_archive(
      tar_of({{"top/arbiter-bot.toml", '0', "name = 1", ""}, {"top/up", '2', "", ".."}}));
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().message.find("a link out"), std::string::npos) << tree.error().message;
}

TEST(Archive, ALinkThroughAnotherLinkIsRefused) {
  // "x -> ." makes x/x/x/../../../.. five levels up, while the text seems to climb three of four.
  const auto chained = read_archive(tar_of({{"arbiter-bot.toml", '0', "name = 1", ""},
                                            {"d/x", '2', "", "."},
                                            {"d/y", '2', "", "x/x/x/../../../../etc/passwd"}}));
  ASSERT_FALSE(chained);
  EXPECT_NE(chained.error().message.find("through another link"), std::string::npos)
      << chained.error().message;
  // A link to a link, and links through real directories, stay allowed.
  const auto fine = read_archive(tar_of({{"arbiter-bot.toml", '0', "name = 1", ""},
                                         {"d/e/f", '0', "x", ""},
                                         {"d/to-f", '2', "", "e/f"},
                                         {"d/to-to-f", '2', "", "to-f"},
                                         {"up", '2', "", "d/e/../e/f"}}));
  ASSERT_TRUE(fine) << fine.error().message;
}

TEST(Archive, HardLinksToOneBigFileAreABombToo) {
  std::vector<std::tuple<std::string, char, std::string, std::string>> entries{
      {"big", '0', std::string(1 << 20, '\0'), ""}};
  for (int i = 0; i < 200; ++i) entries.push_back({"copy" + std::to_string(i), '1', "", "big"});
  TempDir t;
  const std::string tar = tar_of(entries);
  // Packed small, as an attacker would send it.
  Tree carrier;
  TreeEntry e;
  e.path = "x";
  carrier.entries.push_back(e);
  auto tree = read_archive(tar);  // plain tar: its size is its content, so the ratio is small
  ASSERT_FALSE(tree);             // 201 MiB of copies: over the ratio of the 1 MiB tar
  EXPECT_NE(tree.error().message.find("compression bomb"), std::string::npos)
      << tree.error().message;
}

TEST(Archive, NotAnArchiveIsOneLine) {
  auto back = read_archive("hello, this is not a tarball at all");
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace arbiter::league
