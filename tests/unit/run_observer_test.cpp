// What a partitioned run tells its observer (the trace collector, the live animation): every
// row of trajectory.csv as it is complete, how far every partition has got, the monitor's own
// trace; and what the live plot shows of it (monitor/record/live_plot).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/record/event_live_view.hpp"
#include "monitor/record/live_plot.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "system/events/phold.hpp"

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
  const RunResult without = run_partitioned_sequential(s, plan, control, {nullptr, {&plain}});
  PartitionedRecorder recorder("", s, plan, true);
  Notes notes;
  recorder.observe(&notes);
  const RunResult with = run_partitioned_sequential(s, plan, control, {&notes, {&recorder}});
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
    recorder.observe(&notes);
    const RunResult r = run_partitioned_distributed(
        s, speculate ? SyncMethod::optimistic : SyncMethod::conservative, plan, deployment, control,
        {&notes, {&recorder}});
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

// ---- the live view of a discrete-event run (monitor/record/event_live_view) ----

des::GroupProgress group_at(double clock, double committed, std::uint64_t processed,
                            std::uint64_t rollbacks = 0, std::uint64_t nulls = 0) {
  des::GroupProgress g;
  g.clock = clock;
  g.committed_to = committed;
  g.events.processed = processed;
  g.events.committed = processed / 2;
  g.events.rollbacks = rollbacks;
  g.events.stragglers = rollbacks;
  g.events.anti_messages = 3 * rollbacks;
  g.null_messages = nulls;
  return g;
}

// Every group is in exactly one plot, the plots cover them in order, and a frame carries one
// value per series; the synchronisation plot shows what the method sends.
TEST(EventLiveView, PlotsCoverEveryGroupOnceAndShowWhatTheMethodSends) {
  des::PholdParameters p;
  p.components = 64;
  const des::Phold model(p);
  for (const std::uint32_t groups : {1u, 2u, 8u, 20u, 64u}) {
    const EventViewLayout v = event_view_layout(model, SyncMethod::optimistic, groups, 100);
    ASSERT_EQ(v.first_group.front(), 0u);
    ASSERT_EQ(v.first_group.back(), groups);
    EXPECT_EQ(v.group_plots(), std::min<std::size_t>(groups, EventViewLayout::max_group_plots));
    for (std::size_t k = 1; k < v.first_group.size(); ++k)
      EXPECT_LT(v.first_group[k - 1], v.first_group[k]) << groups;
    EXPECT_EQ(v.plot.plots.size(), v.group_plots() + 1);
    EXPECT_EQ(v.plot.series.size(), 5 * v.group_plots());  // 3 counts + stragglers, anti
    EXPECT_EQ(v.h * static_cast<double>(v.ticks), 100.0);
  }
  EXPECT_EQ(event_view_layout(model, SyncMethod::sequential, 1, 10).plot.plots.size(), 1u);
  const EventViewLayout cons = event_view_layout(model, SyncMethod::conservative, 4, 10);
  EXPECT_EQ(cons.plot.series.size(), 4u * 4u);  // 3 counts each + its null messages
  EXPECT_EQ(cons.plot.plots.back(), "null messages sent");
  // Legends name a group briefly, a group of one component by its name.
  EXPECT_EQ(cons.plot.series[12].name, "group-0");
  EXPECT_EQ(event_view_layout(model, SyncMethod::conservative, 64, 10).plot.series[24].name,
            "groups 0\u20137");
  p.components = 8;
  const des::Phold eight(p);
  EXPECT_EQ(event_view_layout(eight, SyncMethod::conservative, 8, 10).plot.series[24].name,
            "component-0");
}

// Each committed tick gets a frame with the counts of the moment it was committed; the
// horizon is the committed tick, each plot's run-ahead its groups' local time, and a plot
// flashes when one of its groups rolled back again.
TEST(EventLiveView, FramesUpToTheCommittedTimeHorizonRunAheadAndFlashes) {
  des::PholdParameters p;
  p.components = 8;
  const des::Phold model(p);
  Notes notes;
  EventLiveView view(notes, event_view_layout(model, SyncMethod::optimistic, 2, 100, 10));
  view.show({0, {group_at(5, 0, 10), group_at(3, 0, 20)}});
  ASSERT_EQ(notes.steps, (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(notes.horizons.back(), 0u);
  EXPECT_EQ(notes.reached, (std::vector<std::uint64_t>{0, 0, 0}));  // 5 s, 3 s: tick 0
  view.show({35, {group_at(62, 35, 100, 2), group_at(41, 35, 80)}});
  EXPECT_EQ(notes.steps, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(notes.horizons.back(), 3u);
  EXPECT_EQ(notes.reached, (std::vector<std::uint64_t>{6, 4, 3}));
  EXPECT_EQ(notes.rollbacks, 1);  // group 0 rolled back
  // Series order: per plot committed, processed, rolled back; then stragglers, anti per plot.
  const std::vector<double> expected{50, 100, 0, 40, 80, 0, 2, 6, 0, 0};
  EXPECT_EQ(notes.rows.back(), expected);
  EXPECT_EQ(notes.rows[1], expected);  // ticks 1..3 were committed at this moment
  // Nothing newly committed: no frame; no new rollback: no flash. Nonsense times: tick 0.
  view.show({35, {group_at(NAN, 35, 120, 2), group_at(-1, 35, 90)}});
  EXPECT_EQ(notes.steps.size(), 4u);
  EXPECT_EQ(notes.rollbacks, 1);
  // The end: the last tick, whatever rounding says.
  view.show({100, {group_at(100, 100, 200, 2), group_at(100, 100, 190, 1)}});
  EXPECT_EQ(notes.steps.back(), 10u);
  EXPECT_EQ(notes.steps.size(), 11u);
  EXPECT_EQ(notes.horizons.back(), 10u);
  EXPECT_EQ(notes.rollbacks, 2);
}

// trace.json's counters: three per group, the newest sample always kept, memory bounded.
TEST(EventProgressLog, KeepsTheNewestSampleWithinItsBound) {
  EventProgressLog log;
  const std::size_t groups = 64;
  const std::size_t many = 4 * EventProgressLog::max_values / (9 * groups);
  for (std::size_t i = 0; i <= many; ++i) {
    EventProgress p{static_cast<double>(i), {}};
    for (std::size_t g = 0; g < groups; ++g)
      p.groups.push_back(group_at(static_cast<double>(i), static_cast<double>(i), i, i, i));
    log.add(p, 1000 * i);
  }
  EXPECT_LE(log.samples() * groups * 9, EventProgressLog::max_values + 9 * groups);
  EXPECT_GT(log.samples(), 100u);
  const std::vector<CounterTrack> tracks = log.counters(5);
  ASSERT_EQ(tracks.size(), 3u);
  for (const CounterTrack& t : tracks) {
    ASSERT_EQ(t.samples.size(), log.samples()) << t.name;
    EXPECT_EQ(t.samples.front().at_ns, 0u) << t.name;
    EXPECT_EQ(t.samples.back().at_ns, 1000 * many) << t.name;
    EXPECT_EQ(t.samples.back().values.size(), t.series.size()) << t.name;
  }
  EXPECT_EQ(tracks[0].samples.back().values[0], static_cast<double>(many));  // processed
  EXPECT_EQ(tracks[1].samples.back().values[0], static_cast<double>(many));  // null messages
  EXPECT_TRUE(log.counters(groups).front().samples.empty());                 // no such group
}

}  // namespace
}  // namespace kausal
