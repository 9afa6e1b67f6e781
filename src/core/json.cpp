#include "core/json.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

#include <fmt/format.h>

#include "core/ejection.h"

namespace arbiter {
namespace {

// Returns the end of the value starting at `i` (text[i] is not whitespace), or npos when a
// string or bracket is left open.
std::size_t value_end(std::string_view text, std::size_t i) {
  const char c = text[i];
  if (c == '"' || c == '{' || c == '[') {
    int depth = 0;
    bool in_string = false;
    for (std::size_t k = i; k < text.size(); ++k) {
      const char d = text[k];
      if (in_string) {
        if (d == '\\')
          ++k;
        else if (d == '"') {
          in_string = false;
          if (depth == 0) return k + 1;
        }
      } else if (d == '"') {
        in_string = true;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) return k + 1;
      }
    }
    return std::string_view::npos;
  }
  std::size_t k = i;
  while (k < text.size() && !is_json_space(text[k]) && text[k] != '{' && text[k] != '[' &&
         text[k] != '"')
    ++k;
  return k;
}

// Deeper nesting than any format of ours needs; copying, comparing and printing JSON recurse, so
// untrusted input must not be able to nest without bound.
constexpr int kMaxDepth = 200;

bool too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char d = text[k];
    if (in_string) {
      if (d == '\\')
        ++k;
      else if (d == '"')
        in_string = false;
    } else if (d == '"') {
      in_string = true;
    } else if (d == '{' || d == '[') {
      if (++depth > kMaxDepth) return true;
    } else if (d == '}' || d == ']') {
      --depth;
    }
  }
  return false;
}

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

Expected<Json> parse_json(std::string_view text) {
  // The library takes a NUL byte for the end of its input, so `"pass"\0{{{` would parse as
  // "pass"; JSON has no raw NUL anywhere (in a string it must be escaped as \u0000).
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    return fail(fmt::format("malformed JSON: a NUL byte at offset {}", nul));
  if (too_deep(text)) return fail(fmt::format("JSON nested deeper than {} levels", kMaxDepth));
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 1: ..." without the
    // library's tag, which means nothing to the reader.
    std::string_view why = e.what();
    if (why.starts_with("[json.exception."))
      why.remove_prefix(std::min(why.find("] ") + 2, why.size()));
    if (why.starts_with("parse error ")) why.remove_prefix(12);
    return fail(fmt::format("malformed JSON: {}", why));
  }
}

namespace {

void render(const Json& j, std::string& out, std::size_t max, int depth) {
  if (out.size() > max) return;
  if (j.is_array() || j.is_object()) {
    if (depth > 4) {
      out += j.is_array() ? "[...]" : "{...}";
      return;
    }
    out += j.is_array() ? '[' : '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end() && out.size() <= max; ++it) {
      if (!first) out += ',';
      first = false;
      if (j.is_object()) out += Json(it.key()).dump() + ':';
      render(*it, out, max, depth + 1);
    }
    out += j.is_array() ? ']' : '}';
    return;
  }
  out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

Expected<std::vector<Json>> parse_json_values(std::string_view text) {
  std::vector<Json> values;
  std::size_t i = 0;
  for (;;) {
    while (i < text.size() && is_json_space(text[i])) ++i;
    if (i >= text.size()) break;
    const std::size_t end = value_end(text, i);
    if (end == std::string_view::npos)
      return fail(
          fmt::format("JSON value {} is truncated (starts at byte {})", values.size() + 1, i));
    auto v = parse_json(text.substr(i, end - i));
    if (!v) return fail(fmt::format("JSON value {}: {}", values.size() + 1, v.error().message));
    values.push_back(std::move(*v));
    i = end;
  }
  return values;
}

Expected<std::vector<Json>> read_json_values(std::istream& in) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return fail("cannot read input");
  return parse_json_values(text);
}

