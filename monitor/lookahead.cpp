#include "monitor/lookahead.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "system/errors.hpp"

namespace kausal {
namespace {

// Every step of the bound is inflated by a relative kEps, and the rounding of the angle update
// (relative to |φ|, not to the increment) is added as kEps·|φ|. kEps = 1e-13 is about 900 unit
// roundoffs: far above the 30-odd roundings of one Euler or RK4 step of the trajectory plus the
// dozen of the bound itself (docs/lookahead.md, "Rounding"), and still negligible for tightness
// ((1 + 1e-13)^k is about 1 + 1e-7 after a million steps).
constexpr double kEps = 1e-13;
constexpr double kGrow = 1 + kEps;

// A bound on how far one bob can have moved since step m, advanced one step at a time, for a
// pendulum that moves freely. Only a few flops per step: no trigonometry (|sin| <= 1 is all
// that is used).
class DisplacementBound {
 public:
  DisplacementBound(const PendulumParams& p, Method method, double h, const PendulumState& x)
      : method_(method),
        h_(h),
        half_(0.5 * h),
        sixth_(h / 6),
        g_over_l_(std::abs(coefficients_of(p).g_over_l)),  // the bits the steppers use
        damping_(std::abs(p.damping)),
        length_(p.length),
        phi0_(std::abs(x[0])),
        omega_(std::abs(x[1])) {}

  // Advances the bound by one step; returns the bound on |p(step m+k) − p(step m)| after k
  // calls.
  double next() {
    // incr bounds |φ_{j+1} − φ_j| before rounding. RK4's φ-slopes are its four ω stage values;
    // each stage is bounded by the previous one through |ω̇| <= g/l + c|ω|.
    double incr;
    if (method_ == Method::euler) {
      incr = h_ * omega_;
    } else {
      const double s1 = omega_;
      const double s2 = omega_ + half_ * (g_over_l_ + damping_ * s1);
      const double s3 = omega_ + half_ * (g_over_l_ + damping_ * s2);
      const double s4 = omega_ + h_ * (g_over_l_ + damping_ * s3);
      incr = sixth_ * (s1 + 2 * s2 + 2 * s3 + s4);
    }
    // Rounding of φ + Δφ is relative to |φ| <= |φ_m| + angle_ + incr (docs: "Rounding").
    const double dphi = (incr + kEps * (phi0_ + angle_ + incr)) * kGrow;
    angle_ = (angle_ + dphi) * kGrow;
    // |ω_{j+1}| <= |ω_j| + h g/l + c·incr for both methods: the ω-slopes are bounded by
    // g/l + c·(the matching φ-slope bound), with the same weights.
    omega_ = (omega_ + h_ * g_over_l_ + damping_ * incr) * kGrow;
    // The bob stays on its circle: every step moves it along a chord <= l·|Δφ| (triangle
    // inequality over the steps), and no two points of the circle are further apart than 2l.
    return std::min(length_ * angle_, 2 * length_);
  }

 private:
  Method method_;
  double h_, half_, sixth_, g_over_l_, damping_, length_, phi0_;
  double omega_;      // bound on |ω| at the current step
  double angle_ = 0;  // bound on Σ |φ_{j+1} − φ_j| since step m
};

void check_arguments(const ChainSpec& chain, double h, std::span<const PendulumState> states) {
  if (states.size() != chain.pendulums.size())
    throw SimulationError("lookahead: " + std::to_string(states.size()) + " states for " +
                          std::to_string(chain.pendulums.size()) + " pendulums");
  if (!(h > 0) || !std::isfinite(h))
    throw SimulationError("lookahead: step size must be finite and > 0");
}

std::uint64_t pair_steps(const ChainSpec& chain, std::size_t i, Method method, double h,
                         std::span<const PendulumState> states, std::uint64_t max_steps) {
  const PendulumParams& a = chain.pendulums[i];
  const PendulumParams& b = chain.pendulums[i + 1];
  // The distance as pair_impact computes it.
  const BobKinematics ka = bob_kinematics(a, states[i].data());
  const BobKinematics kb = bob_kinematics(b, states[i + 1].data());
  const double dx = kb.x - ka.x;
  const double dy = kb.y - ka.y;
  const double distance = std::sqrt(dx * dx + dy * dy);
  // The margin of may_touch: it covers the rounding of both distances (now and at step m+k)
  // and of the comparisons below, all O(1e-16) of the scene (docs: "Rounding").
  const double reach = (a.radius + b.radius) * (1 + 1e-9) +
                       1e-12 * (std::abs(a.pivot_x) + std::abs(b.pivot_x) + a.length + b.length);
  const double gap = distance - reach;
  if (!(gap > 0)) return 0;  // touching, in contact, or not finite: nothing is safe
  if (2 * (a.length + b.length) < gap) return max_steps;  // can never reach each other
  DisplacementBound da(a, method, h, states[i]);
  DisplacementBound db(b, method, h, states[i + 1]);
  // Contact at step m+k+1 is impossible while the two displacement bounds stay below the gap.
  // Both bounds only grow, so the first failure ends the window.
  for (std::uint64_t k = 0; k < max_steps; ++k)
    if (!(da.next() + db.next() < gap)) return k;
  return max_steps;
}

}  // namespace

std::uint64_t safe_free_steps(const ChainSpec& chain, Method method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps) {
  check_arguments(chain, h, states);
  // The minimum over the pairs; each pair only needs to be followed up to the best so far.
  std::uint64_t steps = max_steps;
  for (std::size_t i = 0; i + 1 < states.size() && steps > 0; ++i)
    steps = pair_steps(chain, i, method, h, states, steps);
  return steps;
}

std::uint64_t safe_free_steps_for_pair(const ChainSpec& chain, std::size_t i, Method method,
                                       double h, std::span<const PendulumState> states,
                                       std::uint64_t max_steps) {
  check_arguments(chain, h, states);
  if (i + 1 >= states.size())
    throw SimulationError("lookahead: no pair " + std::to_string(i) + " in a chain of " +
                          std::to_string(states.size()));
  return pair_steps(chain, i, method, h, states, max_steps);
}

}  // namespace kausal
