#include "core/interrupt.h"

namespace arbiter {
namespace {
thread_local const std::atomic<bool>* t_flag = nullptr;
}

bool call_abandoned() {
  return t_flag != nullptr && t_flag->load(std::memory_order_acquire);
}

void hang_until_abandoned() {
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
