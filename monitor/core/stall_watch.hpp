#pragma once
// A paced run's watch on the machine (docs/realtime.md, "Whose overruns"). One thread per
// CPU this process may use, pinned to it, sleeps to the next mark of a fixed period and
// notes how late it woke. A thread that asked for the CPU at t and got it only at t + d was
// kept waiting d by the machine: a stall when d exceeds `threshold`. The run's own threads
// cannot cause that when the watch preempts them (SCHED_FIFO at the highest priority, which
// needs root or CAP_SYS_NICE); otherwise a busy run may delay the watch itself, and the
// figures say so (`preempts` false). A sample per period and CPU: a stall as long as a
// period is always seen, a shorter one with the odds of its length over the period.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace kausal {

class StallWatch {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds period{1000};
  static constexpr std::chrono::microseconds threshold{100};
  // At most this many stalls are kept (16 bytes each; at one per period and CPU, hours of
  // a run on a machine that stalls at every sample); later ones are counted, not kept.
  static constexpr std::size_t max_kept = std::size_t{1} << 22;

  // When a CPU was not given back: from the mark the watch slept to until it ran.
  struct Stall {
    Clock::time_point begin;
    Clock::time_point end;
  };
  // A late state: the stretch in which its lateness arose, up to its commit, and how late it
  // came.
  struct Window {
    Clock::time_point begin;
    Clock::time_point end;
    Clock::duration late;
  };
  struct Record {
    bool preempts = false;      // every thread ran under SCHED_FIFO at the highest priority
    unsigned cpus = 0;          // watched
    std::uint64_t samples = 0;  // wake-ups, all CPUs
    std::vector<Stall> stalls;  // sorted by begin
    std::uint64_t not_kept = 0;
  };

  // Starts the threads (none if the system gives no CPU list).
  StallWatch();
  // Stops and joins them.
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // Stops the threads (once) and returns what they saw.
  Record finish();

  // How many of the late states the machine made: its stalls held a CPU back within the
  // state's window (their union, clipped to it) at least as long as the state came late.
  // `stalls` sorted by begin.
  static std::uint64_t machine_made(const std::vector<Window>& windows,
                                    const std::vector<Stall>& stalls);

 private:
  // Runs on its own thread; lets no exception escape.
  void watch(int cpu);
  // Adds a stall to a thread's own list while the bound allows it (and memory does).
  bool keep(std::vector<Stall>& stalls, Stall stall) const;

  const std::size_t keep_per_thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  Record record_;
  std::atomic<unsigned> preempting_{0};
  std::vector<std::thread> threads_;
};

}  // namespace kausal
