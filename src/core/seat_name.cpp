#include "core/seat_name.h"

#include <fmt/format.h>

#include "core/json.h"

namespace arbiter {

std::string seat_name_error(std::string_view name) {
  return fmt::format("player name {}: {}", excerpt(Json(std::string(name))), kSeatNameRule);
}

}  // namespace arbiter
