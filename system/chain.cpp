#include "system/chain.hpp"

#include <cmath>

namespace kausal {

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
  return Impact{-(impulse * nt_a), impulse * nt_b, -v_normal};
}

}  // namespace kausal
