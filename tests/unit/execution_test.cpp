// The one loop (monitor/sync/execution.hpp) over a coupling of its own, in one process: what
// the loop owns — stop, stall, pacing, injections at their boundaries, the pacing thread of
// components that run by themselves, the failure path — is the same for every model kind.
#include "monitor/sync/execution.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <mutex>
#include <vector>

#include "common/errors.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

// Steps one state per advance, up to `stall_at` (where it can go no further) and never past
// what is released; notes what the loop asked of it.
class Counter : public Coupling {
 public:
  explicit Counter(std::uint64_t end, bool here = true) : end_(end), here_(here) {}

  std::uint64_t committed() const override { return committed_; }
  std::uint64_t end() const override { return end_; }
  bool computes_here() const override { return here_; }
  void start(std::uint64_t released) override {
    started_with = released;
    if (!here_) release(released);
  }
  bool advance(std::uint64_t released) override {
    if (!here_) return advance_by_itself();
    if (committed_ >= std::min(released, stall_at)) return false;
    ++committed_;
    return true;
  }
  void release(std::uint64_t released) override {
    std::lock_guard lock(mutex_);
    releases.push_back(released);
  }
  void apply(const Injection& i) override { applied.push_back({i.step, committed_}); }
  std::string stalled() const override { return "the counter is stuck"; }
  void finish(RunResult& r) override {
    finished = true;
    r.steps = committed_;
  }

  std::uint64_t stall_at = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t started_with = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> applied;  // (its step, committed then)
  std::vector<std::uint64_t> releases;
  bool finished = false;

 private:
  // By itself: steps as far as the last release (all of them unpaced).
  bool advance_by_itself() {
    std::lock_guard lock(mutex_);
    const std::uint64_t allowed = releases.empty() ? end_ : releases.back();
    if (committed_ >= allowed) return false;
    ++committed_;
    return true;
  }

  std::atomic<std::uint64_t> committed_{0};
  const std::uint64_t end_;
  const bool here_;
  std::mutex mutex_;
};

TEST(Execution, RunsToTheEndAndAlwaysFinishes) {
  Counter c(50);
  RunControl control;
  const RunResult r = execute(c, {}, control);
  EXPECT_EQ(r.status, RunStatus::completed);
  EXPECT_EQ(r.steps, 50u);
  EXPECT_TRUE(c.finished);
  EXPECT_EQ(c.started_with, Coupling::unpaced);
}

TEST(Execution, AStallFailsTheRunWithTheCouplingsWords) {
  Counter c(50);
  c.stall_at = 20;
  RunControl control;
  const RunResult r = execute(c, {}, control);
  EXPECT_EQ(r.status, RunStatus::failed);
  EXPECT_EQ(r.exit_code, ExitCode::simulation_failed);
  EXPECT_EQ(r.error, "the counter is stuck");
  EXPECT_EQ(r.steps, 20u);
  EXPECT_TRUE(c.finished);
}

TEST(Execution, AStopEndsTheRunWhereItWasAsked) {
  Counter c(50);
  StopAt control(30);
  const RunResult r = execute(c, {}, control);
  EXPECT_EQ(r.status, RunStatus::interrupted);
  EXPECT_EQ(r.steps, 30u);
  EXPECT_TRUE(c.finished);
}

// Each injection is applied when the run has committed its step (none computes past it
// before), and the operator's stop ends the run there.
TEST(Execution, InjectionsAreAppliedAtTheirStepsAndAStopEndsThere) {
  Counter c(50);
  StepClock clock(testing::as_fast_as_possible(), 1.0, 0, 50);
  Injections injections({1, 0, 50}, &clock, {},
                        {{InjectionKind::push, 7, "1", 1.0},
                         {InjectionKind::push, 19, "1", 1.0},
                         {InjectionKind::stop, 33, "", 0}});
  RunControl control;
  const RunResult r = execute(c, {}, control, {&clock, &injections});
  EXPECT_EQ(r.status, RunStatus::interrupted);
  EXPECT_EQ(r.error, "stopped by the operator at step 33");
  EXPECT_EQ(r.steps, 33u);
  EXPECT_EQ(c.applied, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{7, 7}, {19, 19}}));
  EXPECT_EQ(clock.status().ticks, 0u);  // a wall clock
  EXPECT_EQ(clock.status().committed, 33u);
}

// Paced, a coupling that computes here advances once per release and never past it; every
// step is released and timed even when the coupling finished early.
TEST(Execution, APacedCouplingIsReleasedStepByStep) {
  Counter c(40);
  StepClock clock(testing::as_fast_as_possible(), 1.0, 0, 40);
  RunControl control;
  const RunResult r = execute(c, {}, control, {&clock, nullptr});
  EXPECT_EQ(r.status, RunStatus::completed);
  EXPECT_EQ(r.steps, 40u);
  EXPECT_EQ(clock.figures().step_s.count, 40u);
}

// Components that run by themselves get every release from the pacing thread, in order,
// while the loop collects what they deliver.
TEST(Execution, ComponentsThatRunByThemselvesGetEveryRelease) {
  Counter c(25, false);
  StepClock clock(testing::as_fast_as_possible(), 1.0, 0, 25);
  RunControl control;
  const RunResult r = execute(c, {}, control, {&clock, nullptr});
  EXPECT_EQ(r.status, RunStatus::completed) << r.error;
  EXPECT_EQ(r.steps, 25u);
  ASSERT_FALSE(c.releases.empty());
  for (std::size_t k = 1; k < c.releases.size(); ++k) EXPECT_LE(c.releases[k - 1], c.releases[k]);
  EXPECT_EQ(c.releases.back(), 25u);
}

}  // namespace
}  // namespace kausal
