#pragma once
// Spin-then-sleep waits that adapt to the CPUs actually free.
//
// A thread that waits for another (an event group for a peer's message) may spin briefly
// before it sleeps: on a virtual machine, waking a sleeping thread on another CPU costs tens
// of microseconds, more than most waits. That pays only while the awaited thread has a CPU of
// its own. When the CPUs are shared (a busy neighbour, more runnable threads than CPUs), the
// thread it waits for is off its CPU for whole time slices, and the spinner only burns its
// own share: the PHOLD benchmark's event groups ran up to 9 times slower beside one busy
// process when they spun than when they slept at once (docs/performance.md, "Issue 44").
//
// Spinning stops paying when both (a) the waiting thread itself waited for a CPU more than a
// tenth of the time (its run-queue time, Linux's /proc/thread-self/schedstat, looked at at
// most every 10 ms) and (b) more than a quarter of its spins since then ended in a sleep
// anyway. Then every adaptive wait of the process sleeps at once for a pause (20 ms, doubled
// while the signs come back as soon as a pause ends, up to 1.3 s), after which spinning is
// tried again. Measured on the 2-CPU machine: the benchmark's event groups waited for a CPU
// 1-3 % of the time idle and 25 % beside a busy process, and 1 % of their spins failed idle, all
// of them beside the busy process; a conservative thesis run's monitor threads wait for a CPU
// about 25 % of the time when idle (its own components share the CPUs), but their spins
// succeed, so (b) is what tells the two apart. A system that does not show run-queue time
// spins as before.
#include <chrono>

namespace kausal {

// Whether a wait may spin now: false while the CPUs are found shared (above).
// Samples the calling thread's run-queue time now and then.
bool spinning_pays();
// How a spin that spinning_pays() allowed ended: done, or given up to sleep.
void spin_ended(bool done);

// When a wait spins: only while spinning pays (above), or always up to its bound, where the
// spin holds a CPU for threads pinned beside it (a monitor's pinned lanes, whose Integrators
// and Systems run on the lane's CPU: beside a busy process, a conservative thesis run in
// processes took 11.0-11.4 s with its lanes spinning and 12.8 s with them sleeping once their
// spins failed, since a woken component then has to take its CPU back from the neighbour).
enum class SpinPolicy { while_it_pays, hold_the_cpu };

// Busy-waits until done() is true, for at most `most` (not at all when `most` is zero, or
// when spinning does not pay now and the policy says so). Returns done()'s last value: false
// means the caller sleeps.
template <typename Done>
bool spin_wait(Done done, std::chrono::nanoseconds most,
               SpinPolicy policy = SpinPolicy::while_it_pays) {
  if (done()) return true;
  if (most.count() <= 0) return false;
  const bool adapts = policy == SpinPolicy::while_it_pays;
  if (adapts && !spinning_pays()) return false;
  const auto deadline = std::chrono::steady_clock::now() + most;
  for (unsigned k = 1;; ++k) {
    if (done()) {
      if (adapts) spin_ended(true);
      return true;
    }
    if ((k & 63) == 0 && std::chrono::steady_clock::now() > deadline) {
      const bool late = done();
      if (adapts) spin_ended(late);
      return late;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace kausal
