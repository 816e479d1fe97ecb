#pragma once
// The monotonic clock at the kernel's tick (1–4 ms). For decisions taken after every
// committed step ("is a checkpoint due?", "has this block waited long enough?"): reading it
// costs a few nanoseconds, where the precise clock costs about as much as a cheap pendulum
// step. Same time base as std::chrono::steady_clock, lagging it by at most one tick.
#include <time.h>

#include <chrono>

namespace kausal {

inline std::chrono::nanoseconds coarse_monotonic() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace kausal
