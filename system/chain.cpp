#include "system/chain.hpp"

#include <algorithm>
#include <cmath>

namespace kausal {
namespace {

// Upper bound of sin φ for any φ: φ for φ ≥ 0, φ − φ³/6 for φ < 0 (sin x ≥ x − x³/6 for
// x ≥ 0, and sin is odd), never above 1.
double sin_upper(double phi) {
  const double bound = phi >= 0 ? phi : phi - phi * phi * phi / 6;
  return std::min(bound, 1.0);
}
double sin_lower(double phi) { return -sin_upper(-phi); }

}  // namespace

bool may_touch(const PendulumParams& a, const PendulumParams& b, double phi_a, double phi_b) {
  const double right_of_a = a.pivot_x + a.length * sin_upper(phi_a);
  const double left_of_b = b.pivot_x + b.length * sin_lower(phi_b);
  const double reach = a.radius + b.radius;
  const double scale = std::abs(a.pivot_x) + std::abs(b.pivot_x) + a.length + b.length + reach;
  return left_of_b - right_of_a <= reach + 1e-9 * scale;
}

std::optional<Impact> pair_impact(const PendulumParams& a, const PendulumParams& b,
                                  double restitution, const double* xa, const double* xb) {
  const BobKinematics ka = bob_kinematics(a, xa);
  const BobKinematics kb = bob_kinematics(b, xb);
  const double dx = kb.x - ka.x;
  const double dy = kb.y - ka.y;
  const double distance = std::sqrt(dx * dx + dy * dy);
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
