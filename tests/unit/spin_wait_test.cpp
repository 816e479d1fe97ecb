// Spin-then-sleep waits (common/spin_wait.hpp): a spin ends when the awaited thread is done,
// stops being tried while the waiting thread shares its CPU with busy work, and is tried
// again once that has passed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "common/cpus.hpp"
#include "common/spin_wait.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;

bool shows_run_queue_time() {
  std::ifstream stat("/proc/thread-self/schedstat");
  long long on_cpu = 0, waiting = -1;
  return static_cast<bool>(stat >> on_cpu >> waiting);
}

TEST(SpinWait, EndsWhenTheAwaitedThreadIsDone) {
  std::atomic<bool> done{false};
  std::thread other([&] {
    std::this_thread::sleep_for(2ms);
    done = true;
  });
  // Holding the CPU, the spin lasts until `done` (the bound is far longer than the wait).
  EXPECT_TRUE(spin_wait([&] { return done.load(); }, 60s, SpinPolicy::hold_the_cpu));
  other.join();
  EXPECT_TRUE(spin_wait([] { return true; }, 0s));  // done already: no spin needed
  EXPECT_FALSE(spin_wait([] { return false; }, 0s));
  EXPECT_FALSE(spin_wait([] { return false; }, 50us, SpinPolicy::hold_the_cpu));
}

// With a busy thread on its CPU, a waiting thread's spins fail and it waits for the CPU: it
// stops spinning (the busy thread stands for a neighbour's process). Once the CPU is free
// again, spinning is tried again after the pause (at most 1.3 s).
TEST(SpinWait, StopsSpinningWhileItsCpuIsSharedAndTriesAgainLater) {
  if (!shows_run_queue_time()) GTEST_SKIP() << "no /proc/thread-self/schedstat here";
  const std::vector<int> cpus = available_cpus();
  ASSERT_FALSE(cpus.empty());
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    pin_current_thread(cpus.front());
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  std::thread waiter([&] {
    pin_current_thread(cpus.front());
    bool gave_up = false;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!gave_up && std::chrono::steady_clock::now() < deadline) {
      spin_wait([] { return false; }, 100us);  // the awaited thread never comes
      gave_up = !spinning_pays();
    }
    EXPECT_TRUE(gave_up) << "still spinning after 30 s beside a busy thread on its CPU";
  });
  waiter.join();
  stop = true;
  busy.join();
  bool spins_again = false;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!spins_again && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
    spins_again = spinning_pays();
  }
  EXPECT_TRUE(spins_again) << "not spinning again 30 s after the CPU was free";
}

}  // namespace
}  // namespace kausal
