#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>

#include "monitor/sync/fan_out.hpp"

namespace kausal {
namespace {

void expect_every_task_once(FanOut& fan, std::size_t tasks) {
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> runs(tasks);
    fan.run([&](std::size_t i) { runs[i]++; });
    for (std::size_t i = 0; i < tasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
  }
}

TEST(FanOut, OneLanePerTaskRunsEveryTaskOncePerRound) {
  FanOut fan(7);
  EXPECT_EQ(fan.lanes(), 7u);
  expect_every_task_once(fan, 7);
}

TEST(FanOut, PinnedLanesShareTheTasksRoundRobin) {
  const auto cpus = available_cpus();
  ASSERT_FALSE(cpus.empty());
  FanOut fan(5, cpus);
  EXPECT_EQ(fan.lanes(), std::min<std::size_t>(5, cpus.size()));
  expect_every_task_once(fan, 5);
  // Task i runs on the CPU of lane i % lanes.
  std::vector<int> seen(5, -1);
  fan.run([&](std::size_t i) { seen[i] = sched_getcpu(); });
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(seen[i], cpus[i % fan.lanes()]) << "task " << i;
}

TEST(FanOut, RestoresTheCallersAffinity) {
  const auto before = available_cpus();
  { FanOut fan(3, before); }
  EXPECT_EQ(available_cpus(), before);
}

TEST(FanOut, RethrowsAFailureAndKeepsWorking) {
  for (const auto& cpus : {std::vector<int>{}, available_cpus()}) {
    FanOut fan(4, cpus);
    EXPECT_THROW(fan.run([](std::size_t i) {
      if (i == 2) throw std::runtime_error("task 2");
    }),
                 std::runtime_error);
    expect_every_task_once(fan, 4);
  }
}

}  // namespace
}  // namespace kausal
