#include "referee/call_record.h"

#include <chrono>

namespace arbiter {

void CallRecord::set_clock(Duration remaining) {
  clock_us_ = std::chrono::duration_cast<std::chrono::microseconds>(remaining).count();
}

std::string CallRecord::text(const Ejection* ejection, Duration elapsed,
                             std::optional<Duration> cpu) && {
  std::string out = std::move(line_);
  out += ",\"call\":";
  append_json_string(out, call_);
  if (clock_us_) {
    out += ",\"clock_us\":";
    append_json_int(out, *clock_us_);
  }
  if (cpu) {
    out += ",\"cpu_us\":";
    append_json_int(out, std::chrono::duration_cast<std::chrono::microseconds>(*cpu).count());
  }
  if (ejection != nullptr) {
    out += ",\"detail\":";
    append_json_string(out, ejection->detail);
  }
  out += ",\"elapsed_us\":";
  append_json_int(out, std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  if (reply_) {
    out += ",\"reply\":";
    out += *reply_;
  }
  out += ",\"seat\":";
  append_json_int(out, seat_);
  out += ",\"type\":\"call\",\"verdict\":";
  append_json_string(out, ejection != nullptr ? to_string(ejection->why) : "ok");
  out += '}';
  return out;
}

}  // namespace arbiter
