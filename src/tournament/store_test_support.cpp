// Test support for the store contract: fresh SQLite files in temporary directories, and fresh
// databases on the PostgreSQL server the test run was given.
#include "tournament/store_test_support.h"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <pqxx/pqxx>

namespace arbiter::tournament::testing {
namespace {

constexpr const char* kPostgresVariable = "ARBITER_TEST_POSTGRES_URL";

// The temporary directories made by this process, removed when it exits.
class TempDirs {
 public:
  ~TempDirs() {
    std::error_code ignored;
    for (const auto& d : dirs_) std::filesystem::remove_all(d, ignored);
  }
  std::filesystem::path make() {
    std::string pattern = (std::filesystem::temp_directory_path() / "arbiter-store-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("fresh_store_url: mkdtemp failed for " + pattern);
    std::lock_guard lock(mutex_);
    dirs_.emplace_back(pattern);
    return dirs_.back();
  }

 private:
  std::mutex mutex_;
  std::vector<std::filesystem::path> dirs_;
};

// `url` (postgresql://user@host:port/db?options) naming database `name` instead.
std::string with_database(const std::string& url, const std::string& name) {
  const auto scheme = url.find("://");
  const auto authority = scheme == std::string::npos ? 0 : scheme + 3;
  const auto query = url.find('?', authority);
  const auto path = url.find('/', authority);
  const auto authority_end = std::min(path, query);
  const std::string options = query == std::string::npos ? "" : url.substr(query);
  return url.substr(0, authority_end) + "/" + name + options;
}

}  // namespace

std::vector<std::string> contract_backends() {
  std::vector<std::string> out{"sqlite"};
  if (const char* url = std::getenv(kPostgresVariable); url != nullptr && *url != '\0')
    out.emplace_back(url);
  return out;
}

std::string fresh_store_url(const std::string& backend) {
  if (backend == "sqlite") {
    static TempDirs dirs;
    return "sqlite:" + (dirs.make() / "store.db").string();
  }
  // Test processes of one run may reuse a pid, so a random part keeps the names apart.
  static std::atomic<int> counter{0};
  static const std::uint64_t salt = std::random_device{}();
  const std::string name =
      fmt::format("t_{}_{}_{:x}", static_cast<long>(getpid()), counter++, salt & 0xffffffu);
  pqxx::connection c(backend);
  pqxx::nontransaction tx(c);
  tx.exec("CREATE DATABASE " + tx.quote_name(name));
  return with_database(backend, name);
}

void execute_sql(const std::string& url, const std::string& sql) {
  if (url.starts_with("sqlite:")) {
    sqlite3* db = nullptr;
    const std::string path = url.substr(7);
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      std::string why = sqlite3_errmsg(db);
      sqlite3_close(db);
      throw std::runtime_error("execute_sql: " + why);
    }
    sqlite3_busy_timeout(db, 30000);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    std::string why = message != nullptr ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    if (rc != SQLITE_OK) throw std::runtime_error("execute_sql: " + why);
    return;
  }
  pqxx::connection c(url);
  pqxx::work tx(c);
  tx.exec(sql);
  tx.commit();
}

}  // namespace arbiter::tournament::testing
