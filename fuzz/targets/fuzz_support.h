// What the fuzz targets share: a property check that ends the run (the driver keeps the input),
// the input as JSON, and the round trip every codec promises: whatever decodes re-encodes to
// something that decodes to the same thing, and whatever fails says why in one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter::fuzz {

[[noreturn]] inline void property_failed(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: property failed: %s\n", file, line, what.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond, what) \
  ((cond) ? (void)0 : ::arbiter::fuzz::property_failed(__FILE__, __LINE__, (what)))

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input as one JSON value, if it is one.
inline std::optional<Json> json_of(const std::uint8_t* data, std::size_t size) {
  auto j = parse_json(text_of(data, size));
  if (!j) return std::nullopt;
  return std::move(*j);
}

inline void check_error(const Error& e, std::string_view what) {
  FUZZ_CHECK(!e.message.empty(), std::string(what) + ": an empty error message");
  FUZZ_CHECK(e.message.find('\n') == std::string::npos,
             std::string(what) + ": an error of more than one line: " + e.message);
}

// decode(j) either fails with a one-line error or gives x with decode(encode(x)) giving x again
// (compared through encode, since not every type has ==). Returns the decoded value.
template <class Decode, class Encode>
auto round_trip(const Json& j, Decode decode, Encode encode, std::string_view what)
    -> decltype(decode(j)) {
  auto first = decode(j);
  if (!first) {
    check_error(first.error(), what);
    return first;
  }
  const Json once = encode(*first);
  auto second = decode(once);
  FUZZ_CHECK(second.has_value(), std::string(what) + ": the encoding " + dump(once) +
                                     " of an accepted value does not decode: " +
                                     (second ? "" : second.error().message));
  const Json twice = encode(*second);
  FUZZ_CHECK(twice == once, std::string(what) + ": encode(decode(encode(x))) " + dump(twice) +
                                " != encode(x) " + dump(once));
  return first;
}

}  // namespace arbiter::fuzz
