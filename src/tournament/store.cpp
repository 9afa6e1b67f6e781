// open_store: picks the back end from the URL's scheme.
#include "tournament/store.h"

namespace arbiter::tournament {

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
  if (const auto colon = url.find("://"); colon != std::string_view::npos)
    return fail("store: unknown scheme \"" + std::string(url.substr(0, colon)) +
                "\"; expected sqlite:FILE or postgresql://...");
  return open_sqlite_store(std::string(url), mode);
}

}  // namespace arbiter::tournament
