#pragma once
// Collisions between the pendulums of the chain (docs/model.md §2): the contact test and the
// impact law of one pair. The sweep over all pairs is system/impact_sweep.hpp.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "system/pendulum.hpp"

namespace kausal {

using PendulumState = std::array<double, pendulum_state_size>;
static_assert(sizeof(PendulumState) == pendulum_state_size * sizeof(double),
              "states are read as one array of doubles (values_of)");

// The states as one row of values (phi, omega per pendulum, as trajectory.csv has them),
// without a copy.
inline std::span<const double> values_of(std::span<const PendulumState> states) {
  return {states.empty() ? nullptr : states.front().data(), states.size() * pendulum_state_size};
}

struct ChainSpec {
  std::vector<PendulumParams> pendulums;  // pivots strictly increasing in x
  double restitution = 1;                 // e in [0, 1]
  int max_sweeps = 1000;                  // a sweep applies every impulse due in one pass
};

// The angular impulses of one impact between a left pendulum and a right one.
struct Impact {
  double left_impulse;
  double right_impulse;
  double approach_speed;  // of the bobs along the line of their centres, before the impact
};

// The distance between the two bob centres, computed exactly as pair_impact computes it, so
// that every contact test outside the impact law agrees with it to the last bit.
double bob_distance(const PendulumParams& a, const PendulumParams& b, const double* xa,
                    const double* xb);

// r_a + r_b widened by a margin far above the rounding of any contact computation (relative
// 1e-9 of the reach plus 1e-12 of the scene). Every bound that rules a contact out (the broad
// phase of the sweep, the lookahead) compares against this, so that it can never disagree
// with the exact test. It is the sum of the two bobs' half_reach.
double reach_with_margin(const PendulumParams& a, const PendulumParams& b);
// One bob's share of reach_with_margin: r (1 + 1e-9) + 1e-12 (|pivot_x| + l).
double half_reach(const PendulumParams& p);

// The impact due between a (left) and b (right), if they touch and approach; else nothing.
std::optional<Impact> pair_impact(const PendulumParams& a, const PendulumParams& b,
                                  double restitution, const double* xa, const double* xb);

}  // namespace kausal
