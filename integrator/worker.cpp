#include "integrator/worker.hpp"

#include <algorithm>

#include "common/request_limits.hpp"

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
  for (std::size_t k = 0; k < integrator.inputs().size(); ++k)
    expected_.push_back(integrator.inputs().arrived(k));
  worker_ = std::thread([this] { work(); });
}

Worker::~Worker() {
  stop();
}

void Worker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
  if (worker_.joinable()) worker_.join();
}

void Worker::provide(std::vector<ChannelSample> samples) {
  {
    std::lock_guard lock(arrived_mutex_);
    // All or none: each sample checked against the ones queued before it.
    std::vector<std::uint64_t> expected = expected_;
    for (const ChannelSample& s : samples) {
      integrator_.inputs().check(s, s.channel < expected.size() ? expected[s.channel] : 0);
      ++expected[s.channel];
    }
    expected_ = std::move(expected);
    arrived_.insert(arrived_.end(), samples.begin(), samples.end());
    has_arrived_.store(true);
  }
  wake();
}

void Worker::wake() {
  {
    std::lock_guard lock(wake_mutex_);
    wakeups_.fetch_add(1);
  }
  wake_cv_.notify_all();
}

std::exception_ptr Worker::hand_over_arrived() {
  if (!has_arrived_.load()) return nullptr;
  std::vector<ChannelSample> samples;
  {
    std::lock_guard lock(arrived_mutex_);
    samples.swap(arrived_);
    has_arrived_.store(false);
  }
  try {
    for (const ChannelSample& s : samples) integrator_.provide(s);
  } catch (...) {
    return std::current_exception();  // work() marks the epoch failed, as for a step
  }
  return nullptr;
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
      for (;;) {  // until there is work, a failure to report, or the end
        const std::uint32_t seen = wakeups_.load();
        if (stopping_) return;
        if ((failure = hand_over_arrived())) break;
        if (waiting_.load() == 0 && has_work()) break;
        lock.unlock();
        {  // returns at once if anyone woke it since `seen`
          std::unique_lock wait(wake_mutex_);
          wake_cv_.wait(wait, [&] { return wakeups_.load() != seen; });
        }
        lock.lock();
      }
      std::uint64_t taken = 0;
      try {
        if (!failure)
          integrator_.step_while(integrator_.config().last_step, [&] {
            return taken++ < batch_size_ && waiting_.load() == 0 && !has_arrived_.load() &&
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
      // The batch did not reach everyone it must (a consumer or the monitor is gone or
      // refused it): the run cannot go on past it. Tell the monitor why, if it is there;
      // otherwise its heartbeat notices.
      try {
        sink_.fail(std::current_exception(), epoch, batch.first_step);
      } catch (...) {
        // Nobody left to tell.
      }
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
