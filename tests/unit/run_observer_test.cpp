// What a partitioned run tells its observer (the trace collector, the live animation): every
// row of trajectory.csv as it is complete, how far every partition has got, the monitor's own
// trace; and what the live plot shows of it (monitor/record/live_plot).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/record/live_plot.hpp"
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal {
namespace {

PartitionedScenario shipped(const std::string& name) {
  std::ifstream in(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_partitioned_scenario(text.str(), name);
}

// Takes note of everything, as the animation feed does.
class Notes final : public RunObserver {
 public:
  void committed(std::uint64_t step, std::span<const double> values) override {
    steps.push_back(step);
    rows.emplace_back(values.begin(), values.end());
  }
  void horizon(std::uint64_t h, std::span<const std::uint64_t> r) override {
    horizons.push_back(h);
    reached.assign(r.begin(), r.end());
  }
  void rolled_back(std::size_t, std::uint64_t) override { ++rollbacks; }
  void monitor_trace(const ActivityTrace* trace) override { traces.push_back(trace != nullptr); }

  std::vector<std::uint64_t> steps;
  std::vector<std::vector<double>> rows;
  std::vector<std::uint64_t> horizons;
  std::vector<std::uint64_t> reached;
  std::vector<bool> traces;  // monitor_trace: given (true) or gone (false)
  int rollbacks = 0;
};

// The observer saw the recorder's rows (without t), at the ticks of their times, in order,
// and a horizon that only grew and ended at the last tick, reached by every partition.
void expect_told_every_row(const PartitionedScenario& s, const PartitionedRecorder& recorder,
                           const Notes& notes) {
  ASSERT_EQ(notes.rows.size(), recorder.rows().size());
  for (std::size_t k = 0; k < notes.rows.size(); ++k) {
    const auto& row = recorder.rows()[k];
    EXPECT_EQ(notes.rows[k], std::vector<double>(row.begin() + 1, row.end())) << k;
    EXPECT_NEAR(static_cast<double>(notes.steps[k]) * s.tick, row[0], 1e-9 * s.t_end) << k;
  }
  EXPECT_EQ(notes.steps.front(), 0u);
  EXPECT_EQ(notes.steps.back(), s.ticks);
  ASSERT_FALSE(notes.horizons.empty());
  EXPECT_TRUE(std::is_sorted(notes.horizons.begin(), notes.horizons.end()));
  EXPECT_EQ(notes.horizons.back(), s.ticks);
  EXPECT_EQ(notes.reached, std::vector<std::uint64_t>(s.partitions.size(), s.ticks));
}

TEST(RunObserver, ASequentialPartitionedRunTellsEveryRowAndTheHorizon) {
  const PartitionedScenario s = shipped("two-tanks.toml");  // multirate: steps of 2 and 1 ticks
  const PartitionedPlan plan = plan_partitions(s, {});
  PartitionedRecorder plain("", s, plan, true);
  RunControl control;
  const RunResult without = run_partitioned_sequential(s, plan, plain, control);
  PartitionedRecorder recorder("", s, plan, true);
  Notes notes;
  const RunResult with = run_partitioned_sequential(s, plan, recorder, control, {&notes, nullptr});
  ASSERT_EQ(with.status, RunStatus::completed) << with.error;
  EXPECT_EQ(with.trajectory_sha256, without.trajectory_sha256);  // watching changes nothing
  expect_told_every_row(s, recorder, notes);
  EXPECT_EQ(notes.steps[1], s.output_ticks);
  EXPECT_TRUE(notes.traces.empty());  // the sequential run has no monitor thread
}

TEST(RunObserver, ADistributedPartitionedRunAlsoShowsTheMonitorsTrace) {
  const PartitionedScenario s = shipped("hydraulic-multirate.toml");
  for (const bool speculate : {false, true}) {
    const PartitionedPlan plan =
        plan_partitions(s, {.speculate = speculate, .tolerance = 0.0, .window = 4});
    PartitionedRecorder recorder("", s, plan, true);
    RunControl control;
    LocalDeployment deployment(partitioned_deployment(s, plan));
    Notes notes;
    const RunResult r = run_partitioned_distributed(
        s, speculate ? SyncMethod::optimistic : SyncMethod::conservative, plan, deployment,
        recorder, control, {&notes, nullptr});
    ASSERT_EQ(r.status, RunStatus::completed) << r.error;
    expect_told_every_row(s, recorder, notes);
    EXPECT_EQ(notes.traces, (std::vector<bool>{true, false}));
    // The monitor is a component of the run, first as in a chain's: busy while routing.
    ASSERT_FALSE(r.components.empty());
    EXPECT_EQ(r.components[0].name, "monitor");
    EXPECT_EQ(r.components[0].role, ComponentRole::monitor);
    EXPECT_FALSE(r.components[0].spans.empty());
    EXPECT_EQ(r.components[0].spans[0].tag.call, ActivityCall::route);
  }
}

TEST(LivePlot, OnePlotPerPartitionWithItsFirstStates) {
  const PartitionedScenario s = shipped("hydraulic-multirate.toml");  // valve: 2 states, drive: 5
  const PartitionedPlan plan = plan_partitions(s, {});
  const LivePlot all = live_plot(s, plan);
  EXPECT_EQ(all.plots, (std::vector<std::string>{"valve", "drive"}));
  ASSERT_EQ(all.series.size(), 7u);
  EXPECT_EQ(all.series[0].name, "valve.spool");
  EXPECT_EQ(all.series[2].name, "drive.p1");
  EXPECT_EQ(all.series[2].plot, 1u);
  EXPECT_EQ(all.series[6].column, 6u);
  const LivePlot few = live_plot(s, plan, 3);  // at most 3 a plot
  ASSERT_EQ(few.series.size(), 5u);
  EXPECT_EQ(few.series[1].column, 1u);
  EXPECT_EQ(few.series[2].name, "drive.p1");
  EXPECT_EQ(few.series[2].column, 2u);  // the committed values hold every state
  EXPECT_EQ(few.series[4].name, "drive.position");
  EXPECT_EQ(few.series[4].column, 4u);
}

}  // namespace
}  // namespace kausal
