#pragma once
// The slow part of the hydraulic drive (docs/benchmarks.md D): a
// double-rod cylinder moving a heavy mass under position control, fed by the actuator's
// servo valve (the spool opening xs is this part's input, its command its output):
//   ṗ1 = β/V1(x) (Q1 − A v),   ṗ2 = β/V2(x) (Q2 + A v),   V1,2 = V0 ± A x
//   ẋ  = v
//   m v̇ = A (p1 − p2) − b v − Fc tanh(v/vs) − F
//   ż  = r(t) − x,   command = kp (r(t) − x) + ki z   (PI position controller)
// The valve is a critical-centre 4/3 valve with a small underlap ε; each metering edge
// passes Q = Kv · opening · sign(Δp) √|Δp| (turbulent orifice), with the root smoothed
// below δ so the right-hand side stays differentiable where Δp = 0:
//   Q1 = Kv (pos(xs) ρ(ps − p1) − neg(xs) ρ(p1 − pt))
//   Q2 = Kv (neg(xs) ρ(ps − p2) − pos(xs) ρ(p2 − pt))
//   ρ(Δp) = Δp / (Δp² + δ²)^¼,   pos/neg(xs) = (±xs + √(xs² + ε²))/2.
// Pressures are in bar (forces use 1e5 Pa/bar), flows in m³/s, x in m. The nonlinearities:
// the orifice roots, the stroke-dependent volumes, Coulomb friction, the torque motor limit
// of the actuator. Defaults: A = 20 cm², V0 = 1 l per side (hoses included), β = 7000 bar
// (oil with some entrained air), m = 800 kg: hydraulic natural frequency ≈ 13 Hz; b gives a
// damping ratio of about 0.25; Kv passes 90 l/min at full opening and 100 bar per edge. The
// setpoint r(t) ramps from ref_start to ref_end. With these values the eigenvalues of this
// part stay below about 100 1/s along the default run (Euler limit ≥ 6 ms), so explicit
// Euler is stable for it at 1 ms and 0.3 ms (the source: 1 ms for the slow part), while the
// actuator needs 0.1 ms (a design criterion; tests/unit/models_test.cpp checks both). The
// open-loop cylinder has no spring: as a partition of its own its position mode sits at
// λ ≈ 0, beside the controller's integrator.
#include <cstdint>

#include "system/model.hpp"
#include "system/models/ramp.hpp"

namespace kausal {

class ModelRegistry;

struct LoadParams {
  double beta, ps, pt, area, v0, mass, damping, coulomb, v_stribeck, force;
  double kv, underlap, dp_smooth, kp, ki;
  Ramp reference;
  double p1_0, p2_0, x0;
  std::uint64_t calc_work;
};

class Load final : public Model {
 public:
  explicit Load(const LoadParams& p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override;
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { p1, p2, position, velocity, integral };
  enum Input { spool };
  struct Flows {
    double open_p, open_n, q1, q2, v1, v2;
  };
  Flows flows(VectorView x, VectorView u) const;
  LoadParams p_;
};

void register_load(ModelRegistry& registry);

}  // namespace kausal
