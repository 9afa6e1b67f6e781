// Reading, checking, packing and unpacking a bot's files. libarchive only parses uploads; every
// check on what they hold is made here, the same for a directory and every archive format.
#include "league/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/file.h"
#include "core/printable.h"
#include "core/sha256.h"
#include "core/units.h"

namespace arbiter::league {
namespace {

using Kind = TreeEntry::Kind;

std::string printable_name(std::string_view name) {
  return "\"" + printable_line(name) + "\"";
}

std::unexpected<Error> fail_errno(const std::string& what) {
  return fail(fmt::format("{}: {}", printable_line(what), std::strerror(errno)));
}

// Owns a descriptor.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The checked, normal form of a path as written in an upload.
Expected<std::string> normal_path(std::string_view raw, const ArchiveCaps& caps) {
  const std::string shown = printable_name(raw);
  if (!is_utf8(raw)) return fail(fmt::format("{}: the name is not UTF-8", shown));
  if (raw.starts_with('/')) return fail(fmt::format("{}: an absolute path", shown));
  if (raw.find('\\') != std::string_view::npos)
    return fail(fmt::format("{}: a backslash in a name", shown));
  std::string out;
  std::size_t depth = 0;
  std::size_t start = 0;
  while (start <= raw.size()) {
    const std::size_t end = std::min(raw.find('/', start), raw.size());
    const std::string_view part = raw.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return fail(fmt::format("{}: a path with \"..\" in it", shown));
    if (part.size() > 99) return fail(fmt::format("{}: a name part over 99 bytes", shown));
    for (const char ch : part)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
        return fail(fmt::format("{}: a control character in a name", shown));
    if (!out.empty()) out += '/';
    out += part;
    ++depth;
  }
  if (out.empty()) return std::string();
  if (out.size() > caps.path_bytes)
    return fail(fmt::format("{}: a path longer than {} bytes", shown, caps.path_bytes));
  if (depth > caps.depth)
    return fail(fmt::format("{}: more than {} directories deep", shown, caps.depth));
  return out;
}

// Where a ustar header splits `name` (with a directory's trailing '/') into its 155-byte prefix
// and 100-byte name: 0 when it fits the name field whole, the position of the '/' that splits
// it, or nothing when no '/' does (such a name cannot be written, so it is refused when read).
std::optional<std::size_t> ustar_split(std::string_view name) {
  if (name.size() <= 100) return 0;
  // The rightmost '/' that leaves at most 155 bytes before it (and a name after it): any cut
  // further left leaves a longer rest.
  const std::size_t cut = name.rfind('/', std::min<std::size_t>(155, name.size() - 2));
  if (cut == std::string_view::npos || cut == 0 || name.size() - cut - 1 > 100) return std::nullopt;
  return cut;
}

std::string parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

// Collects entries as they are read and checks what depends on them all.
class TreeBuilder {
 public:
  explicit TreeBuilder(const ArchiveCaps& caps) : caps_(caps) {}

  Expected<void> add(std::string_view raw, Kind kind, bool executable, std::string data) {
    auto path = normal_path(raw, caps_);
    if (!path) return std::unexpected(path.error());
    if (path->empty()) {
      if (kind == Kind::directory) return {};
      return fail(fmt::format("{}: not a file name", printable_name(raw)));
    }
    if (++count_ > caps_.files) return fail(fmt::format("more than {} files", caps_.files));
    if (!ustar_split(*path + (kind == Kind::directory ? "/" : "")))
      return fail(
          fmt::format("{}: a name part over 100 bytes (a path is split at a '/' into "
                      "at most 155 and 100 bytes)",
                      printable_name(*path)));
    if (kind == Kind::file) {
      bytes_ += data.size();
      if (bytes_ > caps_.unpacked_bytes)
        return fail(
            fmt::format("more than {} of files unpacked", format_size(caps_.unpacked_bytes)));
      // Copies count too: hard links to one large file of zeros are a bomb as well.
      if (bytes_ > bomb_at_)
        return fail(fmt::format("{}: the archive unpacks to more than {} (a compression bomb)",
                                printable_name(*path), format_size(bomb_at_)));
    }
    auto [it, fresh] = entries_.try_emplace(*path);
    if (!fresh) {
      if (kind == Kind::directory && it->second.kind == Kind::directory) return {};
      return fail(fmt::format("{}: the name appears twice", printable_name(*path)));
    }
    it->second = TreeEntry{*path, kind, kind == Kind::file && executable, std::move(data)};
    return {};
  }

