#include "core/rng.h"

#include <cassert>

namespace arbiter {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  const std::uint64_t out = mix64(x);
  x += 0x9e3779b97f4a7c15ULL;
  return out;
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t n) {
  assert(n > 0);
  // Reject the top sliver of the 64-bit range that would bias the remainder.
  const std::uint64_t limit = -n % n;  // == 2^64 mod n
  for (;;) {
    std::uint64_t x = next();
    if (x >= limit) return x % n;
  }
}

std::uint64_t Rng::derive(std::uint64_t parent, std::string_view tag, std::uint64_t index) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the tag
  for (unsigned char c : tag) h = (h ^ c) * 0x100000001b3ULL;
  std::uint64_t x = parent ^ rotl(h, 17) ^ rotl(index * 0x9e3779b97f4a7c15ULL, 41);
  splitmix64(x);
  return splitmix64(x);
}

}  // namespace arbiter
