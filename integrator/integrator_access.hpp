#pragma once
// How every call from outside reaches an Integrator, for the servant and the in-process
// deployment alike: under the lock before start(), through the worker's exclusive() once
// started, so that the worker pauses at a step boundary and sees what the call did.
//
// The worker is made and published under the lock. A call that finds no worker published
// therefore runs before the worker first looks for work: a producer may provide its
// consumer before the consumer's start() (the direct data path), and nothing it provides
// is lost.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "common/errors.hpp"
#include "integrator/worker.hpp"

namespace kausal {

class IntegratorAccess {
 public:
  // Declared last in its owner, so that the worker's thread ends before the Integrator and
  // the sink it uses go.
  IntegratorAccess() = default;
  IntegratorAccess(const IntegratorAccess&) = delete;
  IntegratorAccess& operator=(const IntegratorAccess&) = delete;

  // f() under the lock before start(), with the worker paused once started.
  template <typename F>
  auto call(F&& f) -> decltype(f()) {
    return call(f, [&](Worker& w) { return w.exclusive(f); });
  }
  // f() under the lock before start(); started, started_call(worker) instead.
  template <typename F, typename G>
  auto call(F&& f, G&& started_call) -> decltype(f()) {
    if (Worker* w = active_.load()) return started_call(*w);
    std::unique_lock lock(mutex_);
    if (Worker* w = active_.load()) {
      lock.unlock();
      return started_call(*w);
    }
    return f();
  }

  // Under the lock: make(mutex) returns the worker (made with this mutex), which is then
  // published. ProtocolError naming `who` if started already.
  template <typename Make>
  void start(const std::string& who, Make&& make) {
    std::lock_guard lock(mutex_);
    if (worker_) throw ProtocolError(who, "start() twice");
    worker_ = make(mutex_);
    active_.store(worker_.get());
  }

  // Ends the worker's thread (idempotent); calls still reach the Integrator afterwards.
  void stop() {
    if (worker_) worker_->stop();
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<Worker> worker_;
  std::atomic<Worker*> active_{nullptr};  // worker_, for callers outside the lock
};

}  // namespace kausal
