#include "system/chain.hpp"

#include <algorithm>
#include <cmath>

namespace kausal {
namespace {

// Bounds of sin and cos valid for every angle, without trigonometry (Taylor remainders of
// alternating sign): for φ >= 0, φ − φ³/6 <= sin φ <= φ − φ³/6 + φ⁵/120 (mirrored for φ < 0),
// and 1 − φ²/2 <= cos φ <= 1 − φ²/2 + φ⁴/24; all clipped to [−1, 1].
struct Interval {
  double low, high;
};

// Multiplying by reciprocals instead of dividing (a division costs as much as the rest of the
// test): the extra rounding is many orders below the margin of may_touch.
constexpr double kSixth = 1.0 / 6, kHalf = 0.5, k24th = 1.0 / 24, k120th = 1.0 / 120;

Interval sin_bounds(double phi) {
  const double p2 = phi * phi;
  const double base = phi * (1 - p2 * kSixth);
  const double fifth = phi * p2 * p2 * k120th;  // same sign as φ
  return {std::max(base + std::min(fifth, 0.0), -1.0), std::min(base + std::max(fifth, 0.0), 1.0)};
}

Interval cos_bounds(double phi) {
  const double p2 = phi * phi;
  const double base = 1 - p2 * kHalf;
  return {std::max(base, -1.0), std::min(base + p2 * p2 * k24th, 1.0)};
}

// The gap between two intervals (0 if they overlap).
double gap(const Interval& a, const Interval& b) {
  return std::max(0.0, std::max(b.low - a.high, a.low - b.high));
}

}  // namespace

double bob_distance(const PendulumParams& a, const PendulumParams& b, const double* xa,
                    const double* xb) {
  const BobKinematics ka = bob_kinematics(a, xa);
  const BobKinematics kb = bob_kinematics(b, xb);
  const double dx = kb.x - ka.x;
  const double dy = kb.y - ka.y;
  return std::sqrt(dx * dx + dy * dy);
}

double half_reach(const PendulumParams& p) {
  return p.radius * (1 + 1e-9) + 1e-12 * (std::abs(p.pivot_x) + p.length);
}

double reach_with_margin(const PendulumParams& a, const PendulumParams& b) {
  return half_reach(a) + half_reach(b);
}

XBounds bob_x_bounds(const PendulumParams& p, double phi) {
  const Interval s = sin_bounds(phi);
  XBounds x{p.pivot_x + p.length * s.low, p.pivot_x + p.length * s.high};
  // |sin| <= 1 whatever φ is (the comparisons also catch a NaN angle).
  if (!(x.low >= p.pivot_x - p.length)) x.low = p.pivot_x - p.length;
  if (!(x.high <= p.pivot_x + p.length)) x.high = p.pivot_x + p.length;
  return x;
}

bool may_touch(const PendulumParams& a, const PendulumParams& b, double phi_a, double phi_b) {
  const double reach = reach_with_margin(a, b);
  const XBounds ba = bob_x_bounds(a, phi_a), bb = bob_x_bounds(b, phi_b);
  const double dx = gap({ba.low, ba.high}, {bb.low, bb.high});
  if (dx > reach) return false;  // the common case: apart sideways
  const Interval ca = cos_bounds(phi_a), cb = cos_bounds(phi_b);
  const Interval ya{-a.length * ca.high, -a.length * ca.low};
  const Interval yb{-b.length * cb.high, -b.length * cb.low};
  const double dy = gap(ya, yb);
  return dx * dx + dy * dy <= reach * reach;
}

std::optional<Impact> pair_impact(const PendulumParams& a, const PendulumParams& b,
                                  double restitution, const double* xa, const double* xb) {
  const BobKinematics ka = bob_kinematics(a, xa);
  const BobKinematics kb = bob_kinematics(b, xb);
  const double dx = kb.x - ka.x;
  const double dy = kb.y - ka.y;
  const double distance = std::sqrt(dx * dx + dy * dy);  // as bob_distance (kinematics reused)
  if (distance > a.radius + b.radius) return std::nullopt;
  if (distance == 0) throw SimulationError("two bobs are at the same place (pendulum overlap)");
  const double nx = dx / distance;
  const double ny = dy / distance;
  const double v_normal = (kb.vx - ka.vx) * nx + (kb.vy - ka.vy) * ny;
  if (!(v_normal < 0)) return std::nullopt;  // touching but not approaching
  const double nt_a = nx * ka.tx + ny * ka.ty;
  const double nt_b = nx * kb.tx + ny * kb.ty;
  const double inverse_inertia = nt_a * nt_a / a.mass + nt_b * nt_b / b.mass;
  if (inverse_inertia == 0) return std::nullopt;  // the strings take the whole impulse
  const double impulse = -(1 + restitution) * v_normal / inverse_inertia;
  // ω_a ← ω_a − J(n·t_a)/(m_a l_a), ω_b ← ω_b + J(n·t_b)/(m_b l_b): see apply_pendulum_impulse.
  return Impact{-(impulse * nt_a), impulse * nt_b};
}

}  // namespace kausal
