#include "tournament/toml_json.h"

#include <cmath>

#include <fmt/format.h>

namespace arbiter::tournament {

Json toml_to_json(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    Json out = Json::object();
    for (const auto& [key, value] : *t) out[std::string(key.str())] = toml_to_json(value);
    return out;
  }
  if (const auto* a = node.as_array()) {
    Json out = Json::array();
    for (const auto& value : *a) out.push_back(toml_to_json(value));
    return out;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return i->get();
  if (const auto* f = node.as_floating_point()) {
    // JSON has no nan or inf (stored, they would come back as null): like a date, a value no
    // setting takes, which the setting's check then names.
    if (!std::isfinite(f->get())) return "(nan or inf, which no setting takes)";
    return f->get();
  }
  if (const auto* b = node.as_boolean()) return b->get();
  return "(a TOML date or time, which no setting takes)";
}

Expected<toml::table> parse_toml_table(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    const std::string why(e.description());
    if (at.line == 0) return fail(fmt::format("{}: {}", source, why));
    return fail(fmt::format("{}:{}:{}: {}", source, at.line, at.column, why));
  }
}

Expected<Json> parse_toml(std::string_view text, const std::string& source) {
  auto table = parse_toml_table(text, source);
  if (!table) return std::unexpected(table.error());
  return toml_to_json(*table);
}

}  // namespace arbiter::tournament
