// How stores keep game logs: deflated (zlib), behind a 4-byte tag, since logs are JSON lines that
// shrink about tenfold and a tournament stores thousands. A stored value without the tag is
// returned as it is (logs written before compression).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter::tournament {

// The log as stored: "ZLB1" followed by the zlib stream of `log`.
std::string pack_log(const std::string& log);

// The log from a stored value; an Error if it carries the tag but does not inflate.
Expected<std::string> unpack_log(const std::string& stored);

// The log from a stored value in pieces of at most 64 KiB, in order, without holding it whole:
// `sink` gets each piece and returns false to stop early (then this returns at once, without
// error). An Error if the value carries the tag but does not inflate to its recorded length;
// pieces before the damage may have been given.
Expected<void> inflate_log(const std::string& stored,
                           const std::function<bool(std::string_view)>& sink);

// The programs' stderr tails (JobResult::stderr_tails) from a stored value: packed like a log,
// then checked to be [{"seat": string, "bytes": natural, "tail": string}, ...], since a stored
// row is not taken on trust.
Expected<Json> decode_stderr_tails(const std::string& stored);

}  // namespace arbiter::tournament
