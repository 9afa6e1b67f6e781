// Errors from PostgreSQL as arbiter reports them: one line, without the statement's text.
#pragma once

#include <string>
#include <string_view>

#include "core/json.h"

namespace arbiter::tournament {

// A libpqxx message (the error, DETAIL:, HINT:, CONTEXT:, the statement with a caret) as one
// line: the error and its detail and hint, at most 500 characters.
std::string one_line(std::string_view text);

// "postgresql: " and one_line(what).
Error postgres_error(std::string_view what);

}  // namespace arbiter::tournament
