#include "core/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace arbiter {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The number at the front of `text` and the unit after it (spaces between allowed).
bool split_number(std::string_view text, double& number, std::string& unit) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, number);
  if (ec != std::errc() || !std::isfinite(number) || number < 0) return false;
  while (p != end && *p == ' ') ++p;
  unit = lower(std::string_view(p, static_cast<std::size_t>(end - p)));
  return true;
}

}  // namespace

Expected<std::uint64_t> parse_size(std::string_view text) {
  double number = 0;
  std::string unit;
  const auto refuse = [&] {
    return fail(fmt::format("\"{}\" is not a size; write it like 512M or 4K (units K, M, G; "
                            "a bare number is bytes)",
                            text));
  };
  if (!split_number(text, number, unit)) return refuse();
  double scale = 0;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    scale = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    scale = 1024.0 * 1024 * 1024;
  else
    return refuse();
  const double bytes = std::round(number * scale);
  if (bytes >= 18e18) return fail(fmt::format("\"{}\" is too large a size", text));
  return static_cast<std::uint64_t>(bytes);
}

Expected<std::chrono::microseconds> parse_duration(std::string_view text) {
  double number = 0;
  std::string unit;
  const auto refuse = [&] {
    return fail(fmt::format("\"{}\" is not a duration; write it like 60s, 1.5s or 250ms "
                            "(units ms, s, m, h; a bare number is seconds)",
                            text));
  };
  if (!split_number(text, number, unit)) return refuse();
  double us = 0;
  if (unit.empty() || unit == "s" || unit == "sec")
    us = number * 1e6;
  else if (unit == "ms")
    us = number * 1e3;
  else if (unit == "m" || unit == "min")
    us = number * 60e6;
  else if (unit == "h")
    us = number * 3600e6;
  else
    return refuse();
  if (us >= 1e15) return fail(fmt::format("\"{}\" is too long a duration", text));
  return std::chrono::microseconds(std::llround(us));
}

std::string format_size(std::uint64_t n) {
  if (n >= (1u << 30) && n % (1u << 30) == 0) return fmt::format("{} GiB", n >> 30);
  if (n >= (1u << 20) && n % (1u << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n >= (1u << 10) && n % (1u << 10) == 0) return fmt::format("{} KiB", n >> 10);
  return fmt::format("{} bytes", n);
}

std::string format_duration(std::chrono::microseconds d) {
  const auto us = d.count();
  if (us == 0) return "0 s";
  if (us % 1000 != 0 || us < 1000) return fmt::format("{} us", us);
  if (us < 1'000'000) return fmt::format("{} ms", us / 1000);
  return fmt::format("{:g} s", static_cast<double>(us) / 1e6);
}

}  // namespace arbiter
