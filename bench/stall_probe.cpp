// How long this machine takes a CPU away from a thread that never gives it up: the floor under
// any paced run's lateness (docs/performance.md, "Real time"). One spinning thread per CPU,
// each pinned to its CPU and, with --fifo, under SCHED_FIFO at priority 99, reads the steady
// clock in a loop for DURATION seconds and counts the gaps between two reads: a gap no
// scheduler of this kernel explains (a FIFO thread at 99 preempts every task) is time the
// hypervisor or an interrupt took. Prints, per CPU, the gaps longer than 50 µs, 1 ms and
// 5 ms, the longest, and the share of time lost.
//
// Usage: kausal-stall-probe [DURATION_S] [--fifo] [--cpu N]
//   --cpu N: spin on CPU N only (with --fifo, leave the other CPUs to the system; the
//   kernel's RT throttling, kernel.sched_rt_runtime_us, otherwise takes 50 ms of every
//   second from a FIFO thread that never sleeps: set it to -1 for the measurement).
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Gaps {
  long over_50us = 0, over_1ms = 0, over_5ms = 0;
  double longest_s = 0, lost_s = 0;
};

Gaps spin(int cpu, bool fifo, double duration_s) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (fifo) {
    sched_param p{};
    p.sched_priority = 99;
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) != 0)
      std::fprintf(stderr, "cpu %d: SCHED_FIFO refused (root or CAP_SYS_NICE)\n", cpu);
  }
  Gaps g;
  const auto end = Clock::now() + std::chrono::duration<double>(duration_s);
  auto last = Clock::now();
  while (last < end) {
    const auto now = Clock::now();
    const double gap = std::chrono::duration<double>(now - last).count();
    if (gap > 50e-6) {
      ++g.over_50us;
      g.over_1ms += gap > 1e-3;
      g.over_5ms += gap > 5e-3;
      g.longest_s = std::max(g.longest_s, gap);
      g.lost_s += gap;
    }
    last = now;
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  double duration_s = 10;
  bool fifo = false;
  int only = -1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fifo") == 0)
      fifo = true;
    else if (std::strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
      only = std::stoi(argv[++i]);
    else
      duration_s = std::stod(argv[i]);
  }
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  std::vector<Gaps> gaps(static_cast<std::size_t>(cpus));
  std::vector<std::thread> threads;
  for (int c = 0; c < cpus; ++c)
    if (only < 0 || c == only)
      threads.emplace_back(
          [&, c] { gaps[static_cast<std::size_t>(c)] = spin(c, fifo, duration_s); });
  for (auto& t : threads) t.join();
  std::printf("%.0f s, %s: per CPU, gaps between two clock reads of a spinning thread\n",
              duration_s, fifo ? "SCHED_FIFO 99" : "default scheduler");
  std::printf("cpu   >50 µs   >1 ms   >5 ms   longest ms   lost %%\n");
  for (int c = 0; c < cpus; ++c) {
    if (only >= 0 && c != only) continue;
    const Gaps& g = gaps[static_cast<std::size_t>(c)];
    std::printf("%3d %8ld %7ld %7ld %12.2f %8.3f\n", c, g.over_50us, g.over_1ms, g.over_5ms,
                1e3 * g.longest_s, 100 * g.lost_s / duration_s);
  }
}
