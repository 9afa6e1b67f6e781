#include "core/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace arbiter {
namespace {

std::string reason(const std::filesystem::path& path, int err) {
  return fmt::format("{}: {}", path.string(), std::strerror(err));
}

}  // namespace

Expected<std::string> read_fd(int fd, std::string_view name, std::size_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(fmt::format("{}: {}", name, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) return fail(fmt::format("{}: is a directory", name));
  std::string text;
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_bytes)
    text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(fmt::format("{}: {}", name, std::strerror(errno)));
    }
    if (text.size() + static_cast<std::size_t>(n) > max_bytes)
      return fail(fmt::format("{}: larger than {} bytes", name, max_bytes));
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

Expected<void> check_readable_file(const std::filesystem::path& path) {
  if (path.empty()) return fail("an empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fail(reason(path, errno));
  if (S_ISDIR(st.st_mode)) return fail(fmt::format("{}: is a directory", path.string()));
  if (::access(path.c_str(), R_OK) != 0) return fail(reason(path, errno));
  return {};
}

Expected<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  if (path.empty()) return fail("an empty file name");
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail(reason(path, errno));
  auto text = read_fd(fd, path.string(), max_bytes);
  ::close(fd);
  return text;
}

Expected<OutputFile> OutputFile::create(const std::filesystem::path& path) {
  if (path.empty()) return fail("an empty file name");
  int fd;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail(reason(path, errno));
  return OutputFile(fd, path);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      error_(std::move(other.error_)) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    error_ = std::move(other.error_);
  }
  return *this;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::keep_error(int err) {
  if (error_.empty()) error_ = reason(path_, err);
}

bool OutputFile::write(std::string_view bytes) {
  if (!error_.empty()) return false;
  if (fd_ < 0) {
    keep_error(EBADF);
    return false;
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      keep_error(n < 0 ? errno : EIO);
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

Expected<void> OutputFile::close() {
  if (fd_ >= 0) {
    // close(2) can report a failed write-back (NFS, a full quota); it must not be retried.
    if (::close(std::exchange(fd_, -1)) != 0 && errno != EINTR) keep_error(errno);
  }
  if (!error_.empty()) return fail(error_);
  return {};
}

Expected<void> write_file(const std::filesystem::path& path, std::string_view text) {
  auto file = OutputFile::create(path);
  if (!file) return std::unexpected(file.error());
  file->write(text);
  return file->close();
}

Expected<void> check_writable_dir(const std::filesystem::path& dir) {
  if (dir.empty()) return fail("an empty directory name");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return fail(reason(dir, errno));
  if (!S_ISDIR(st.st_mode)) return fail(fmt::format("{}: not a directory", dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return fail(reason(dir, errno));
  return {};
}

Expected<void> check_output_path(const std::filesystem::path& path) {
  if (path.empty()) return fail("an empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail(fmt::format("{}: is a directory", path.string()));
    if (::access(path.c_str(), W_OK) != 0) return fail(reason(path, errno));
    return {};
  }
  if (errno != ENOENT) return fail(reason(path, errno));
  const std::filesystem::path parent =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (auto ok = check_writable_dir(parent); !ok)
    return fail(fmt::format("{}: cannot be created ({})", path.string(), ok.error().message));
  return {};
}

}  // namespace arbiter
