#pragma once
// What the live view (kausal run --animate) shows of one run, whatever its model kind: the
// run's time grid and either a chain's pendulums or plots (a partitioned model's partitions,
// an event run's groups). The platform shows any layout alike (RunPlatform::show). No omniORB.
#include <cstdint>
#include <string>
#include <vector>

#include "monitor/record/event_live_view.hpp"
#include "monitor/record/live_plot.hpp"
#include "monitor/scenario/scenario.hpp"

namespace kausal {

struct ViewLayout {
  struct Pendulum {
    double pivot_x = 0, length = 0, radius = 0;  // m
  };
  std::string scenario;
  double t0 = 0;
  double h = 0;  // simulated time per step (tick)
  std::uint64_t steps = 0;
  std::uint64_t frame_every = 1;    // a frame every this many steps
  std::vector<Pendulum> pendulums;  // a chain: the pendulum view
  LivePlot plot;                    // otherwise: the plot view
  // Which of the committed values each series shows, in series order (empty: the feed is
  // sent the series' values themselves).
  std::vector<std::size_t> columns;
};

// A chain: a frame every step.
ViewLayout chain_view(const Scenario& s);
// A partitioned model: a plot per partition (live_plot), a frame per row of trajectory.csv
// (steps in ticks).
ViewLayout partitioned_view(const PartitionedScenario& s, const PartitionedPlan& plan);
// A discrete-event run: the layout's plots (a frame per tick of it), fed by an EventLiveView.
ViewLayout event_view(const std::string& scenario, const EventViewLayout& layout);

}  // namespace kausal
