// SHA-256 (FIPS 180-4), for checksums of stored data: the result store keeps one with each game
// log. Not a keyed MAC: it tells damaged or swapped bytes from the bytes that were written, not
// a forger who can also rewrite the checksum. HMAC-SHA-256 is the keyed one (programs' seeds).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace arbiter {

// A digest taken in pieces: update() with each piece in order, then digest() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::array<std::uint8_t, 32> digest();  // REQUIRES: called once, after the last update
  std::string hex();                      // digest() as 64 lowercase hex digits

 private:
  std::uint32_t h_[8];
  unsigned char block_[64];
  std::size_t used_ = 0;        // bytes in block_
  std::uint64_t length_ = 0;    // bytes so far
};

std::array<std::uint8_t, 32> sha256(std::string_view data);

// HMAC-SHA-256 (RFC 2104): a digest of `message` that only a holder of `key` can compute.
std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view message);

// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace arbiter
