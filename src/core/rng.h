// Rng: the only source of randomness in arbiter. A small, fully specified generator
// (xoshiro256** seeded through splitmix64) so that a seed gives the same match on every machine
// and standard library; std::uniform_int_distribution is implementation-defined and is not used.
// Seeds form a tree: derive(parent, tag, index) gives independent child seeds, e.g. per match of
// a tournament and per seat of a match.
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>

namespace arbiter {

// splitmix64's output after its state steps to `state`: a well-mixed 64-bit hash of `state`
// (every input bit reaches every output bit). Used to seed Rng and as a cheap hash of keys.
constexpr std::uint64_t mix64(std::uint64_t state) {
  std::uint64_t z = state + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // 64 uniformly distributed bits.
  std::uint64_t next();

  // Uniform in [0, n) without modulo bias. REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n);

  // Fisher-Yates over [first, last), drawing from the back; identical across platforms.
  template <std::random_access_iterator It>
  void shuffle(It first, It last) {
    for (auto n = static_cast<std::uint64_t>(last - first); n > 1; --n) {
      auto j = below(n);
      using std::swap;
      swap(first[n - 1], first[j]);
    }
  }

  // A child seed of `parent` for the purpose named by `tag` (and `index`, e.g. a seat or a
  // match number). Pure function: the same inputs give the same seed forever.
  static std::uint64_t derive(std::uint64_t parent, std::string_view tag, std::uint64_t index = 0);

 private:
  std::uint64_t s_[4];
};

}  // namespace arbiter
