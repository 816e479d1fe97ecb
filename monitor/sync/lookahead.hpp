#pragma once
// A provably safe lookahead for the conservative monitor (docs/model.md §3, "conservative with
// lookahead"): how many steps the chain can certainly take without any contact, from an
// enclosure of every pendulum's state propagated through the integrator's own update formulas
// with outward rounding (and, as a fallback, a bound on the bobs' displacement). The proof is
// in docs/lookahead.md.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "integrator/method.hpp"
#include "system/impact_sweep.hpp"  // BobPair, pairs_within_reach

namespace kausal {

// Every step of a magnitude bound is inflated by a relative kLookaheadEps, and the rounding of
// the angle update (relative to |φ|, not to the increment) is added as kLookaheadEps·|φ|.
// 1e-13 is about 900 unit roundoffs: far above the 30-odd roundings of one Euler or RK4 step
// of the trajectory plus the dozen of the bound itself (docs/lookahead.md, "Rounding"), and
// still negligible for tightness ((1 + 1e-13)^k is about 1 + 1e-7 after a million steps).
inline constexpr double kLookaheadEps = 1e-13;
inline constexpr double kLookaheadGrow = 1 + kLookaheadEps;

// A bound on how far one bob can have moved since step m, advanced one step at a time
// (docs/lookahead.md §7–§10). Only a few flops per step: no trigonometry (|sin| <= 1 is all
// that is used).
class DisplacementBound {
 public:
  DisplacementBound(const PendulumParams& p, OdeMethod method, double h, const PendulumState& x)
      : method_(method),
        h_(h),
        half_(0.5 * h),
        sixth_(h / 6),
        g_over_l_(std::abs(coefficients_of(p).g_over_l)),  // the bits the steppers use
        damping_(std::abs(p.damping)),
        length_(p.length),
        phi0_(std::abs(x[0])),
        omega_(std::abs(x[1])) {}

  // For a pendulum that moves freely: advances the bound by one step, and returns the bound on
  // |p(step m+k) − p(step m)| after k calls.
  double next() {
    const double moved = next_with(omega_);
    // |ω_{j+1}| <= |ω_j| + h g/l + c·incr for both methods: the ω-slopes are bounded by
    // g/l + c·(the matching φ-slope bound), with the same weights.
    omega_ = (omega_ + h_ * g_over_l_ + damping_ * incr_) * kLookaheadGrow;
    return moved;
  }
  // The same for a step that starts with |ω| <= omega, whatever happened before it (a bob
  // that impacts may have changed: docs/lookahead.md Part IV).
  double next_with(double omega) {
    // incr bounds |φ_{j+1} − φ_j| before rounding. RK4's φ-slopes are its four ω stage values;
    // each stage is bounded by the previous one through |ω̇| <= g/l + c|ω|.
    if (method_ == OdeMethod::euler) {
      incr_ = h_ * omega;
    } else {
      const double s1 = omega;
      const double s2 = omega + half_ * (g_over_l_ + damping_ * s1);
      const double s3 = omega + half_ * (g_over_l_ + damping_ * s2);
      const double s4 = omega + h_ * (g_over_l_ + damping_ * s3);
      incr_ = sixth_ * (s1 + 2 * s2 + 2 * s3 + s4);
    }
    // Rounding of φ + Δφ is relative to |φ| <= |φ_m| + angle_ + incr (docs: "Rounding").
    const double dphi = (incr_ + kLookaheadEps * (phi0_ + angle_ + incr_)) * kLookaheadGrow;
    angle_ = (angle_ + dphi) * kLookaheadGrow;
    // The bob stays on its circle: every step moves it along a chord <= l·|Δφ| (triangle
    // inequality over the steps), and no two points of the circle are further apart than 2l.
    return std::min(length_ * angle_, 2 * length_);
  }

 private:
  OdeMethod method_;
  double h_, half_, sixth_, g_over_l_, damping_, length_, phi0_;
  double omega_;      // free motion: bound on |ω| at the current step
  double incr_ = 0;   // the last step's bound on |Δφ| before rounding
  double angle_ = 0;  // bound on Σ |φ_{j+1} − φ_j| since step m
};

// Steps S >= 0 such that, moving freely from `states` (all at the same step m), no pair of
// `pairs` is in contact at any step m+1 .. m+S; at most max_steps. With
// pairs = pairs_within_reach(chain) that is every pair that can ever touch, so no pair at all.
std::uint64_t safe_free_steps(const ChainSpec& chain, std::span<const BobPair> pairs,
                              OdeMethod method, double h, std::span<const PendulumState> states,
                              std::uint64_t max_steps);

// The same for every pair of the chain (computes pairs_within_reach; a monitor that grants
// often keeps that list and calls the overload above).
std::uint64_t safe_free_steps(const ChainSpec& chain, OdeMethod method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps);

}  // namespace kausal
