// open_store: picks the back end from the URL's scheme.
#include "tournament/store.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "tournament/integrity.h"

namespace arbiter::tournament {
namespace {

// The scheme of a URL ("nosuch" in "nosuch:thing"): letters first, then letters, digits, '+',
// '-' or '.', then a colon. A path such as "./a:b.db" or "runs/x.db" has none.
std::optional<std::string_view> url_scheme(std::string_view url) {
  const auto colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view scheme = url.substr(0, colon);
  if (!std::isalpha(static_cast<unsigned char>(scheme[0]))) return std::nullopt;
  for (char c : scheme)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return std::nullopt;
  return scheme;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A URI's %HH escapes decoded, as SQLite decodes a file: URI's path and parameters.
Expected<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) return fail(fmt::format("a bad escape at \"{}\"", text.substr(i, 3)));
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  if (out.find('\0') != std::string::npos) return fail("a NUL in it");
  return out;
}

// The characters kept as they are in a file: URI's path; the rest is escaped.
std::string percent_encoded(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) ||
        std::string_view("/-._~").find(c) != std::string_view::npos)
      out += c;
    else
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  return out;
}

// The SQLite URI parameters a store may be opened with: none changes which file is opened.
constexpr std::string_view kKeptParameters[] = {"mode", "cache", "psow", "nolock", "immutable"};

}  // namespace

Expected<std::optional<SqliteTarget>> sqlite_target(std::string_view url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) return std::nullopt;
  std::string_view rest = url;
  if (url.starts_with("sqlite:")) {
    rest = url.substr(7);
    if (rest.starts_with("//")) rest.remove_prefix(2);
    if (rest.empty()) return fail("store: sqlite: needs a file, e.g. sqlite:results.db");
  } else if (auto scheme = url_scheme(url)) {
    return fail(
        fmt::format("store \"{}\": unknown scheme \"{}\"; expected sqlite:FILE, "
                    "postgresql://... or a file path (./{} for a file of that name)",
                    url, *scheme, url));
  }
  if (rest.empty()) return fail("store: empty URL; expected sqlite:FILE or postgresql://...");
  if (rest == ":memory:" || rest.starts_with(":memory:"))
    return fail("store: an in-memory database keeps nothing; give a file, e.g. sqlite:results.db");
  std::string path(rest);
  std::string parameters;
  if (rest.starts_with("file:")) {
    const auto refuse = [&](const std::string& why) {
      return fail(fmt::format("store \"{}\": {}; give the file as a path, e.g. sqlite:results.db",
                              url, why));
    };
    std::string_view uri = rest.substr(5);
    if (const auto hash = uri.find('#'); hash != std::string_view::npos) uri = uri.substr(0, hash);
    std::string_view query;
    if (const auto q = uri.find('?'); q != std::string_view::npos) {
      query = uri.substr(q + 1);
      uri = uri.substr(0, q);
    }
    if (uri.starts_with("//")) {
      const auto slash = uri.find('/', 2);
      const std::string_view host =
          uri.substr(2, slash == std::string_view::npos ? uri.npos : slash - 2);
      if (!host.empty() && host != "localhost")
        return refuse(fmt::format("a file on host \"{}\"", host));
      uri = slash == std::string_view::npos ? std::string_view() : uri.substr(slash);
    }
    auto decoded = percent_decoded(uri);
    if (!decoded) return refuse("its path has " + decoded.error().message);
    path = std::move(*decoded);
    if (path.empty()) return refuse("no file in it");
    while (!query.empty()) {
      const auto amp = query.find('&');
      const std::string_view pair = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (pair.empty()) continue;
      const auto eq = pair.find('=');
      auto key = percent_decoded(pair.substr(0, eq));
      auto value = percent_decoded(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
      if (!key || !value) return refuse("a parameter that cannot be read");
      if (std::find(std::begin(kKeptParameters), std::end(kKeptParameters), *key) ==
          std::end(kKeptParameters))
        return refuse(fmt::format("the parameter \"{}\" (only {} are taken)", *key,
                                  "mode, cache, psow, nolock and immutable"));
      if (*key == "mode" && *value == "memory")
        return refuse("an in-memory database keeps nothing");
      parameters += fmt::format("{}{}={}", parameters.empty() ? "?" : "&", percent_encoded(*key),
                                percent_encoded(*value));
    }
  }
  std::error_code ec;
  std::filesystem::path file = std::filesystem::absolute(path, ec);
  if (ec) return fail(fmt::format("store \"{}\": {}", url, ec.message()));
  file = std::filesystem::weakly_canonical(file, ec);
  if (ec) return fail(fmt::format("store \"{}\": {}", url, ec.message()));
  return SqliteTarget{file, "file:" + percent_encoded(file.string()) + parameters, path};
}

Expected<std::optional<StoredLog>> Store::log(std::int64_t job) {
  auto packed = packed_log(job);
  if (!packed) return std::unexpected(packed.error());
  if (!*packed) return std::nullopt;
  const PackedLog& p = **packed;
  return check_stored_log(p.spec, p.result, p.stored, p.checksum);
}

std::string name_as_it_reads(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c == 'i' || c == '1') c = 'l';
    if (c == '0') c = 'o';
  }
  return out;
}

std::string reads_as_sql(std::string_view column) {
  std::string sql(kNameAsItReads);
  sql.replace(sql.find('X'), 1, column);
  return sql;
}

std::optional<std::string> ownership_refusal(const std::string& name, std::int64_t version,
                                             const std::string& owner, const std::string& author) {
  if (author.empty() || version == 1 || owner == author) return std::nullopt;
  return fmt::format("the bot {} belongs to {}: give yours another name", name,
                     owner.empty() ? "the organizer" : "another author");
}

Expected<std::unique_ptr<Store>> open_store(std::string_view url, OpenMode mode) {
  if (url.empty()) return fail("store: empty URL; expected sqlite:FILE or postgresql://...");
  auto target = sqlite_target(url);
  if (!target) return std::unexpected(target.error());
  if (!*target) return open_postgres_store(std::string(url));
  return open_sqlite_store(**target, mode);
}

}  // namespace arbiter::tournament