  // A hard link: a copy of an earlier file of the tree.
  Expected<void> add_hard_link(std::string_view raw, std::string_view target_raw) {
    auto target = normal_path(target_raw, caps_);
    if (!target) return std::unexpected(target.error());
    auto it = entries_.find(*target);
    if (it == entries_.end() || it->second.kind != Kind::file)
      return fail(fmt::format("{}: a hard link to {}, which is not a file of the bot",
                              printable_name(raw), printable_name(target_raw)));
    return add(raw, Kind::file, it->second.executable, it->second.data);
  }

  std::uint64_t bytes() const { return bytes_; }

  // The most an archive of this size may unpack to (the ratio cap); none for a directory.
  void limit_ratio(std::uint64_t bomb_at) { bomb_at_ = bomb_at; }

  Expected<Tree> finish(bool strip_single_top) {
    if (strip_single_top) strip_top();
    // Links are judged where they end up, after the top directory is taken off.
    for (const auto& [path, entry] : entries_)
      if (entry.kind == Kind::symlink)
        if (auto ok = check_link(path, entry.data); !ok) return std::unexpected(ok.error());
    // Implied directories, and no entry under a file or a link.
    std::vector<std::string> implied;
    for (const auto& [path, entry] : entries_) {
      for (std::string dir = parent_of(path); !dir.empty(); dir = parent_of(dir)) {
        auto it = entries_.find(dir);
        if (it == entries_.end()) {
          implied.push_back(dir);
          continue;
        }
        if (it->second.kind != Kind::directory)
          return fail(fmt::format("{}: inside {}, which is not a directory", printable_name(path),
                                  printable_name(dir)));
      }
    }
    for (auto& dir : implied) {
      if (!ustar_split(dir + "/"))
        return fail(
            fmt::format("{}: a directory path that no ustar header holds (at most 155 "
                        "and 100 bytes either side of a '/')",
                        printable_name(dir)));
      entries_.try_emplace(dir, TreeEntry{dir, Kind::directory, false, {}});
    }
    Tree tree;
    tree.entries.reserve(entries_.size());
    for (auto& [path, entry] : entries_) tree.entries.push_back(std::move(entry));
    // Map order puts "a" before "a-b" before "a/b"; a parent always precedes its children.
    return tree;
  }

