// Waiting on descriptors under a Deadline.
#include "remote/io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>

namespace arbiter {

Ready wait_for(int fd, short events, int wake_fd, const Deadline& deadline) {
  for (;;) {
    pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
    // ppoll takes nanoseconds, so a timeout is not rounded up to the next millisecond.
    const auto left = deadline.remaining().count();
    const timespec timeout{static_cast<time_t>(left / 1'000'000'000),
                           static_cast<long>(left % 1'000'000'000)};
    const int n = ::ppoll(fds, wake_fd >= 0 ? 2 : 1, &timeout, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Ready::invalid;  // EFAULT/EINVAL/ENOMEM: nothing sensible to wait on
    }
    if (wake_fd >= 0 && fds[1].revents != 0) return Ready::woken;
    if (fds[0].revents & POLLNVAL) return Ready::invalid;
    if (fds[0].revents != 0) return Ready::ready;
    // A zero return before the deadline happens with a clock other than the one poll() uses.
    if (deadline.passed()) return Ready::timeout;
  }
}

bool make_nonblocking_cloexec(int fd) {
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return false;
  const int fd_flags = ::fcntl(fd, F_GETFD);
  return fd_flags >= 0 && ::fcntl(fd, F_SETFD, fd_flags | FD_CLOEXEC) >= 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace arbiter
