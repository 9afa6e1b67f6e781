#include "core/entropy.h"

#include <sys/random.h>

#include <cerrno>
#include <system_error>

#include <fmt/format.h>

namespace arbiter {

std::string unguessable_bytes(std::size_t n) {
  std::string bytes(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::getrandom(bytes.data() + got, n - got, 0);
    if (r > 0)
      got += static_cast<std::size_t>(r);
    else if (errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "getrandom");
  }
  return bytes;
}

std::uint64_t unguessable_seed() {
  std::uint64_t seed = 0;
  for (const char c : unguessable_bytes(8)) seed = (seed << 8) | static_cast<unsigned char>(c);
  return seed;
}

std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) out += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return out;
}

Expected<std::string> from_hex(std::string_view hex) {
  const auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return fail("an odd number of hex digits");
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0)
      return fail(fmt::format("\"{}\" is not a hex digit", hi < 0 ? hex[i] : hex[i + 1]));
    bytes += static_cast<char>(hi * 16 + lo);
  }
  return bytes;
}

}  // namespace arbiter
