// A bot's files as untrusted input: read from a directory or an uploaded .tar, .tar.gz or .zip
// into a checked in-memory tree, written out as one canonical archive (the same files give the
// same bytes, whatever their order, times or owners on the author's disk), and unpacked into a
// fresh directory. Every way an upload can reach outside its tree or blow up is refused with a
// one-line Error before anything is written: ".." or absolute paths, links leaving the tree,
// devices, fifos, set-uid bits, duplicate or non-UTF-8 names, and the size, count and ratio caps.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace arbiter::league {

// The caps on one bot's files.
struct ArchiveCaps {
  std::uint64_t packed_bytes = std::uint64_t{64} << 20;     // the upload (or packed tree) itself
  std::uint64_t unpacked_bytes = std::uint64_t{256} << 20;  // all files' contents together
  std::uint64_t files = 10'000;                             // entries of any kind
  std::uint64_t ratio = 100;     // unpacked bytes per packed byte, beyond the first 1 MiB; 0: none
  std::size_t path_bytes = 240;  // one path, in bytes
  std::size_t depth = 32;        // directories deep
};

// One entry of a tree. Paths are relative, '/'-separated, without "." or ".." parts.
struct TreeEntry {
  enum class Kind { directory, file, symlink };
  std::string path;
  Kind kind = Kind::file;
  bool executable = false;  // files only: shown 0755, else 0644 (directories 0755)
  std::string data;         // a file's contents; a symlink's target (relative, inside the tree)
};

// A checked tree: entries sorted by path, each directory listed before what it holds.
struct Tree {
  std::vector<TreeEntry> entries;
  std::uint64_t bytes() const;  // the files' contents together
  const TreeEntry* find(std::string_view path) const;
};

// Reads a directory (its own files; a symlink is kept as a link and must stay inside).
Expected<Tree> read_directory(const std::filesystem::path& dir, const ArchiveCaps& caps = {});

// The bot's manifest, at the top of its tree (league/manifest.h).
inline constexpr std::string_view kManifestName = "arbiter-bot.toml";

// Reads an archive from its bytes: tar (plain, gzip, bzip2, xz), or zip. A single top-level
// directory holding everything and the manifest is taken off, so that an archive of the folder
// alice/ reads "alice/arbiter-bot.toml" as "arbiter-bot.toml".
Expected<Tree> read_archive(std::string_view bytes, const ArchiveCaps& caps = {});

// A directory or an archive file, by what `path` is.
Expected<Tree> read_bot_files(const std::filesystem::path& path, const ArchiveCaps& caps = {});

// The canonical archive: a POSIX ustar stream of the entries in path order, owner 0, time 0,
// modes 0755/0644, no extras. Its SHA-256 names the tree (content_hash).
std::string canonical_tar(const Tree& tree);
std::string content_hash(const Tree& tree);  // "sha256:" + 64 hex digits of canonical_tar

// gzip of the canonical tar, as stored and exported; read_archive reads it back.
std::string pack(const Tree& tree);

// Both at once (the canonical tar made once): the tree's content hash and its packed bytes.
struct Packed {
  std::string hash;
  std::string bytes;
};
Packed pack_with_hash(const Tree& tree);

// Writes the tree into `dir`, which must not exist yet (its parent must); nothing outside it is
// touched: every file is created new, without following links. On failure `dir` is removed.
Expected<void> unpack(const Tree& tree, const std::filesystem::path& dir);

}  // namespace arbiter::league
