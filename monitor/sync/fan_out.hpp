#pragma once
// Runs one task per component in parallel on long-lived threads, so a conservative step
// costs one round trip, not N.
//
// Two placements (docs/performance.md has the measurements):
//  - one lane per task, unpinned: the OS places threads; simplest, best across hosts;
//  - one lane per CPU, each pinned, task i on lane i % lanes: with the components of task i
//    pinned to the same CPU, every hop of a monitor -> Integrator -> System chain is a
//    same-core wakeup, which on virtual machines costs a fraction of a cross-core one.
//    A lane that has finished its tasks spins briefly for the next round (and the caller
//    for the last lane) instead of sleeping: its CPU has nothing else of this run to do,
//    and waking an idle virtual CPU is the most expensive hop of the whole step.
//    It spins also beside a busy neighbour: the spin holds the CPU for the components
//    pinned to it (SpinPolicy::hold_the_cpu in common/spin_wait.hpp).
#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/cpus.hpp"

namespace kausal {

class FanOut {
 public:
  // `lane_cpus` empty: one unpinned lane per task. Otherwise min(tasks, lane_cpus.size())
  // lanes, lane k pinned to CPU lane_cpus[k]; lane 0 is the calling thread.
  explicit FanOut(std::size_t tasks, const std::vector<int>& lane_cpus = {});
  ~FanOut();
  FanOut(const FanOut&) = delete;
  FanOut& operator=(const FanOut&) = delete;

  // Runs task(i) for every i in [0, tasks) and returns when all are done. If tasks throw,
  // rethrows the exception of the lowest lane (its first failing task).
  void run(const std::function<void(std::size_t)>& task);

  std::size_t lanes() const { return lanes_; }

 private:
  void worker(std::size_t lane);
  void run_lane(std::size_t lane);
  // In pinned mode, spins up to a bound for `done()` (spin_wait); false if it is still not
  // true.
  template <typename Done>
  bool spin_until(Done done) const;

  std::size_t tasks_;
  std::size_t lanes_;
  bool pinned_;
  cpu_set_t caller_affinity_;  // restored when the fan-out ends
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(std::size_t)>* task_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> pending_{0};
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace kausal
