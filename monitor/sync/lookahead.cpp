#include "monitor/sync/lookahead.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"

namespace kausal {
namespace {

// Two bounds, both proved in docs/lookahead.md; a pair gets the larger of the two (both are
// safe, so the larger is too):
// - the interval bound (docs §1–§6) follows an enclosure of every pendulum's state through
//   the stepper's own formulas and knows where the bobs go: it is the one that matters;
// - the magnitude bound (docs §7–§10) only bounds how far each bob can have moved. It is kept
//   as a fallback for when the enclosure grows too wide to be useful (huge steps, very long
//   windows), and for its shortcut for bobs that can never reach each other.

// ---------------------------------------------------------------------------------------
// The magnitude bound.

std::uint64_t magnitude_steps(const ChainSpec& chain, BobPair pair, OdeMethod method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps) {
  const PendulumParams& a = chain.pendulums[pair.i];
  const PendulumParams& b = chain.pendulums[pair.j];
  const double gap =
      bob_distance(a, b, states[pair.i].data(), states[pair.j].data()) - reach_with_margin(a, b);
  if (!(gap > 0)) return 0;  // touching, in contact, or not finite: nothing is safe
  if (2 * (a.length + b.length) < gap) return max_steps;  // can never reach each other
  DisplacementBound da(a, method, h, states[pair.i]);
  DisplacementBound db(b, method, h, states[pair.j]);
  // Contact at step m+k+1 is impossible while the two displacement bounds stay below the gap.
  // Both bounds only grow, so the first failure ends the window.
  for (std::uint64_t k = 0; k < max_steps; ++k)
    if (!(da.next() + db.next() < gap)) return k;
  return max_steps;
}

// ---------------------------------------------------------------------------------------
// The interval bound: outward-rounded interval arithmetic (docs: "Outward rounding").

struct Interval {
  double lo, hi;
};

// Widening a bound computed with round-to-nearest by a relative 2^-52 (at least one float
// spacing at x) plus 2^-1074 (one spacing below the normal range) moves it at least to the
// neighbouring float: since the exact value is within half a spacing of the rounded one, the
// widened bound holds the exact result, and since it is a float and rounding is monotone, it
// also holds the rounded result that the real computation gets from any arguments in the
// argument intervals. The proof, the widening's own rounding included, is in the docs
// ("Outward rounding").
constexpr double kUlp = 0x1p-52;
constexpr double kTiny = 0x1p-1074;

double up(double x) {
  return x + (std::fabs(x) * kUlp + kTiny);
}

// The same for both bounds of an interval.
Interval outward(double lo, double hi) {
  return {lo - (std::fabs(lo) * kUlp + kTiny), hi + (std::fabs(hi) * kUlp + kTiny)};
}

Interval operator+(Interval a, Interval b) {
  return outward(a.lo + b.lo, a.hi + b.hi);
}
Interval operator-(Interval a, Interval b) {
  return outward(a.lo - b.hi, a.hi - b.lo);
}
Interval operator+(double a, Interval b) {
  return outward(a + b.lo, a + b.hi);
}
Interval operator*(double s, Interval a) {
  return s >= 0 ? outward(s * a.lo, s * a.hi) : outward(s * a.hi, s * a.lo);
}
// 2·x is exact in floating point: nothing to round.
Interval twice(Interval a) {
  return {2 * a.lo, 2 * a.hi};
}

// The allowance for the library's sin and cos: three evaluations count (the value at the
// midpoint, the slope there, and the value at the angle the stepper uses), each within
// 1 ulp in glibc. 2^-48 relative plus 64 subnormal spacings covers about 8 ulp in each
// (docs: "Enclosures of sin and cos").
constexpr double kTrigRelative = 0x1p-48;
constexpr double kTrigAbsolute = 0x1p-1068;
// The total below is built from non-negative terms in at most 8 roundings to nearest, so it is
// at most a relative 2^-50 short of its exact value: this inflation makes up for that (and
// kTrigAbsolute for products that underflow).
constexpr double kSpreadInflation = 1 + 0x1p-40;

// v ± (spread + the allowance for the library's error), the total rounded up.
Interval around(double v, double spread) {
  const double total =
      (spread + kTrigRelative * (std::abs(v) + spread) + kTrigAbsolute) * kSpreadInflation;
  return outward(v - total, v + total);
}

struct SinCos {
  Interval sin, cos;
};

// Encloses sin φ and cos φ for every φ in t, and the values std::sin and std::cos return there.
// Taylor about a midpoint m with |φ − m| <= r: sin φ = sin m + (φ − m) cos m + R with |R| <= r²/2
// (|sin''| <= 1), and the same for cos. Two library calls per interval; the width of the sin
// enclosure is about 2r·|cos m|, as tight as the interval allows.
SinCos sin_cos(Interval t) {
  const double m = 0.5 * t.lo + 0.5 * t.hi;  // any float near the middle will do
  const double r = up(std::max(t.hi - m, m - t.lo));
  const double quadratic = 0.5 * r * r;
  const double s = std::sin(m);
  const double c = std::cos(m);
  return {around(s, r * std::abs(c) + quadratic), around(c, r * std::abs(s) + quadratic)};
}

// Beyond this width of φ the enclosure is given up: it no longer says where the bob is.
constexpr double kMaxAngleWidth = 1.0;

// Where the bob centre can be: x = pivot + l sin φ, y = −l cos φ (exact, at the angle stored).
struct Box {
  Interval x, y;
};

// An enclosure of one pendulum's state under free motion, advanced one step at a time by the
// stepper's own formulas (integrator/stepper.hpp with pendulum_rhs), operation by operation in
// the same order, so that each interval holds the value the real computation rounds to.
class StateEnclosure {
 public:
  StateEnclosure(const PendulumParams& p, OdeMethod method, double h, const PendulumState& x)
      : p_(p),
        method_(method),
        h_(h),
        half_(0.5 * h),  // the stepper's constants, the same bits
        sixth_(h / 6),
        minus_g_over_l_(-coefficients_of(p).g_over_l),
        phi_{x[0], x[0]},
        omega_{x[1], x[1]} {
    update();
  }

