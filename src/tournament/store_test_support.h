// Test support for the store contract: a fresh, empty store for each test, on any back end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tournament/store.h"

namespace arbiter::tournament::testing {

// The back ends the contract runs against: "sqlite" always, plus the PostgreSQL URL in the
// environment variable ARBITER_TEST_POSTGRES_URL when it is set (tests/CMakeLists.txt sets it
// through scripts/with_postgres.sh, which starts a server; the variable is never optional there).
std::vector<std::string> contract_backends();

// A URL naming a new, empty store on `backend` ("sqlite": a new file in a temporary directory;
// a postgresql:// URL: a new database on that server). Each call gives a different store.
std::string fresh_store_url(const std::string& backend);

// Runs `sql` on the store at `url` behind the store's back (tests that damage rows on purpose).
// Throws std::runtime_error when it fails.
void execute_sql(const std::string& url, const std::string& sql);

}  // namespace arbiter::tournament::testing
