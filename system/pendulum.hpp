#pragma once
// One plane pendulum of the chain benchmark (docs/model.md §2). The inline functions here are
// the only place the pendulum's arithmetic is written, so that every method (sequential,
// conservative, optimistic; in one process or many) performs the same floating-point
// operations in the same order and produces bit-identical trajectories.
#include <cmath>
#include <cstdint>
#include <span>

#include "system/artificial_work.hpp"
#include "system/model.hpp"

namespace kausal {

struct PendulumParams {
  double pivot_x = 0;
  double length = 1;
  double mass = 1;
  double radius = 0.05;
  double damping = 0;  // viscous, 1/s
  double gravity = 9.81;
  std::uint64_t calc_work = 0;  // artificial work units per Calc (see artificial_work.hpp)
};

// State layout: x[0] = φ (rad, from the downward vertical, counter-clockwise), x[1] = ω.
inline constexpr std::size_t pendulum_state_size = 2;

// The constants of the equation of motion, computed once per pendulum (a division per
// Calc would cost as much as the rest of it; computing g/l once gives the same bits).
struct PendulumCoefficients {
  double g_over_l;
  double damping;
  std::uint64_t calc_work;
};

inline PendulumCoefficients coefficients_of(const PendulumParams& p) {
  return {p.gravity / p.length, p.damping, p.calc_work};
}

// φ̇ = ω, ω̇ = −(g/l) sin φ − c ω (after the scenario's artificial cost, if any).
inline void pendulum_rhs(const PendulumCoefficients& c, const double* x, double* dx) {
  if (c.calc_work) artificial_work(c.calc_work);
  dx[0] = x[1];
  dx[1] = -c.g_over_l * std::sin(x[0]) - c.damping * x[1];
}

struct BobKinematics {
  double x, y;    // centre p = (px + l sin φ, −l cos φ)
  double vx, vy;  // velocity v = l ω t
  double tx, ty;  // tangent t = (cos φ, sin φ)
};

inline BobKinematics bob_kinematics(const PendulumParams& p, const double* x) {
  const double s = std::sin(x[0]);
  const double c = std::cos(x[0]);
  const double speed = p.length * x[1];
  return {p.pivot_x + p.length * s, -p.length * c, speed * c, speed * s, c, s};
}

// An angular impulse on the bob: ω ← ω + impulse / (m l). The sign is the caller's (the
// impact law gives −J(n·t_i) to the left bob and +J(n·t_{i+1}) to the right one).
inline void apply_pendulum_impulse(const PendulumParams& p, double impulse, double* x) {
  x[1] = x[1] + impulse / (p.mass * p.length);
}

// Reads and checks the named parameters (pivot_x, length, mass, radius, damping, gravity).
PendulumParams pendulum_params_from(const std::string& component, const Parameters& parameters);
Parameters to_parameters(const PendulumParams& p);

class PendulumModel final : public Model {
 public:
  explicit PendulumModel(const PendulumParams& p) : p_(p), c_(coefficients_of(p)) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector::Zero(pendulum_state_size); }
  void derivative(double, VectorView x, VectorView, VectorOut dx) const override {
    pendulum_rhs(c_, x.data(), dx.data());
  }
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;
  void handle_event(const Event& event, std::span<double> x) const override;
  const PendulumParams& params() const { return p_; }

 private:
  PendulumParams p_;
  PendulumCoefficients c_;
};

class ModelRegistry;
void register_pendulum(ModelRegistry& registry);

}  // namespace kausal
