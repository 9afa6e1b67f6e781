#include "core/ejection.h"

#include <array>
#include <utility>

namespace arbiter {
namespace {
constexpr std::array<std::pair<Why, std::string_view>, 5> kNames{{
    {Why::exception, "exception"},
    {Why::timeout, "timeout"},
    {Why::malformed, "malformed"},
    {Why::foul, "foul"},
    {Why::hang_up, "hang-up"},
}};
}  // namespace

std::string_view to_string(Why why) {
  for (const auto& [w, name] : kNames)
    if (w == why) return name;
  return "unknown";
}

std::optional<Why> why_from_string(std::string_view text) {
  for (const auto& [w, name] : kNames)
    if (name == text) return w;
  return std::nullopt;
}

}  // namespace arbiter