 private:
  // A link's target, read from the link's directory, must stay inside the tree.
  Expected<void> check_link(const std::string& path, const std::string& target) {
    const std::string shown = printable_name(path);
    if (target.empty() || target.starts_with('/'))
      return fail(
          fmt::format("{}: a link out of the bot's files (to {})", shown, printable_name(target)));
    if (target.size() > 100) return fail(fmt::format("{}: a link target over 100 bytes", shown));
    if (!is_utf8(target)) return fail(fmt::format("{}: a link target that is not UTF-8", shown));
    // Walked a part at a time from the link's directory. Every part but the last must be a
    // directory of the tree, not another link: "x -> ." makes x/x/../.. climb out while its
    // text seems to stay in.
    std::vector<std::string> at;
    for (std::string dir = parent_of(path); !dir.empty(); dir = parent_of(dir))
      at.insert(at.begin(),
                dir.substr(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/') + 1));
    std::size_t start = 0;
    while (start <= target.size()) {
      const std::size_t end = std::min(target.find('/', start), target.size());
      const std::string_view part = std::string_view(target).substr(start, end - start);
      const bool last = end >= target.size();
      start = end + 1;
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (at.empty())
          return fail(fmt::format("{}: a link out of the bot's files (to {})", shown,
                                  printable_name(target)));
        at.pop_back();
        continue;
      }
      at.emplace_back(part);
      if (last) break;
      std::string walked;
      for (const auto& a : at) walked += (walked.empty() ? "" : "/") + a;
      if (auto it = entries_.find(walked); it != entries_.end() && it->second.kind == Kind::symlink)
        return fail(fmt::format("{}: a link through another link ({}): not taken", shown,
                                printable_name(walked)));
    }
    return {};
  }

  // "alice/..." for every entry: read as the tree inside alice/.
  void strip_top() {
    if (entries_.empty()) return;
    std::string top;
    for (const auto& [path, entry] : entries_) {
      const std::string first = path.substr(0, path.find('/'));
      if (top.empty()) top = first;
      if (first != top) return;
    }
    if (!entries_.contains(top + "/" + std::string(kManifestName))) return;
    std::map<std::string, TreeEntry> inner;
    for (auto& [path, entry] : entries_) {
      if (path == top) continue;
      entry.path = path.substr(top.size() + 1);
      inner.emplace(entry.path, std::move(entry));
    }
    entries_ = std::move(inner);
  }

  const ArchiveCaps& caps_;
  std::map<std::string, TreeEntry> entries_;
  std::uint64_t count_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t bomb_at_ = UINT64_MAX;
};

struct ArchiveReader {
  archive* a = archive_read_new();
  ~ArchiveReader() { archive_read_free(a); }
};

// libarchive's message, on one line (some of its messages end in a line break).
std::string archive_error(archive* a) {
  const char* e = archive_error_string(a);
  std::string text = printable_line(e != nullptr ? e : "damaged archive");
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::uint64_t Tree::bytes() const {
  std::uint64_t n = 0;
  for (const auto& e : entries)
    if (e.kind == TreeEntry::Kind::file) n += e.data.size();
  return n;
}

const TreeEntry* Tree::find(std::string_view path) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), path,
                             [](const TreeEntry& e, std::string_view p) { return e.path < p; });
  return it != entries.end() && it->path == path ? &*it : nullptr;
}

Expected<Tree> read_directory(const std::filesystem::path& dir, const ArchiveCaps& caps) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return fail(fmt::format("{}: not a directory", dir.string()));
  TreeBuilder builder(caps);
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return fail(fmt::format("{}: {}", dir.string(), ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return fail(fmt::format("{}: {}", dir.string(), ec.message()));
    const fs::path& p = it->path();
    const std::string rel = p.lexically_relative(dir).generic_string();
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return fail(fmt::format("{}: cannot be read", rel));
    if ((st.st_mode & (S_ISUID | S_ISGID)) != 0)
      return fail(fmt::format("{}: a set-uid or set-gid bit", printable_name(rel)));
    Expected<void> added;
    if (S_ISDIR(st.st_mode)) {
      added = builder.add(rel, Kind::directory, false, {});
    } else if (S_ISLNK(st.st_mode)) {
      added = builder.add(rel, Kind::symlink, false, fs::read_symlink(p, ec).string());
    } else if (S_ISREG(st.st_mode)) {
      if (static_cast<std::uint64_t>(st.st_size) + builder.bytes() > caps.unpacked_bytes)
        return fail(fmt::format("more than {} of files", format_size(caps.unpacked_bytes)));
      auto data = read_file(p, caps.unpacked_bytes);
      if (!data) return std::unexpected(data.error());
      added = builder.add(rel, Kind::file, (st.st_mode & S_IXUSR) != 0, std::move(*data));
    } else {
      added = fail(fmt::format("{}: a device, fifo or socket, not a file", printable_name(rel)));
    }
    if (!added) return std::unexpected(added.error());
  }
  return builder.finish(false);
}

Expected<Tree> read_archive(std::string_view bytes, const ArchiveCaps& caps) {
  if (bytes.size() > caps.packed_bytes)
    return fail(fmt::format("the archive is over the cap of {}", format_size(caps.packed_bytes)));
  ArchiveReader r;
  archive_read_support_filter_gzip(r.a);
  archive_read_support_filter_bzip2(r.a);
  archive_read_support_filter_xz(r.a);
  archive_read_support_format_tar(r.a);
  archive_read_support_format_zip_seekable(r.a);
  if (archive_read_open_memory(r.a, bytes.data(), bytes.size()) != ARCHIVE_OK)
    return fail("not a tar or zip archive: " + archive_error(r.a));
  TreeBuilder builder(caps);
  // ratio 0: no ratio cap (the store's own blobs, checked against their hash).
  const std::uint64_t bomb_at =
      caps.ratio == 0 ? UINT64_MAX
                      : std::max<std::uint64_t>(std::uint64_t{1} << 20, caps.ratio * bytes.size());
  builder.limit_ratio(bomb_at);
  archive_entry* entry = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(r.a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) return fail("a damaged archive: " + archive_error(r.a));
    const char* name = archive_entry_pathname(entry);
    if (name == nullptr) return fail("an entry without a name");
    const mode_t mode = archive_entry_mode(entry);
    if ((mode & (S_ISUID | S_ISGID)) != 0)
      return fail(fmt::format("{}: a set-uid or set-gid bit", printable_name(name)));
    if (const char* hard = archive_entry_hardlink(entry); hard != nullptr) {
      if (auto ok = builder.add_hard_link(name, hard); !ok) return std::unexpected(ok.error());
      continue;
    }
    Expected<void> added;
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR:
        added = builder.add(name, Kind::directory, false, {});
        break;
      case AE_IFLNK: {
        const char* target = archive_entry_symlink(entry);
        added = builder.add(name, Kind::symlink, false, target != nullptr ? target : "");
        break;
      }
      case AE_IFREG: {
        // A sparse file's holes would come back short or not at all: not what the author had.
        if (archive_entry_sparse_count(entry) > 0) {
          added = fail(
              fmt::format("{}: a sparse file (archive it without --sparse)", printable_name(name)));
          break;
        }
        std::string data;
        char buf[1 << 16];
        for (;;) {
          const la_ssize_t n = archive_read_data(r.a, buf, sizeof buf);
          if (n < 0) return fail("a damaged archive: " + archive_error(r.a));
          if (n == 0) break;
          data.append(buf, static_cast<std::size_t>(n));
          if (data.size() + builder.bytes() > bomb_at ||
              data.size() + builder.bytes() > caps.unpacked_bytes)
            return fail(fmt::format(
                "{}: the archive unpacks to more than {} (a compression bomb, or over the cap)",
                printable_name(name), format_size(std::min(bomb_at, caps.unpacked_bytes))));
        }
        added = builder.add(name, Kind::file, (mode & S_IXUSR) != 0, std::move(data));
        break;
      }
      default:
        added = fail(fmt::format("{}: a device, fifo or socket, not a file", printable_name(name)));
    }
    if (!added) return std::unexpected(added.error());
  }
  return builder.finish(true);
}

