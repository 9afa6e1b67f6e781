// Small POSIX helpers shared by the descriptor-based transports: waiting on a descriptor under a
// Deadline, and descriptor flags. Internal to src/remote.
#pragma once

#include <poll.h>

#include "core/clock.h"

namespace arbiter {

enum class Ready {
  ready,    // `fd` has one of the events (or an error or hang-up that the next I/O call reports)
  woken,    // `wake_fd` became readable: the owner is closing
  timeout,  // the deadline passed first
  invalid,  // `fd` is not an open descriptor
};

// Waits until `fd` is ready for `events`, `wake_fd` (if >= 0) is readable, or the deadline
// passes; checks at least once even when the deadline has already passed. Retries on EINTR.
Ready wait_for(int fd, short events, int wake_fd, const Deadline& deadline);

// Sets O_NONBLOCK and FD_CLOEXEC on `fd`; false if it is not an open descriptor.
bool make_nonblocking_cloexec(int fd);

// Closes `fd` if it is open and sets it to -1.
void close_fd(int& fd);

}  // namespace arbiter
