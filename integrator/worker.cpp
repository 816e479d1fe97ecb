#include "integrator/worker.hpp"

#include <algorithm>

#include "system/request_limits.hpp"

namespace kausal {

Worker::Worker(Integrator& integrator, std::mutex& mutex, BatchSink& sink, std::uint64_t batch_size,
               std::uint64_t window)
    : integrator_(integrator),
      mutex_(mutex),
      sink_(sink),
      // The batch bounds the states held before they are shipped, the window the state list.
      batch_size_(
          std::max<std::uint64_t>(limits::within(integrator.name(), "batch_size", batch_size,
                                                 batch_steps_within_budget(integrator.config()),
                                                 "steps of this state and output size per batch"),
                                  1)) {
  integrator_.run_on_its_own(
      std::max<std::uint64_t>(limits::within(integrator.name(), "window", window,
                                             held_steps_within_budget(integrator.config()),
                                             "steps of this size the state list may hold"),
                              1));
  worker_ = std::thread([this] { work(); });
}

Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

bool Worker::has_work() const {
  if (failed_in_ == integrator_.epoch()) return false;
  return integrator_.can_step() || integrator_.has_final();
}

// Nothing escapes the thread: whatever a step or a delivery throws (a kausal::Error, an
// allocation that failed, anything) is reported as this Integrator's failure; the monitor's
// heartbeat notices a worker that cannot even report.
void Worker::work() {
  for (;;) {
    StateBatch batch;
    std::exception_ptr failure;
    std::uint32_t epoch = 0;
    std::uint64_t failed_step = 0;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || (waiting_.load() == 0 && has_work()); });
      if (stopping_) return;
      std::uint64_t taken = 0;
      try {
        integrator_.step_while(integrator_.config().last_step, [&] {
          return taken++ < batch_size_ && waiting_.load() == 0 &&
                 !integrator_.has_final_sample_point();
        });
      } catch (...) {
        failure = std::current_exception();
      }
      // Ship what is final (before a failure: the steps computed up to it), then the failure.
      try {
        batch = integrator_.take_final();
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
      epoch = integrator_.epoch();
      if (failure) failed_in_ = epoch;
      failed_step = integrator_.step() + 1;
    }
    try {
      if (batch.count() > 0) sink_.deliver(batch);
    } catch (...) {
      // Steps nobody receives are wasted work; the monitor notices by its heartbeat.
      std::lock_guard lock(mutex_);
      stopping_ = true;
      return;
    }
    try {
      if (failure) sink_.fail(failure, epoch, failed_step);
    } catch (...) {
      // Nobody left to tell.
    }
  }
}

}  // namespace kausal
