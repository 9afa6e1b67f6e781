// SHA-256 (FIPS 180-4), for checksums of stored data: the result store keeps one with each game
// log. Not a keyed MAC: it tells damaged or swapped bytes from the bytes that were written, not
// a forger who can also rewrite the checksum.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace arbiter {

std::array<std::uint8_t, 32> sha256(std::string_view data);

// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace arbiter
