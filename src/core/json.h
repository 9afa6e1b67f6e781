// JSON helpers for decoding untrusted input at the boundary. Decoders return Expected<T>: a value
// or an Error with a one-line message that says where and what was wrong. Nothing here throws.
#pragma once

#include <cstdint>
#include <expected>
#include <initializer_list>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbiter {

using Json = nlohmann::json;

struct Error {
  std::string message;
};

template <class T>
using Expected = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected(Error{std::move(message)});
}

// JSON's whitespace (RFC 8259): space, tab, line feed, carriage return; nothing else.
constexpr bool is_json_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Splits `text` into the JSON values it holds one after another, separated only by whitespace
// (the course harnesses' input format), and parses each. Fails on the first malformed value.
Expected<std::vector<Json>> parse_json_values(std::string_view text);

// Reads the whole stream and parses it with parse_json_values.
Expected<std::vector<Json>> read_json_values(std::istream& in);

// Parses exactly one JSON value (surrounding whitespace allowed): a second value, trailing bytes
// or a raw NUL byte anywhere make it malformed.
Expected<Json> parse_json(std::string_view text);

// `text` with every control character (line breaks included) written as \xNN: an error message
// that quotes what it was given stays one line.
std::string escape_controls(std::string_view text);

// A short rendering of `j` for error messages, cut to about `max` characters.
std::string excerpt(const Json& j, std::size_t max = 60);

// A message from a player that did not decode is logged whole unless it is long: then (or when
// it looks like such a record itself) as {"malformed_excerpt": the start of its JSON text,
// "bytes": its size, "why": the decoder's error}, which replay reads back (replayed_malformed)
// as that malformed message. So one reply of 1 MB makes no log line of 1 MB.
inline constexpr std::size_t kLoggedMessageBytes = 4096;
Json logged_message(const Json& message, const std::optional<std::string>& malformed_why);
// The error of a record logged_message made of a malformed message, or nothing.
std::optional<std::string> replayed_malformed(const Json& logged);

// Shape helpers: `what` names the thing being decoded, for the error message.
Expected<const Json*> member(const Json& object, std::string_view key, std::string_view what);
Expected<std::int64_t> to_int(const Json& j, std::string_view what);
Expected<std::uint64_t> to_natural(const Json& j, std::string_view what);
Expected<std::string> to_string(const Json& j, std::string_view what);
Expected<bool> to_bool(const Json& j, std::string_view what);
// j is an object whose keys are all among `allowed`.
Expected<void> only_keys(const Json& j, std::initializer_list<std::string_view> allowed,
                         std::string_view what);
// Object j's field `key` as an integer in [lo, hi].
Expected<int> int_field(const Json& j, std::string_view key, std::int64_t lo, std::int64_t hi,
                        std::string_view what);

// Lenient field access for records we wrote ourselves but read back from untrusted files (game
// logs): the field's value if `object` is an object holding `key` with the right type, else
// `fallback`. Never throws.
std::string string_or(const Json& object, std::string_view key, std::string fallback = "");
std::int64_t int_or(const Json& object, std::string_view key, std::int64_t fallback);
Json field_or_null(const Json& object, std::string_view key);

// Compact, key-sorted serialization (nlohmann objects are key-ordered): stable bytes for logs.
std::string dump(const Json& j);

// Appends JSON text for one value, byte for byte what dump() writes for the same value, without
// building a Json: for hot encoders (the game log's call records, a game's views). A string is
// quoted and escaped as dump() does it, invalid UTF-8 included.
void append_json_int(std::string& out, std::int64_t v);
void append_json_uint(std::string& out, std::uint64_t v);
void append_json_string(std::string& out, std::string_view s);

}  // namespace arbiter
