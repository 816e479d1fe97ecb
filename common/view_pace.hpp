#pragma once
// How fast the live view plays a run, and so how fast --animate paces it when no pace is
// given (docs/realtime.md, "--animate"): one rule for the view (animation/playback.hpp) and
// the run (monitor/run/feasibility.hpp), so that the frames come as the view wants them.
#include <algorithm>

namespace kausal {

// A run longer than this many simulated seconds plays in about this many wall seconds.
inline constexpr double view_replay_s = 10;

// Simulated seconds per wall second: a row of pendulums in real time (a collision is seen
// as it would be); plots (partitioned, co-simulation and hybrid models) at least as fast as
// real time and a whole run of `length_s` simulated seconds in at most view_replay_s.
inline double view_playback_rate(bool plots, double length_s) {
  return plots ? std::max(1.0, length_s / view_replay_s) : 1.0;
}

}  // namespace kausal
