#pragma once
// Small value types every part of the view shares (no Qt, no omniORB).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/activity_trace.hpp"

namespace kausal {

// One pendulum as the view draws it (metres; pivot at height 0).
struct PendulumGeometry {
  double pivot_x = 0;
  double length = 1;
  double radius = 0.05;
};

// One value a plot view draws against simulated time: a recorded state of a partitioned
// model ("member.state"), drawn in plot `plot` (one plot per partition).
struct PlotSeriesInfo {
  std::string name;
  std::size_t plot = 0;
};

// Points of every series at shared times, ready to draw: t increasing, values[i] holds
// series i at each of them.
struct PlotPoints {
  std::vector<double> t;
  std::vector<std::vector<double>> values;
};

// A moment a plot view marks (a hybrid model's event across the boundary): a line across the
// plots at simulated time t, labelled.
struct PlotMark {
  double t = 0;
  std::string label;
};

// What a plot view shows: titles (one plot each) and the series drawn in them.
struct PlotSpec {
  std::vector<std::string> plots;
  std::vector<PlotSeriesInfo> series;
};

// An activity interval in seconds since the start of the run (the timelines' axis).
struct TimelineSpan {
  double begin_s = 0;
  double end_s = 0;
  ActivityKind kind = ActivityKind::busy;
};

}  // namespace kausal
