#pragma once
// A linear ramp from `from` to `to` between `start` and `start + duration`: the time profile
// of the benchmark models' external inputs (a load change, a position setpoint). Computed
// inside the model from parameters, so a scenario needs no source subsystems.
#include <algorithm>

namespace kausal {

struct Ramp {
  double from = 0;
  double to = 0;
  double start = 0;
  double duration = 0;  // 0: a step at `start`

  double operator()(double t) const {
    if (t <= start) return from;
    if (duration <= 0 || t >= start + duration) return to;
    return from + (to - from) * ((t - start) / duration);
  }
};

}  // namespace kausal
