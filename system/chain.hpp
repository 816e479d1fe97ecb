#pragma once
// Collisions between neighbouring pendulums of the chain (design.md §2): contact test,
// impact law and the left-to-right sweep that every method must use.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "system/errors.hpp"
#include "system/pendulum.hpp"

namespace kausal {

using PendulumState = std::array<double, pendulum_state_size>;

struct ChainSpec {
  std::vector<PendulumParams> pendulums;  // pivots strictly increasing in x
  double restitution = 1;                 // e in [0, 1]
  int max_sweeps = 1000;                  // a sweep applies every impulse due in one pass
};

// The angular impulses of one impact between pendulum `left` and `left + 1`.
struct Impact {
  double left_impulse;
  double right_impulse;
};

// The distance between the two bob centres, computed exactly as pair_impact computes it, so
// that every contact test outside the impact law agrees with it to the last bit.
double bob_distance(const PendulumParams& a, const PendulumParams& b, const double* xa,
                    const double* xb);

// r_a + r_b widened by a margin far above the rounding of any contact computation (relative
// 1e-9 of the reach plus 1e-12 of the scene). Every bound that rules a contact out (may_touch,
// the lookahead) compares against this, so that it can never disagree with the exact test.
double reach_with_margin(const PendulumParams& a, const PendulumParams& b);

// A cheap, conservative pre-test without trigonometry: false only if the bobs are certainly
// further apart than r_i + r_j (then the exact test would say "no contact" too). It boxes
// each bob with Taylor bounds of sin φ and cos φ (valid for every φ) and compares the gap
// between the boxes with the reach, with a margin far above the rounding of either test.
bool may_touch(const PendulumParams& a, const PendulumParams& b, double phi_a, double phi_b);

// The impact due between a (left) and b (right), if they touch and approach; else nothing.
std::optional<Impact> pair_impact(const PendulumParams& a, const PendulumParams& b,
                                  double restitution, const double* xa, const double* xb);

// Sweeps the pairs left to right, applying impulses through apply(i, impulse) (which must
// update states[i]), and repeats until a sweep applies nothing. Returns the number of
// impacts. Throws SimulationError after spec.max_sweeps sweeps that still apply impulses.
template <typename ApplyImpulse>
std::uint64_t resolve_impacts(const ChainSpec& spec, std::span<PendulumState> states,
                              std::uint64_t step, ApplyImpulse&& apply) {
  const auto& p = spec.pendulums;
  std::uint64_t impacts = 0;
  for (int sweep = 0; sweep < spec.max_sweeps; ++sweep) {
    std::uint64_t in_this_sweep = 0;
    for (std::size_t i = 0; i + 1 < states.size(); ++i) {
      if (!may_touch(p[i], p[i + 1], states[i][0], states[i + 1][0])) continue;
      const auto impact =
          pair_impact(p[i], p[i + 1], spec.restitution, states[i].data(), states[i + 1].data());
      if (!impact) continue;
      apply(i, impact->left_impulse);
      apply(i + 1, impact->right_impulse);
      ++in_this_sweep;
    }
    impacts += in_this_sweep;
    if (in_this_sweep == 0) return impacts;
  }
  throw SimulationError("impacts at step " + std::to_string(step) + " did not settle after " +
                        std::to_string(spec.max_sweeps) + " sweeps (raise model.max_sweeps?)");
}

}  // namespace kausal
