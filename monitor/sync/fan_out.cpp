#include "monitor/sync/fan_out.hpp"

#include <algorithm>

#include "common/spin_wait.hpp"

namespace kausal {

FanOut::FanOut(std::size_t tasks, const std::vector<int>& lane_cpus)
    : tasks_(tasks),
      lanes_(lane_cpus.empty() ? tasks : std::min(tasks, lane_cpus.size())),
      pinned_(!lane_cpus.empty()),
      errors_(lanes_) {
  CPU_ZERO(&caller_affinity_);
  if (pinned_ && lanes_ > 0) {
    pthread_getaffinity_np(pthread_self(), sizeof caller_affinity_, &caller_affinity_);
    pin_current_thread(lane_cpus[0]);
  }
  for (std::size_t k = 1; k < lanes_; ++k) {
    const int cpu = pinned_ ? lane_cpus[k] : -1;
    threads_.emplace_back([this, k, cpu] {
      if (cpu >= 0) pin_current_thread(cpu);
      worker(k);
    });
  }
}

FanOut::~FanOut() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : threads_) t.join();
  if (pinned_ && lanes_ > 0)
    pthread_setaffinity_np(pthread_self(), sizeof caller_affinity_, &caller_affinity_);
}

void FanOut::run_lane(std::size_t lane) {
  try {
    for (std::size_t i = lane; i < tasks_; i += lanes_) (*task_)(i);
  } catch (...) {
    errors_[lane] = std::current_exception();
  }
}

namespace {

// Long enough to cover the imbalance between lanes in one conservative step, short enough
// that a lane whose peers are slow (or a run that has ended) soon gives its CPU back.
constexpr auto kSpinBound = std::chrono::microseconds(300);

}  // namespace

template <typename Done>
bool FanOut::spin_until(Done done) const {
  return pinned_ ? spin_wait(done, kSpinBound, SpinPolicy::hold_the_cpu) : done();
}

void FanOut::worker(std::size_t lane) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      spin_until([&] { return generation_.load() != seen; });
      std::unique_lock lock(mutex_);
      start_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_lane(lane);
    std::lock_guard lock(mutex_);
    if (pending_.fetch_sub(1) == 1) done_cv_.notify_one();
  }
}

void FanOut::run(const std::function<void(std::size_t)>& task) {
  if (lanes_ == 0) return;
  for (auto& e : errors_) e = nullptr;
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    pending_ = lanes_ - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  run_lane(0);
  {
    spin_until([&] { return pending_.load() == 0; });
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
  }
  for (auto& e : errors_)
    if (e) std::rethrow_exception(e);
}

}  // namespace kausal
