// StepAlarm: a watcher thread that rings a stepping thread past its watchdog; the ring turns on
// the line hook of the Lua thread being stepped.
#include "lua/step_alarm.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace arbiter::lua {
namespace {

constexpr auto kLook = std::chrono::milliseconds(5);
constexpr std::intptr_t kAnyStep = -1;  // the due time of ring_now()

std::int64_t coarse_now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A stepping thread as the watcher sees it.
struct Slot {
  pthread_t thread{};
  std::atomic<std::int64_t> due{0};  // coarse ns at which to ring; 0: not armed
  std::atomic<bool> rang{false};     // set by the handler once a ring has landed
};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler stores to it");

// What the handler of one thread works on: plain data, so that reading it from a signal handler
// needs no thread-local initialisation.
struct Armed {
  lua_State* L;
  const Countdown* countdown;
  Slot* slot;
  std::int64_t due;  // of the step armed now: a ring sent for an earlier step is ignored
  volatile sig_atomic_t holds;
};
thread_local Armed t_armed{};

void on_ring(int, siginfo_t* info, void*) {
  const int saved = errno;
  Armed& a = t_armed;
  std::atomic_signal_fence(std::memory_order_acquire);
  const auto due = reinterpret_cast<std::intptr_t>(info->si_value.sival_ptr);
  if (a.L != nullptr && a.holds == 0 && (due == a.due || due == kAnyStep)) {
    lua_State* L = a.L;
    const lua_Hook hook = lua_gethook(L);
    const int mask = lua_gethookmask(L);
    const int left = (*a.countdown)(L);
    // left < 1: the count hook is being called right now; the watcher rings again.
    if (hook != nullptr && (mask & LUA_MASKCOUNT) != 0 && left >= 1) {
      lua_sethook(L, hook, mask | LUA_MASKLINE, left);
      a.slot->rang.store(true, std::memory_order_relaxed);
    }
  }
  errno = saved;
}

struct Watcher {
  std::mutex mu;
  std::vector<Slot*> slots;
  bool running = false;

  [[noreturn]] void run() {
    for (;;) {
      std::this_thread::sleep_for(kLook);
      const std::int64_t now = coarse_now_ns();
      std::lock_guard lock(mu);
      for (Slot* s : slots) {
        const std::int64_t due = s->due.load(std::memory_order_acquire);
        if (due != 0 && now >= due && !s->rang.load(std::memory_order_relaxed)) {
          sigval value{};
          value.sival_ptr = reinterpret_cast<void*>(static_cast<std::intptr_t>(due));
          ::pthread_sigqueue(s->thread, StepAlarm::signal_number(), value);
        }
      }
    }
  }
};

// Never destroyed: its thread runs until the process ends.
Watcher& watcher() {
  static Watcher* w = [] {
    auto* made = new Watcher;
    struct sigaction sa {};
    sa.sa_sigaction = &on_ring;
    ::sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    if (::sigaction(StepAlarm::signal_number(), &sa, nullptr) != 0) return made;
    try {
      std::thread(&Watcher::run, made).detach();
      made->running = true;
    } catch (const std::system_error&) {
    }
    return made;
  }();
  return *w;
}

// The calling thread's place in the watcher's list, for as long as the thread lives.
struct Registration {
  Slot slot;
  bool listed = false;
  Registration() {
    Watcher& w = watcher();
    if (!w.running) return;
    slot.thread = ::pthread_self();
    std::lock_guard lock(w.mu);
    w.slots.push_back(&slot);
    listed = true;
  }
  ~Registration() {
    if (!listed) return;
    Watcher& w = watcher();
    std::lock_guard lock(w.mu);
    std::erase(w.slots, &slot);
  }
};

}  // namespace

int StepAlarm::signal_number() {
  return SIGRTMIN + 6;
}

bool StepAlarm::ring_now(pthread_t thread) {
  sigval value{};
  value.sival_ptr = reinterpret_cast<void*>(kAnyStep);
  return ::pthread_sigqueue(thread, signal_number(), value) == 0;
}

void StepAlarm::arm(lua_State* L, const Countdown& countdown, std::chrono::milliseconds limit) {
  thread_local Registration registration;
  if (!registration.listed) return;
  Armed& a = t_armed;
  a.countdown = &countdown;
  a.slot = &registration.slot;
  registration.slot.rang.store(false, std::memory_order_relaxed);
  // The coarse clock may lag by a tick: ring a tick late rather than early.
  static const std::int64_t tick = [] {
    timespec res{};
    ::clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    return std::max<std::int64_t>(static_cast<std::int64_t>(res.tv_sec) * 1'000'000'000 +
                                      res.tv_nsec,
                                  1'000'000);
  }();
  const std::int64_t due = coarse_now_ns() +
                           std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count() +
                           tick;
  a.L = nullptr;
  std::atomic_signal_fence(std::memory_order_release);
  a.due = due;
  std::atomic_signal_fence(std::memory_order_release);
  a.L = L;
  std::atomic_signal_fence(std::memory_order_release);
  registration.slot.due.store(due, std::memory_order_release);
}

void StepAlarm::rearm(std::chrono::milliseconds delay) {
  Armed& a = t_armed;
  if (a.slot == nullptr || a.L == nullptr) return;
  a.slot->due.store(0, std::memory_order_release);
  const std::int64_t due =
      coarse_now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(delay).count();
  a.due = due;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  a.slot->rang.store(false, std::memory_order_relaxed);
  a.slot->due.store(due, std::memory_order_release);
}

void StepAlarm::disarm() {
  Armed& a = t_armed;
  if (a.slot == nullptr) return;
  a.slot->due.store(0, std::memory_order_release);
  a.L = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

StepAlarm::Hold::Hold() {
  t_armed.holds = t_armed.holds + 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

StepAlarm::Hold::~Hold() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_armed.holds = t_armed.holds - 1;
}

}  // namespace arbiter::lua
