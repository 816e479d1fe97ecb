#include "monitor/core/stall_watch.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <new>
#include <system_error>

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
StallWatch::StallWatch()
    : keep_per_thread_(max_kept / std::max<std::size_t>(1, available_cpu_count())) {
  // A thread the system refuses leaves its CPU unwatched (the figures count the CPUs
  // watched); the run goes on.
  for (int cpu : available_cpus()) {
    try {
      threads_.emplace_back([this, cpu] { watch(cpu); });
    } catch (const std::system_error&) {
    }
  }
  std::lock_guard lock(mutex_);
  record_.cpus = static_cast<unsigned>(threads_.size());
}

StallWatch::~StallWatch() {
  finish();
}

void StallWatch::watch(int cpu) {
  // A thread that cannot have its CPU or its priority still watches: the figures say how.
  pin_current_thread(cpu);
  if (preempt_everything()) ++preempting_;
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
      if (!keep(stalls, {mark, woke})) ++not_kept;
      // After a stall longer than a period the marks it covered are past: the next is the
      // first still ahead, not a burst of late ones.
      while (mark + period <= woke) mark += period;
    }
  }
  std::lock_guard lock(mutex_);
  record_.samples += samples;
  record_.not_kept += not_kept;
  try {
    record_.stalls.insert(record_.stalls.end(), stalls.begin(), stalls.end());
  } catch (const std::bad_alloc&) {
    record_.not_kept += stalls.size();  // no exception leaves the thread
  }
}

bool StallWatch::keep(std::vector<Stall>& stalls, Stall stall) const {
  if (stalls.size() >= keep_per_thread_) return false;
  try {
    stalls.push_back(stall);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
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

namespace {

// The stalls of all CPUs as disjoint intervals in order, with the time covered before each.
struct Covered {
  std::vector<StallWatch::Stall> parts;
  std::vector<StallWatch::Clock::duration> before;

  explicit Covered(const std::vector<StallWatch::Stall>& stalls) {
    for (const StallWatch::Stall& s : stalls) {
      if (!parts.empty() && s.begin <= parts.back().end)
        parts.back().end = std::max(parts.back().end, s.end);
      else
        parts.push_back(s);
    }
    StallWatch::Clock::duration sum{0};
    for (const StallWatch::Stall& p : parts) {
      before.push_back(sum);
      sum += p.end - p.begin;
    }
    before.push_back(sum);
  }
  // The time covered up to t.
  StallWatch::Clock::duration until(StallWatch::Clock::time_point t) const {
    const auto after = std::upper_bound(parts.begin(), parts.end(), t,
                                        [](auto x, const auto& p) { return x < p.begin; });
    if (after == parts.begin()) return StallWatch::Clock::duration{0};
    const auto k = static_cast<std::size_t>(after - parts.begin()) - 1;
    return before[k] + (std::min(t, parts[k].end) - parts[k].begin);
  }
};

}  // namespace

std::uint64_t StallWatch::machine_made(const std::vector<Window>& windows,
                                       const std::vector<Stall>& stalls) {
  const Covered covered(stalls);
  std::uint64_t made = 0;
  for (const Window& w : windows) made += covered.until(w.end) - covered.until(w.begin) >= w.late;
  return made;
}

}  // namespace kausal