Expected<Tree> read_bot_files(const std::filesystem::path& path, const ArchiveCaps& caps) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return read_directory(path, caps);
  if (!std::filesystem::is_regular_file(path, ec))
    return fail(fmt::format("{}: no such directory or archive file", path.string()));
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > caps.packed_bytes)
    return fail(fmt::format("{}: {} is over the cap of {} (--max-size)", path.string(),
                            format_size(size), format_size(caps.packed_bytes)));
  auto bytes = read_file(path, caps.packed_bytes);
  if (!bytes) return std::unexpected(bytes.error());
  auto tree = read_archive(*bytes, caps);
  if (!tree) return fail(fmt::format("{}: {}", path.string(), tree.error().message));
  return tree;
}

namespace {

void octal(char* field, std::size_t width, std::uint64_t value) {
  // width - 1 digits and a NUL, as ustar writes numbers.
  auto text = fmt::format("{:0{}o}", value, width - 1);
  std::copy(text.begin(), text.end(), field);
  field[width - 1] = '\0';
}

void header(std::string& out, const TreeEntry& e) {
  char h[512] = {};
  std::string name = e.path + (e.kind == Kind::directory ? "/" : "");
  std::string prefix;
  // REQUIRES (checked when the tree was read): the name splits; the copies below stay bounded
  // whatever a caller hands in.
  if (const auto cut = ustar_split(name); cut && *cut > 0) {
    prefix = name.substr(0, *cut);
    name = name.substr(*cut + 1);
  }
  name.resize(std::min<std::size_t>(name.size(), 100));
  prefix.resize(std::min<std::size_t>(prefix.size(), 155));
  std::copy(name.begin(), name.end(), h);
  octal(h + 100, 8, e.kind == Kind::file && !e.executable ? 0644 : 0755);
  octal(h + 108, 8, 0);
  octal(h + 116, 8, 0);
  octal(h + 124, 12, e.kind == Kind::file ? e.data.size() : 0);
  octal(h + 136, 12, 0);
  h[156] = e.kind == Kind::directory ? '5' : e.kind == Kind::symlink ? '2' : '0';
  if (e.kind == Kind::symlink)
    std::copy_n(e.data.begin(), std::min<std::size_t>(e.data.size(), 100), h + 157);
  std::copy_n("ustar", 6, h + 257);
  h[263] = '0';
  h[264] = '0';
  std::copy(prefix.begin(), prefix.end(), h + 345);
  std::fill_n(h + 148, 8, ' ');
  unsigned sum = 0;
  for (const char c : h) sum += static_cast<unsigned char>(c);
  auto text = fmt::format("{:06o}", sum);
  std::copy(text.begin(), text.end(), h + 148);
  h[154] = '\0';
  h[155] = ' ';
  out.append(h, sizeof h);
}

}  // namespace

