#include "monitor/record/view_layout.hpp"

#include <algorithm>

namespace kausal {

namespace {

ViewLayout grid(const std::string& scenario, double t0, double h, std::uint64_t steps) {
  ViewLayout v;
  v.scenario = scenario;
  v.t0 = t0;
  v.h = h;
  v.steps = steps;
  return v;
}

}  // namespace

ViewLayout chain_view(const Scenario& s) {
  ViewLayout v = grid(s.name, s.t0(), s.h, s.steps);
  for (const PendulumParams& p : s.chain.pendulums)
    v.pendulums.push_back({p.pivot_x, p.length, p.radius});
  return v;
}

ViewLayout partitioned_view(const PartitionedScenario& s, const PartitionedPlan& plan) {
  ViewLayout v = grid(s.name, s.t0(), s.tick, s.ticks);
  // Frames are the rows of trajectory.csv: every output interval, and the last tick.
  v.frame_every = std::min(s.output_ticks, std::max<std::uint64_t>(s.ticks, 1));
  v.plot = live_plot(s, plan);
  for (const LivePlot::Series& series : v.plot.series) v.columns.push_back(series.column);
  return v;
}

ViewLayout event_view(const std::string& scenario, const EventViewLayout& layout) {
  ViewLayout v = grid(scenario, 0.0, layout.h, layout.ticks);
  v.plot = layout.plot;  // EventLiveView sends each frame's values in series order
  return v;
}

}  // namespace kausal
