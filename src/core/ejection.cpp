#include "core/ejection.h"

#include "core/names.h"

namespace arbiter {
namespace {
constexpr NameTable<Why, 11> kNames{{
    {Why::exception, "exception"},
    {Why::timeout, "timeout"},
    {Why::malformed, "malformed"},
    {Why::foul, "foul"},
    {Why::hang_up, "hang-up"},
    {Why::memory_limit, "memory-limit"},
    {Why::process_limit, "process-limit"},
    {Why::output_limit, "output-limit"},
    {Why::cpu_limit, "cpu-limit"},
    {Why::time_bank, "time-bank-exhausted"},
    {Why::timeout_under_load, "timeout-under-load"},
}};
}  // namespace

std::string_view to_string(Why why) {
  return name_of(kNames, why);
}

std::optional<Why> why_from_string(std::string_view text) {
  return from_name(kNames, text);
}

std::string bounded_detail(std::string detail) {
  if (detail.size() <= kMaxDetailBytes) return detail;
  const std::size_t size = detail.size();
  std::size_t cut = kMaxDetailBytes - 40;
  // Not inside a UTF-8 sequence: back to the byte that starts a character.
  while (cut > 0 && (static_cast<unsigned char>(detail[cut]) & 0xC0) == 0x80) --cut;
  detail.resize(cut);
  detail += "... (" + std::to_string(size) + " bytes in all)";
  return detail;
}

}  // namespace arbiter