  // False once the enclosure is too wide (or not finite): then it says nothing any more.
  bool valid() const { return valid_; }
  const Box& box() const { return box_; }

  void step() {
    if (!valid_) return;
    if (method_ == OdeMethod::euler)
      euler();
    else
      rk4();
    update();
  }

 private:
  // ω̇ as pendulum_rhs computes it: (−g/l)·sin φ − c·ω.
  // Without damping the stepper subtracts an exact zero (c·ω = 0 for finite ω).
  Interval slope(Interval sin_phi, Interval omega) const {
    const Interval gravity = minus_g_over_l_ * sin_phi;
    return p_.damping == 0 ? gravity : gravity - p_.damping * omega;
  }

  // euler_step: x + h·f(x), with f(x) = (ω, ω̇).
  void euler() {
    const Interval a = slope(trig_.sin, omega_);
    phi_ = phi_ + h_ * omega_;
    omega_ = omega_ + h_ * a;
  }

  // rk4_step: the stage states x + c·h·k (the stage ω is the next φ-slope), then the weighted
  // sum, left to right as the stepper adds it.
  void rk4() {
    const Interval w1 = omega_;
    const Interval a1 = slope(trig_.sin, w1);
    const Interval w2 = omega_ + half_ * a1;
    const Interval a2 = slope(sin_cos(phi_ + half_ * w1).sin, w2);
    const Interval w3 = omega_ + half_ * a2;
    const Interval a3 = slope(sin_cos(phi_ + half_ * w2).sin, w3);
    const Interval w4 = omega_ + h_ * a3;
    const Interval a4 = slope(sin_cos(phi_ + h_ * w3).sin, w4);
    phi_ = phi_ + sixth_ * (w1 + twice(w2) + twice(w3) + w4);
    omega_ = omega_ + sixth_ * (a1 + twice(a2) + twice(a3) + a4);
  }

  // The box of the bob at the current angle, and sin φ for the next step's slope.
  void update() {
    valid_ = std::isfinite(phi_.lo) && std::isfinite(phi_.hi) && std::isfinite(omega_.lo) &&
             std::isfinite(omega_.hi) && phi_.hi - phi_.lo <= kMaxAngleWidth;
    if (!valid_) return;
    trig_ = sin_cos(phi_);
    const Interval y = p_.length * trig_.cos;
    box_ = {p_.pivot_x + p_.length * trig_.sin, {-y.hi, -y.lo}};
  }

