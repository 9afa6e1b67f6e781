// TOML as the organizer's and the author's files are written (tournament files, bot manifests),
// read into JSON so that every setting is checked by the same code as when it arrives as JSON.
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "core/json.h"

namespace arbiter::tournament {

// A TOML value as JSON: tables, arrays, strings, integers, booleans and finite floats as
// themselves; a nan, inf, date or time as a string that says no setting takes it.
Json toml_to_json(const toml::node& node);

// Parses TOML text; the Error is one line, "SOURCE:LINE:COLUMN: WHY".
Expected<toml::table> parse_toml_table(std::string_view text, const std::string& source);

// Parses TOML text into JSON (a top-level object). The Error is one line,
// "SOURCE:LINE:COLUMN: WHY".
Expected<Json> parse_toml(std::string_view text, const std::string& source);

}  // namespace arbiter::tournament
