// The referee protocol (core/protocol.h) where a program is at the other end: a failed exchange
// becomes the verdict of the cap the program ran into, or a hang-up with its last words.
#pragma once

#include <string>

#include "core/protocol.h"
#include "remote/child_process.h"

namespace arbiter::wire {

// How long a hang-up waits for the program's stderr to end, for its last words.
inline constexpr Duration kLastWordsWait = std::chrono::milliseconds(100);

// `detail` of a program's hang-up with the line of its stderr that says why it died
// ("ValueError: ...", telling_line), and where to read all of it.
inline std::string with_last_words(std::string detail, const ChildProcess& child) {
  const std::string words = child.last_words(kLastWordsWait);
  if (words.empty()) return detail;
  const std::string more = child.stderr_log().empty()
                               ? std::string("; all of it with --stderr-dir DIR")
                               : "; all of it in " + child.stderr_log().string();
  return detail + " (its last words on stderr: " + excerpt(Json(words), 160) + more + ")";
}

// The PlayerFault for a failed exchange with a program: a cap it ran into (the child's
// limit_hit(), which also explains a hang-up or a timeout caused by the cap) is named first;
// a hang-up gets the program's last words.
[[noreturn]] inline void throw_fault(const ChannelFault& fault, ChildProcess* child) {
  if (child != nullptr && fault.why != Why::output_limit) {
    const bool ended = fault.why == Why::hang_up;
    if (auto hit = child->limit_hit(ended ? kLastWordsWait : Duration::zero()))
      throw PlayerFault(hit->why, hit->detail);
    if (ended) throw PlayerFault(fault.why, with_last_words(fault.detail, *child));
  }
  throw PlayerFault(fault.why, fault.detail);
}

}  // namespace arbiter::wire
