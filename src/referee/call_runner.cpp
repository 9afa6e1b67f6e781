#include "referee/call_runner.h"

#include "core/interrupt.h"

namespace arbiter {
namespace {
std::atomic<int> g_strays{0};
}

struct CallRunner::Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> job;
  bool has_job = false;
  bool done = false;
  bool quit = false;
  std::atomic<bool> abandoned{false};
};

CallRunner::CallRunner(Isolation isolation) : isolation_(isolation) {
  if (isolation_ != Isolation::thread) return;
  shared_ = std::make_shared<Shared>();
  // The thread owns a reference to the shared block, so an abandoned thread never touches freed
  // memory even after the runner and the referee are gone.
  thread_ = std::thread([shared = shared_] {
    bind_abandon_flag(&shared->abandoned);
    std::unique_lock lock(shared->mu);
    for (;;) {
      shared->cv.wait(lock, [&] { return shared->has_job || shared->quit; });
      if (shared->quit && !shared->has_job) return;
      auto job = std::move(shared->job);
      shared->has_job = false;
      lock.unlock();
      job();
      lock.lock();
      shared->done = true;
      shared->cv.notify_all();
      if (shared->abandoned.load()) {
        g_strays.fetch_sub(1);
        return;
      }
    }
  });
}

CallRunner::~CallRunner() {
  if (!thread_.joinable()) return;
  if (abandoned_) {
    thread_.detach();
    return;
  }
  {
    std::lock_guard guard(shared_->mu);
    shared_->quit = true;
  }
  shared_->cv.notify_all();
  thread_.join();
}

bool CallRunner::run(const std::function<void()>& job, const Deadline& deadline) {
  if (abandoned_) return false;
  if (isolation_ == Isolation::inline_call) {
    job();
    return !deadline.passed();
  }
  std::unique_lock lock(shared_->mu);
  shared_->job = job;
  shared_->has_job = true;
  shared_->done = false;
  shared_->cv.notify_all();
  const bool finished =
      deadline.clock().wait_until(lock, shared_->cv, deadline.at(), [&] { return shared_->done; });
  if (finished) return true;
  abandoned_ = true;
  g_strays.fetch_add(1);
  shared_->abandoned.store(true, std::memory_order_release);
  shared_->abandoned.notify_all();
  return false;
}

int CallRunner::stray_threads() {
  return g_strays.load();
}

}  // namespace arbiter