std::string excerpt(const Json& j, std::size_t max) {
  std::string s;
  render(j, s, max, 0);
  if (s.size() > max) {
    // Never in the middle of a UTF-8 character: back up over continuation bytes.
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return s;
}

Expected<const Json*> member(const Json& object, std::string_view key, std::string_view what) {
  if (!object.is_object())
    return fail(fmt::format("{}: expected an object, got {}", what, excerpt(object)));
  auto it = object.find(key);
  if (it == object.end()) return fail(fmt::format("{}: missing field \"{}\"", what, key));
  return &*it;
}

Expected<std::int64_t> to_int(const Json& j, std::string_view what) {
  if (j.is_number_unsigned()) {
    if (j.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(j.get<std::uint64_t>());
  } else if (j.is_number_integer()) {
    return j.get<std::int64_t>();
  }
  return fail(fmt::format("{}: expected an integer, got {}", what, excerpt(j)));
}

Expected<std::uint64_t> to_natural(const Json& j, std::string_view what) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0) return j.get<std::uint64_t>();
  return fail(fmt::format("{}: expected a natural number, got {}", what, excerpt(j)));
}

Expected<std::string> to_string(const Json& j, std::string_view what) {
  if (j.is_string()) return j.get<std::string>();
  return fail(fmt::format("{}: expected a string, got {}", what, excerpt(j)));
}

Expected<bool> to_bool(const Json& j, std::string_view what) {
  if (j.is_boolean()) return j.get<bool>();
  return fail(fmt::format("{}: expected true or false, got {}", what, excerpt(j)));
}

std::string string_or(const Json& object, std::string_view key, std::string fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

std::int64_t int_or(const Json& object, std::string_view key, std::int64_t fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  auto v = to_int(*it, key);
  return v ? *v : fallback;
}

Expected<void> only_keys(const Json& j, std::initializer_list<std::string_view> allowed,
                         std::string_view what) {
  if (!j.is_object()) return fail(fmt::format("{}: expected an object, got {}", what, excerpt(j)));
  for (const auto& [key, value] : j.items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      return fail(fmt::format("{}: unknown field {}", what, excerpt(Json(key))));
  return {};
}

Expected<int> int_field(const Json& j, std::string_view key, std::int64_t lo, std::int64_t hi,
                        std::string_view what) {
  auto field = member(j, key, what);
  if (!field) return std::unexpected(field.error());
  const std::string where = fmt::format("{}: {}", what, key);
  auto v = to_int(**field, where);
  if (!v) return std::unexpected(v.error());
  if (*v < lo || *v > hi)
    return fail(fmt::format("{} must be {} to {}, got {}", where, lo, hi, *v));
  return static_cast<int>(*v);
}

Json field_or_null(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? Json() : *it;
}

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void append_json_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

void append_json_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

void append_json_string(std::string& out, std::string_view s) {
  // Bytes past ASCII need UTF-8 checking and replacement: left to nlohmann, so both agree.
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) {
      out += dump(Json(std::string(s)));
      return;
    }
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

Json logged_message(const Json& message, const std::optional<std::string>& malformed_why) {
  if (!malformed_why) return message;
  const std::string text = dump(message);
  if (text.size() <= kLoggedMessageBytes && !replayed_malformed(message)) return message;
  std::size_t cut = std::min<std::size_t>(text.size(), 200);
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return Json{{"malformed_excerpt", text.substr(0, cut)},
              {"bytes", text.size()},
              {"why", bounded_detail(*malformed_why)}};
}

std::optional<std::string> replayed_malformed(const Json& logged) {
  // Only what logged_message makes: a player sending a look-alike of any other size is just
  // malformed, and its message is logged as any other (bounded).
  if (!logged.is_object() || logged.size() != 3 || !logged.contains("malformed_excerpt") ||
      !logged["malformed_excerpt"].is_string() ||
      logged["malformed_excerpt"].get_ref<const std::string&>().size() > 200 ||
      !logged.contains("bytes") || !logged["bytes"].is_number_unsigned() ||
      !logged.contains("why") || !logged["why"].is_string() ||
      logged["why"].get_ref<const std::string&>().size() > kMaxDetailBytes + 64)
    return std::nullopt;
  return logged["why"].get<std::string>();
}

}  // namespace arbiter
