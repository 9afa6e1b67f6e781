// Sizes and durations as people write them on a command line or in a tournament file:
// "512M", "4K", "1G", "65536" (bytes; K, M, G are powers of 1024; "MiB", "MB", "m" are the same
// as "M") and "60s", "1.5s", "250ms", "2m", "1h" (a bare number is seconds).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter {

// Bytes; a one-line Error naming the text and the units understood.
Expected<std::uint64_t> parse_size(std::string_view text);

// A duration, to the microsecond; negative and non-finite values are refused.
Expected<std::chrono::microseconds> parse_duration(std::string_view text);

// "512 MiB", "4 KiB", "100 bytes": the largest unit that divides n exactly.
std::string format_size(std::uint64_t bytes);

// "60 s", "1.5 s", "250 ms".
std::string format_duration(std::chrono::microseconds d);

}  // namespace arbiter
