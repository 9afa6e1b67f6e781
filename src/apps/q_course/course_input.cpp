#include "apps/q_course/course_input.h"

#include <set>

namespace arbiter::q::harness {

Json keep_later_cells(Json jmap) {
  if (!jmap.is_array()) return jmap;
  for (Json& row : jmap) {
    if (!row.is_array() || row.size() < 3) continue;
    // From the last cell back: a column seen already is an earlier cell the later one replaces.
    std::set<std::int64_t> seen;
    Json kept = Json::array();
    for (std::size_t k = row.size() - 1; k >= 1; --k) {
      const Json& cell = row[k];
      if (cell.is_array() && cell.size() == 2 && cell[0].is_number_integer()) {
        if (!seen.insert(cell[0].get<std::int64_t>()).second) continue;
      }
      kept.push_back(cell);
    }
    Json rebuilt = Json::array({row[0]});
    for (auto it = kept.rbegin(); it != kept.rend(); ++it) rebuilt.push_back(*it);
    row = std::move(rebuilt);
  }
  return jmap;
}

Json keep_later_cells_of_map(Json object) {
  if (object.is_object() && object.contains("map"))
    object["map"] = keep_later_cells(std::move(object["map"]));
  return object;
}

}  // namespace arbiter::q::harness
