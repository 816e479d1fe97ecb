#pragma once
// An Integrator stepping on its own thread (docs/model.md §3, §4), the same for every model
// kind and method: it steps whenever the Integrator may (inputs there or predictable, within
// its window past the committed step, not held after a rollback) and ships every newly
// final stretch of steps to its sink. Events, rollbacks and commits arrive from other
// threads; they pause the worker at a step boundary (exclusive()). Samples are queued
// without waiting (provide()) and handed over before the next step. Batches are
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
  // May throw (a receiver is gone or refused it): the worker reports that as its failure at
  // the batch's first step, then stops.
  virtual void deliver(const StateBatch& batch) = 0;
  // The worker could not compute `step` in `epoch` (error: any exception). It steps again
  // only after a rollback to a new epoch.
  virtual void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) = 0;
};

class Worker {
 public:
  // `mutex` guards `integrator` for everyone (the owner locks it for its own calls too,
  // through exclusive()); an owner whose Integrator others may already provide holds it
  // while constructing. Starts the thread at once. ProtocolError if the batch
  // or the window exceed the Integrator's budgets (integrator.hpp).
  Worker(Integrator& integrator, std::mutex& mutex, BatchSink& sink, std::uint64_t batch_size,
         std::uint64_t window);
  ~Worker();
  // Ends the thread (idempotent). Calls through exclusive() still work afterwards, so that
  // workers that call each other (the direct data path) can all be stopped before any goes.
  void stop();
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
      Worker& worker;
      ~Resume() { worker.wake(); }
    } resume{*this};
    return f();
  }

  // Samples for the input channels, from any thread, at once: the worker hands them to the
  // Integrator before its next step. A producer providing its consumer (the direct data
  // path) must not wait for the step the consumer is in. Checked as they are queued: a
  // sample out of order, for a channel the partition lacks or not finite throws as
  // Integrator::provide would, and none of them is queued.
  void provide(std::vector<ChannelSample> samples);

 private:
  void work();
  bool has_work() const;
  void wake();
  // Gives the Integrator the samples that arrived (under mutex_): what it refused, or null.
  std::exception_ptr hand_over_arrived();

  Integrator& integrator_;
  std::mutex& mutex_;
  BatchSink& sink_;
  std::uint64_t batch_size_;
  std::optional<std::uint32_t> failed_in_;  // the epoch the worker failed in
  bool stopping_ = false;
  std::atomic<int> waiting_{0};  // requests waiting for the lock: the worker yields to them
  // Bumped (under wake_mutex_) by everything the worker may wait for (a request done,
  // samples, stop): it sleeps on wake_cv_ until the count moves, so a wake-up between its
  // look and its sleep is never lost, and providers need not take mutex_. Not an atomic
  // wait: libstdc++'s spins with a dozen sched_yield calls before it sleeps, which made the
  // system time of an optimistic run (docs/performance.md, "Build and test times").
  std::atomic<std::uint32_t> wakeups_{0};
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  std::mutex arrived_mutex_;
  std::vector<ChannelSample> arrived_;
  std::vector<std::uint64_t> expected_;  // per channel: the next sample's index
  std::atomic<bool> has_arrived_{false};
  std::thread worker_;
};

}  // namespace kausal
