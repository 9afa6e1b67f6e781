#include "core/interrupt.h"

namespace arbiter {
namespace {
thread_local const std::atomic<bool>* t_flag = nullptr;
thread_local const Deadline* t_deadline = nullptr;
}  // namespace

const Deadline* call_deadline() { return t_deadline; }

void set_call_deadline(const Deadline* deadline) { t_deadline = deadline; }

bool call_abandoned() {
  return t_flag != nullptr && t_flag->load(std::memory_order_acquire);
}

namespace {
std::atomic<int> g_hanging{0};
struct Hanging {
  Hanging() { g_hanging.fetch_add(1); }
  ~Hanging() { g_hanging.fetch_sub(1); }
};
}  // namespace

int hanging_threads() { return g_hanging.load(); }

void hang_until_abandoned() {
  const Hanging counted;
  if (t_flag == nullptr) {
    static std::atomic<bool> never{false};  // nobody ever sets it
    never.wait(false);
    return;
  }
  while (!t_flag->load(std::memory_order_acquire)) t_flag->wait(false, std::memory_order_acquire);
}

void bind_abandon_flag(const std::atomic<bool>* flag) {
  t_flag = flag;
}

}  // namespace arbiter
