#include "integrator/run_ahead.hpp"

#include <algorithm>
#include <limits>

#include "system/request_limits.hpp"

namespace kausal {

RunAhead::RunAhead(Integrator& integrator, std::mutex& mutex, BatchSink& sink,
                   std::size_t batch_size, std::uint64_t window, std::uint64_t last_step)
    : integrator_(integrator),
      mutex_(mutex),
      sink_(sink),
      // The window bounds the state list, the batch the states held before they are shipped.
      batch_size_(std::max<std::uint64_t>(
          limits::within(integrator.name(), "run_ahead: batch_size", batch_size,
                         integrator.max_reply_steps(), "steps of this state size per batch"),
          1)),
      window_(std::max<std::uint64_t>(
          limits::within(integrator.name(), "run_ahead: window", window,
                         integrator.max_uncommitted_steps(),
                         "steps of this state size the state list may hold"),
          1)),
      last_step_(last_step),
      committed_(integrator.step()) {
  integrator_.run_ahead_mode();
  worker_ = std::thread([this] { work(); });
}

RunAhead::~RunAhead() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

std::uint64_t RunAhead::limit() const {
  if (held_) return held_at_;
  const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - committed_;
  return std::min(committed_ + std::min(window_, room), last_step_);
}

// Whatever goes wrong in the worker ends up with the monitor as a reported failure; nothing
// escapes the thread.
void RunAhead::work() {
  try {
    step_and_ship();
  } catch (...) {
    const std::exception_ptr failure = std::current_exception();
    try {
      std::unique_lock lock(mutex_);
      failed_ = true;
      const std::uint32_t epoch = integrator_.epoch();
      const std::uint64_t step = integrator_.step() + 1;
      lock.unlock();
      sink_.fail(failure, epoch, step);
    } catch (...) {
      // The monitor cannot be told: it notices the silence by its heartbeat.
    }
  }
}

void RunAhead::step_and_ship() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] {
      return stopping_ || (waiting_.load() == 0 && !failed_ && integrator_.step() < limit());
    });
    if (stopping_) return;
    const std::uint64_t now = integrator_.step();
    std::exception_ptr failure;
    try {
      const StateBatch step = integrator_.advance(now + 1, std::min(committed_, now));
      if (pending_.states.empty() || pending_.epoch != step.epoch) {
        pending_ = step;
      } else {
        pending_.states.insert(pending_.states.end(), step.states.begin(), step.states.end());
      }
      if (pending_.count() < batch_size_ && integrator_.step() < limit()) continue;
    } catch (...) {
      failure = std::current_exception();
      failed_ = true;
    }
    // Ship what is ready (before a failure: the states computed up to it), then the failure.
    const StateBatch out = std::move(pending_);
    pending_ = StateBatch{};
    const std::uint32_t epoch = integrator_.epoch();
    lock.unlock();
    try {
      if (!out.states.empty()) sink_.deliver(out);
      if (failure) sink_.fail(failure, epoch, now + 1);
    } catch (...) {
      // The monitor cannot be reached: nothing more to do than stop.
      lock.lock();
      stopping_ = true;
      return;
    }
    lock.lock();
  }
}

RollbackResult RunAhead::rollback(std::uint64_t step) {
  return exclusive([&] {
    const RollbackResult r = integrator_.rollback(step);
    pending_ = StateBatch{};  // computed in the old epoch: never to be sent
    held_ = true;
    failed_ = false;  // a failure of the old epoch's future is gone with it
    held_at_ = step;
    return r;
  });
}

std::vector<double> RunAhead::apply_event(const Event& event) {
  return exclusive([&] { return integrator_.apply_event(event); });
}

void RunAhead::commit(std::uint64_t gvt) {
  exclusive([&] {
    integrator_.commit(std::min(gvt, integrator_.step()));
    committed_ = gvt;
    held_ = false;
  });
}

}  // namespace kausal
