// open_store: picks the back end from the URL's scheme.
#include "tournament/store.h"

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

}  // namespace

Expected<std::optional<StoredLog>> Store::log(std::int64_t job) {
  auto packed = packed_log(job);
  if (!packed) return std::unexpected(packed.error());
  if (!*packed) return std::nullopt;
  const PackedLog& p = **packed;
  return check_stored_log(p.spec, p.result, p.stored, p.checksum);
}

Expected<std::unique_ptr<Store>> open_store(std::string_view url, OpenMode mode) {
  if (url.empty()) return fail("store: empty URL; expected sqlite:FILE or postgresql://...");
  if (url.starts_with("postgresql://") || url.starts_with("postgres://"))
    return open_postgres_store(std::string(url));
  if (url.starts_with("sqlite:")) {
    std::string_view path = url.substr(7);
    if (path.starts_with("//")) path.remove_prefix(2);
    if (path.empty()) return fail("store: sqlite: needs a file, e.g. sqlite:results.db");
    return open_sqlite_store(std::string(path), mode);
  }
  if (auto scheme = url_scheme(url))
    return fail(
        fmt::format("store \"{}\": unknown scheme \"{}\"; expected sqlite:FILE, "
                    "postgresql://... or a file path (./{} for a file of that name)",
                    url, *scheme, url));
  return open_sqlite_store(std::string(url), mode);
}

}  // namespace arbiter::tournament
