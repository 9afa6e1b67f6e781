// Files at the boundary: reading a whole input file and writing outputs, with every failure a
// one-line Error that names the path and the operating system's reason. Nothing here throws.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter {

// The whole of `path`: a regular file, or a pipe or FIFO read to its end (as `cat` would, so a
// FIFO without a writer waits for one). Refused with an Error: a missing or unreadable path, a
// directory, anything longer than `max_bytes` (which also bounds /dev/zero and the like), a
// read error. Errors read "PATH: REASON", e.g. "games/: is a directory".
Expected<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes);

// Whether `path` exists and may be read as a file (not a directory), without opening it, so that
// a FIFO is not consumed by the check. "PATH: REASON" if not.
Expected<void> check_readable_file(const std::filesystem::path& path);

// The same for an open descriptor (standard input); `name` stands for the path in errors.
Expected<std::string> read_fd(int fd, std::string_view name, std::size_t max_bytes);

// An output file written through write(2) with every call checked: the first failure is kept
// (later writes are dropped) and reported as "PATH: REASON", e.g. "/dev/full: No space left on
// device". Not thread-safe. Closing is part of writing: a file is good only once close() says so.
class OutputFile {
 public:
  // Creates or truncates `path` (mode 0644).
  static Expected<OutputFile> create(const std::filesystem::path& path);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Writes all of `bytes`; false (and the error kept) when the file cannot take them.
  bool write(std::string_view bytes);
  // Closes the file; the first error of any write or of the close itself, if there was one.
  Expected<void> close();
  // The first error so far, or nothing.
  const std::string& error() const { return error_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  OutputFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void keep_error(int err);
  int fd_ = -1;
  std::filesystem::path path_;
  std::string error_;
};

// Writes `text` to `path` (created or truncated) and closes it, every step checked.
Expected<void> write_file(const std::filesystem::path& path, std::string_view text);

// Whether `dir` is an existing directory this process may create files in ("PATH: REASON" if
// not). A check before work starts, so that an organizer's typo is an error and not a lost log.
Expected<void> check_writable_dir(const std::filesystem::path& dir);

// Whether `path` can be created or overwritten as a file: not a directory, in an existing
// directory this process may write to ("PATH: REASON" if not). Creates nothing.
Expected<void> check_output_path(const std::filesystem::path& path);

}  // namespace arbiter