  const PendulumParams& p_;
  OdeMethod method_;
  double h_, half_, sixth_, minus_g_over_l_;
  Interval phi_, omega_;
  SinCos trig_{};
  Box box_{};
  bool valid_ = true;
};

// The gap between two intervals (0 if they overlap).
double separation(Interval a, Interval b) {
  return std::max({0.0, b.lo - a.hi, a.lo - b.hi});
}

// True if no point of one box is within reach of a point of the other: the bobs are certainly
// apart, even after the monitor's own rounding (the margin in reach).
bool boxes_apart(const StateEnclosure& a, const StateEnclosure& b, double reach) {
  if (!a.valid() || !b.valid()) return false;
  const double dx = separation(a.box().x, b.box().x);
  const double dy = separation(a.box().y, b.box().y);
  return dx * dx + dy * dy > reach * reach;
}

// A pair whose window is still open.
struct OpenPair {
  BobPair pair;
  double reach;
  std::uint64_t magnitude;  // the magnitude bound's steps for this pair
};

// The enclosures of the pendulums of the open pairs, advanced in step: a pendulum shared by
// several pairs is enclosed once.
class Enclosures {
 public:
  Enclosures(const ChainSpec& chain, OdeMethod method, double h,
             std::span<const PendulumState> states, const std::vector<OpenPair>& open)
      : bobs_(states.size()), stepped_(states.size(), 0) {
    for (const OpenPair& o : open)
      for (std::uint32_t i : {o.pair.i, o.pair.j})
        if (!bobs_[i]) bobs_[i].emplace(chain.pendulums[i], method, h, states[i]);
  }
  bool apart(const OpenPair& o) const {
    return boxes_apart(*bobs_[o.pair.i], *bobs_[o.pair.j], o.reach);
  }
  // Advances the pendulums of the open pairs by one step; the others are no longer needed.
  void step(const std::vector<OpenPair>& open) {
    ++steps_;
    for (const OpenPair& o : open)
      for (std::uint32_t i : {o.pair.i, o.pair.j})
        if (stepped_[i] != steps_) {
          bobs_[i]->step();
          stepped_[i] = steps_;
        }
  }

 private:
  std::vector<std::optional<StateEnclosure>> bobs_;
  std::vector<std::uint64_t> stepped_;  // the last step() that advanced bob i
  std::uint64_t steps_ = 0;
};

// min over the pairs of min(max_steps, max(interval steps, magnitude steps)), following the
// enclosures only up to the best window so far.
std::uint64_t window(const ChainSpec& chain, std::span<const BobPair> pairs, OdeMethod method,
                     double h, std::span<const PendulumState> states, std::uint64_t max_steps) {
  std::uint64_t best = max_steps;
  std::vector<OpenPair> open;
  for (const BobPair& pair : pairs) {
    const std::uint64_t m = magnitude_steps(chain, pair, method, h, states, max_steps);
    if (m < max_steps)  // else the magnitude bound alone gives this pair max_steps
      open.push_back(
          {pair, reach_with_margin(chain.pendulums[pair.i], chain.pendulums[pair.j]), m});
  }
  Enclosures bobs(chain, method, h, states, open);
  for (std::uint64_t k = 0;; ++k) {
    // At step m+k the boxes of a pair may touch: it was safe at steps m+1 .. m+k−1 (none if
    // k = 0: a window never starts at a contact).
    std::size_t kept = 0;
    for (const OpenPair& o : open) {
      if (bobs.apart(o))
        open[kept++] = o;
      else
        best = std::min(best, std::max(k > 0 ? k - 1 : 0, o.magnitude));
    }
    open.resize(kept);
    if (open.empty() || k >= best) return best;
    bobs.step(open);
  }
}

void check_arguments(const ChainSpec& chain, double h, std::span<const PendulumState> states) {
  if (states.size() != chain.pendulums.size())
    throw SimulationError("lookahead: " + std::to_string(states.size()) + " states for " +
                          std::to_string(chain.pendulums.size()) + " pendulums");
  if (!(h > 0) || !std::isfinite(h))
    throw SimulationError("lookahead: step size must be finite and > 0");
}

}  // namespace

std::uint64_t safe_free_steps(const ChainSpec& chain, std::span<const BobPair> pairs,
                              OdeMethod method, double h, std::span<const PendulumState> states,
                              std::uint64_t max_steps) {
  check_arguments(chain, h, states);
  for (const BobPair& pair : pairs)
    if (!(pair.i < pair.j && pair.j < states.size()))
      throw SimulationError("lookahead: no pair (" + std::to_string(pair.i) + ", " +
                            std::to_string(pair.j) + ") in a chain of " +
                            std::to_string(states.size()));
  return window(chain, pairs, method, h, states, max_steps);
}

std::uint64_t safe_free_steps(const ChainSpec& chain, OdeMethod method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps) {
  check_arguments(chain, h, states);
  return window(chain, pairs_within_reach(chain), method, h, states, max_steps);
}

}  // namespace kausal
