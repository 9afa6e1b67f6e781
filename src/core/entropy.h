// Unguessable values from the kernel's random source (getrandom), for what must not be
// predicted: a master seed drawn when the organizer gives none, the key of programs' seeds
// (seed_tree.h), tcp seat tokens. Never from a match's seed, which replay makes public.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter {

// `n` bytes from the kernel. Throws std::system_error when it has none to give (it always has,
// once booted).
std::string unguessable_bytes(std::size_t n);

// A seed no one can guess (64 bits from the kernel).
std::uint64_t unguessable_seed();

// Bytes as lowercase hex digits, and back (an Error for anything but an even count of them).
std::string to_hex(std::string_view bytes);
Expected<std::string> from_hex(std::string_view hex);

}  // namespace arbiter
