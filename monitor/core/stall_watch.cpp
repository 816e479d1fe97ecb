#include "monitor/core/stall_watch.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "common/cpus.hpp"

namespace kausal {
namespace {

// The highest priority preempts every thread of the run, paced under --rt-priority or not.
bool preempt_everything() {
  sched_param param{};
  param.sched_priority = sched_get_priority_max(SCHED_FIFO);
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
}

timespec to_timespec(StallWatch::Clock::time_point t) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
  return {static_cast<time_t>(ns.count() / 1'000'000'000),
          static_cast<long>(ns.count() % 1'000'000'000)};
}

}  // namespace

// steady_clock is CLOCK_MONOTONIC on Linux: the marks slept to are its time points.
StallWatch::StallWatch() {
  const std::vector<int> cpus = available_cpus();
  record_.cpus = static_cast<unsigned>(cpus.size());
  for (int cpu : cpus) threads_.emplace_back([this, cpu] { watch(cpu); });
}

StallWatch::~StallWatch() {
  finish();
}

void StallWatch::watch(int cpu) {
  // A thread that cannot have its CPU or its priority still watches: the figures say how.
  pin_current_thread(cpu);
  if (preempt_everything()) ++preempting_;
  const std::size_t keep = max_kept / std::max(1u, record_.cpus);  // set before any thread
  std::vector<Stall> stalls;
  std::uint64_t samples = 0, not_kept = 0;
  Clock::time_point mark = Clock::now();
  while (!stopping_.load(std::memory_order_relaxed)) {
    mark += period;
    const timespec until = to_timespec(mark);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
    }
    const Clock::time_point woke = Clock::now();
    ++samples;
    if (woke - mark > threshold) {
      if (stalls.size() < keep)
        stalls.push_back({mark, woke});
      else
        ++not_kept;
      // After a stall longer than a period the marks it covered are past: the next is the
      // first still ahead, not a burst of late ones.
      while (mark + period <= woke) mark += period;
    }
  }
  std::lock_guard lock(mutex_);
  record_.samples += samples;
  record_.not_kept += not_kept;
  record_.stalls.insert(record_.stalls.end(), stalls.begin(), stalls.end());
}

StallWatch::Record StallWatch::finish() {
  stopping_ = true;
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  std::lock_guard lock(mutex_);
  record_.preempts = !threads_.empty() && preempting_ == threads_.size();
  std::sort(record_.stalls.begin(), record_.stalls.end(),
            [](const Stall& a, const Stall& b) { return a.begin < b.begin; });
  return record_;
}

// The windows' ends only grow: one pass over the stalls keeps the latest end of those begun
// before the window ends, and the window saw a stall if that end lies past its begin.
std::uint64_t StallWatch::windows_beside(const std::vector<Window>& windows,
                                         const std::vector<Stall>& stalls) {
  std::uint64_t beside = 0;
  std::size_t next = 0;
  auto latest_end = Clock::time_point::min();
  for (const Window& w : windows) {
    for (; next < stalls.size() && stalls[next].begin < w.end; ++next)
      latest_end = std::max(latest_end, stalls[next].end);
    beside += latest_end > w.begin;
  }
  return beside;
}

}  // namespace kausal
