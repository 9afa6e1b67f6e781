#include "core/time_control.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"

namespace arbiter {
namespace {

thread_local const CallClock* t_clock = nullptr;

std::string text_of(Duration d) {
  return format_duration(std::chrono::duration_cast<std::chrono::microseconds>(d));
}

// format_duration writes "1.5 s"; the option's form has no space.
std::string compact(Duration d) {
  std::string s = text_of(d);
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

Expected<TimeControl> parse_time_control(std::string_view text) {
  const auto refuse = [&](const std::string& why) {
    return fail(fmt::format("--clock \"{}\": {}; write BANK+INCREMENT such as 60s+1s or "
                            "10s+0.1s (optionally /GRACE for the first call, as in 60s+1s/5s, "
                            "and ~DELAY free in every call, as in 60s+0s~2s)",
                            text, why));
  };
  TimeControl tc;
  std::string_view rest = text;
  std::string_view delay;
  const bool has_delay = rest.find('~') != std::string_view::npos;
  if (has_delay) {
    delay = rest.substr(rest.find('~') + 1);
    rest = rest.substr(0, rest.find('~'));
  }
  std::string_view grace;
  const bool has_grace = rest.find('/') != std::string_view::npos;
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    grace = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  std::string_view increment;
  const bool has_increment = rest.find('+') != std::string_view::npos;
  if (has_increment) {
    const auto plus = rest.find('+');
    increment = rest.substr(plus + 1);
    rest = rest.substr(0, plus);
  }
  if ((has_increment && increment.empty()) || (has_delay && delay.empty()) ||
      (has_grace && grace.empty()))
    return refuse("a part after +, / or ~ is missing");
  auto bank = parse_duration(rest);
  if (!bank) return refuse(bank.error().message);
  if (bank->count() <= 0) return refuse("the bank must be more than 0");
  tc.bank = *bank;
  if (!increment.empty()) {
    auto inc = parse_duration(increment);
    if (!inc) return refuse(inc.error().message);
    tc.increment = *inc;
  }
  if (!grace.empty()) {
    auto g = parse_duration(grace);
    if (!g) return refuse(g.error().message);
    tc.first_grace = *g;
  }
  if (!delay.empty()) {
    auto d = parse_duration(delay);
    if (!d) return refuse(d.error().message);
    tc.delay = *d;
  }
  if (tc.bank > std::chrono::hours(24) || tc.increment > std::chrono::hours(1) ||
      tc.first_grace > std::chrono::hours(1) || tc.delay > std::chrono::hours(1))
    return refuse("at most 24 h of bank and 1 h of increment, grace or delay");
  return tc;
}

std::string format_time_control(const TimeControl& tc) {
  std::string s = compact(tc.bank) + "+" + compact(tc.increment);
  if (tc.first_grace.count() > 0) s += "/" + compact(tc.first_grace);
  if (tc.delay.count() > 0) s += "~" + compact(tc.delay);
  return s;
}

const CallClock* call_clock() { return t_clock; }

void set_call_clock(const CallClock* clock) { t_clock = clock; }

}  // namespace arbiter
