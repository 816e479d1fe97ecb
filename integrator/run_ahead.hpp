#pragma once
// The optimistic side of an Integrator (docs/model.md §3): a worker thread that steps as fast as
// it may — at most `window` steps past the last commit — and ships its states in batches,
// while rollbacks, events and commits arrive from other threads. Those pause the worker at
// a step boundary; batches are delivered without the lock held, so a delivery that waits
// (a two-way call to the monitor) never blocks a rollback, and a batch that was on its way
// during a rollback carries the old epoch and is dropped by the monitor.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "integrator/integrator.hpp"

namespace kausal {

class BatchSink {
 public:
  virtual ~BatchSink() = default;
  virtual void deliver(const StateBatch& batch) = 0;
  // The worker could not compute `step` in `epoch` (error: a kausal::Error). It waits for
  // a rollback to a new epoch before it steps again.
  virtual void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) = 0;
};

class RunAhead {
 public:
  // `mutex` guards `integrator` for everyone (the owner locks it for its own calls too,
  // through exclusive()). Starts the worker at once. ProtocolError if the window or the
  // batch exceeds the Integrator's budgets (max_uncommitted_steps, max_reply_steps).
  RunAhead(Integrator& integrator, std::mutex& mutex, BatchSink& sink, std::size_t batch_size,
           std::uint64_t window, std::uint64_t last_step);
  ~RunAhead();
  RunAhead(const RunAhead&) = delete;
  RunAhead& operator=(const RunAhead&) = delete;

  // Rolls back and holds the worker at `step` until the next commit.
  RollbackResult rollback(std::uint64_t step);
  std::vector<double> apply_event(const Event& event);
  // Frees the state list before gvt and lets the worker step up to gvt + window.
  void commit(std::uint64_t gvt);

  // Runs f with the worker paused at a step boundary and the mutex held.
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
  void step_and_ship();
  std::uint64_t limit() const;

  Integrator& integrator_;
  std::mutex& mutex_;
  BatchSink& sink_;
  std::size_t batch_size_;
  std::uint64_t window_;
  std::uint64_t last_step_;
  std::uint64_t committed_ = 0;  // the last gvt committed (may lie ahead of the step)
  std::uint64_t held_at_ = 0;    // after a rollback: no stepping past this until a commit
  bool held_ = false;
  bool failed_ = false;  // in the current epoch; a rollback clears it
  bool stopping_ = false;
  std::atomic<int> waiting_{0};  // requests waiting for the lock: the worker yields to them
  std::condition_variable cv_;
  StateBatch pending_;
  std::thread worker_;
};

}  // namespace kausal