std::string canonical_tar(const Tree& tree) {
  std::string out;
  for (const TreeEntry& e : tree.entries) {
    header(out, e);
    if (e.kind != Kind::file) continue;
    out += e.data;
    out.append((512 - e.data.size() % 512) % 512, '\0');
  }
  out.append(1024, '\0');
  return out;
}

std::string content_hash(const Tree& tree) {
  return "sha256:" + sha256_hex(canonical_tar(tree));
}

namespace {

std::string gzip(const std::string& tar) {
  z_stream z{};
  // Level 3: a stored bot is packed at every add and build, and read at every cache miss; the
  // higher levels cost twice the time for a few percent of size.
  deflateInit2(&z, 3, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // +16: a gzip wrapper
  std::string out(deflateBound(&z, tar.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(tar.data()));
  z.avail_in = static_cast<uInt>(tar.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

std::string pack(const Tree& tree) {
  return gzip(canonical_tar(tree));
}

Packed pack_with_hash(const Tree& tree) {
  const std::string tar = canonical_tar(tree);
  return {"sha256:" + sha256_hex(tar), gzip(tar)};
}

namespace {

int open_beneath(int root, const std::string& rel, int flags, mode_t mode = 0) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags) | O_CLOEXEC | O_NOFOLLOW;
  how.mode = mode;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, root, rel.c_str(), &how, sizeof how));
}

Expected<void> write_entry(int root, const TreeEntry& e) {
  const std::string parent = parent_of(e.path);
  const std::string leaf = e.path.substr(parent.empty() ? 0 : parent.size() + 1);
  const int dir = parent.empty() ? ::dup(root) : open_beneath(root, parent, O_DIRECTORY | O_PATH);
  if (dir < 0) return fail_errno(e.path);
  Fd guard(dir);
  switch (e.kind) {
    case Kind::directory:
      if (::mkdirat(dir, leaf.c_str(), 0755) != 0) return fail_errno(e.path);
      return {};
    case Kind::symlink:
      if (::symlinkat(e.data.c_str(), dir, leaf.c_str()) != 0) return fail_errno(e.path);
      return {};
    case Kind::file: {
      const int fd =
          ::openat(dir, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   e.executable ? 0755 : 0644);
      if (fd < 0) return fail_errno(e.path);
      Fd file(fd);
      if (!write_all(fd, e.data)) return fail_errno(e.path);
      if (::fchmod(fd, e.executable ? 0755 : 0644) != 0) return fail_errno(e.path);
      return {};
    }
  }
  return {};
}

}  // namespace

Expected<void> unpack(const Tree& tree, const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0) return fail_errno(dir.string());
  const int root = ::open(dir.c_str(), O_DIRECTORY | O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (root < 0) return fail_errno(dir.string());
  Fd guard(root);
  for (const TreeEntry& e : tree.entries) {
    if (auto ok = write_entry(root, e); !ok) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      return fail(fmt::format("unpacking into {}: {}", dir.string(), ok.error().message));
    }
  }
  return {};
}

}  // namespace arbiter::league
