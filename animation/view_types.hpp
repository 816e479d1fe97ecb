#pragma once
// Small value types every part of the view shares (no Qt, no omniORB).
#include <cstdint>
#include <string>

#include "system/activity_trace.hpp"

namespace kausal {

// One pendulum as the view draws it (metres; pivot at height 0).
struct PendulumGeometry {
  double pivot_x = 0;
  double length = 1;
  double radius = 0.05;
};

// An activity interval in seconds since the start of the run (the timelines' axis).
struct TimelineSpan {
  double begin_s = 0;
  double end_s = 0;
  ActivityKind kind = ActivityKind::busy;
};

}  // namespace kausal
