// Just enough JSON for a bot (standard library only): parse a message, read its fields, write
// an answer. Numbers are doubles; objects keep their keys in order.
#pragma once
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json& operator[](std::size_t i) const { return items.at(i); }
  const Json& operator[](const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return v;
    static const Json missing;
    return missing;
  }
  int integer() const { return static_cast<int>(n); }

  static Json parse(const std::string& text) {
    std::size_t at = 0;
    Json j = value(text, at);
    return j;
  }

 private:
  static void skip(const std::string& t, std::size_t& at) {
    while (at < t.size() && std::isspace(static_cast<unsigned char>(t[at]))) ++at;
  }
  static std::string text(const std::string& t, std::size_t& at) {
    std::string out;
    for (++at; at < t.size() && t[at] != '"'; ++at) {
      if (t[at] != '\\') { out += t[at]; continue; }
      const char e = t[++at];
      if (e == 'u') {  // a bot's strings are ASCII; other characters become '?'
        const long code = std::strtol(t.substr(at + 1, 4).c_str(), nullptr, 16);
        out += code < 0x80 ? static_cast<char>(code) : '?';
        at += 4;
      } else {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
      }
    }
    ++at;
    return out;
  }
  static Json value(const std::string& t, std::size_t& at) {
    skip(t, at);
    if (at >= t.size()) throw std::runtime_error("unexpected end of JSON");
    Json j;
    const char c = t[at];
    if (c == '{' || c == '[') {
      j.kind = c == '{' ? object : array;
      ++at;
      skip(t, at);
      while (at < t.size() && t[at] != (c == '{' ? '}' : ']')) {
        if (c == '{') {
          skip(t, at);
          std::string key = text(t, at);
          skip(t, at);
          ++at;  // ':'
          j.fields.emplace_back(std::move(key), value(t, at));
        } else {
          j.items.push_back(value(t, at));
        }
        skip(t, at);
        if (t[at] == ',') ++at;
        skip(t, at);
      }
      ++at;
    } else if (c == '"') {
      j.kind = string;
      j.s = text(t, at);
    } else if (t.compare(at, 4, "true") == 0 || t.compare(at, 5, "false") == 0) {
      j.kind = boolean;
      j.b = c == 't';
      at += j.b ? 4 : 5;
    } else if (t.compare(at, 4, "null") == 0) {
      at += 4;
    } else {
      j.kind = number;
      char* end = nullptr;
      j.n = std::strtod(t.c_str() + at, &end);
      at = static_cast<std::size_t>(end - t.c_str());
    }
    return j;
  }
};

// A JSON string for `s` (a bot's strings need no escapes beyond quotes and backslashes).
inline std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}
