#pragma once
// An Integrator stepping on its own thread (docs/model.md §3, §4), the same for every model
// kind and method: it steps whenever the Integrator may (inputs there or predictable, within
// its window past the committed step, not held after a rollback) and ships every newly
// final stretch of steps to its sink. Samples, events, rollbacks and commits arrive from
// other threads; they pause the worker at a step boundary (exclusive()). Batches are
// delivered without the lock held, so a delivery that waits (a two-way call to the monitor)
// never blocks a rollback; a batch that was on its way during a rollback carries the old
// epoch and the monitor drops it.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "integrator/integrator.hpp"

namespace kausal {

class BatchSink {
 public:
  virtual ~BatchSink() = default;
  // May throw (the receiver is gone): the worker then stops, telling nobody.
  virtual void deliver(const StateBatch& batch) = 0;
  // The worker could not compute `step` in `epoch` (error: any exception). It steps again
  // only after a rollback to a new epoch.
  virtual void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) = 0;
};

class Worker {
 public:
  // `mutex` guards `integrator` for everyone (the owner locks it for its own calls too,
  // through exclusive()). Starts the thread at once. ProtocolError if the batch or the
  // window exceed the Integrator's budgets (integrator.hpp).
  Worker(Integrator& integrator, std::mutex& mutex, BatchSink& sink, std::uint64_t batch_size,
         std::uint64_t window);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs f with the worker paused at a step boundary and the mutex held: every call on the
  // Integrator from outside (provide, apply_event, rollback, commit, statistics) goes
  // through here. A rollback starts a new epoch, which revives a worker that failed in an
  // older one.
  template <typename F>
  auto exclusive(F&& f) -> decltype(f()) {
    waiting_.fetch_add(1);
    std::unique_lock lock(mutex_);
    waiting_.fetch_sub(1);
    struct Resume {
      std::condition_variable& cv;
      ~Resume() { cv.notify_all(); }
    } resume{cv_};
    return f();
  }

 private:
  void work();
  bool has_work() const;

  Integrator& integrator_;
  std::mutex& mutex_;
  BatchSink& sink_;
  std::uint64_t batch_size_;
  std::optional<std::uint32_t> failed_in_;  // the epoch the worker failed in
  bool stopping_ = false;
  std::atomic<int> waiting_{0};  // requests waiting for the lock: the worker yields to them
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace kausal
