// The reaper (reaper.cpp) as an executable image, embedded at build time (cmake/embed.cmake):
// ChildProcess runs it as process 1 of a program's PID namespace in place of the referee's copy.
#pragma once

#include <cstddef>

namespace arbiter {

extern const unsigned char kReaperImage[];
extern const std::size_t kReaperImage_SIZE;

}  // namespace arbiter
