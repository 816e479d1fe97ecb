#pragma once
// The fast part of the hydraulic drive (docs/benchmarks.md D): a
// servo-valve spool driven by a torque motor, a strongly damped second-order system
//   ẋs = vs
//   v̇s = ωv² (tanh(command) − xs) − 2 ζ ωv vs
// with xs the spool opening as a fraction of full opening (−), command the controller's
// signal (−, an input from the load part) and tanh the torque motor's current limit (full
// opening at most). Defaults: ωv = 2π · 600 Hz, ζ = 1.5 — an overdamped high-response
// valve. Its fast eigenvalue −ωv (ζ + √(ζ² − 1)) ≈ −9870 1/s puts the explicit Euler limit at
// 2/9870 ≈ 0.2 ms: Euler is stable at the 0.1 ms the source reports (docs/benchmarks.md D) for the
// actuator and unstable at 0.3 ms (a criterion of this choice; tests/unit/models_test.cpp checks
// it).
#include <cstdint>

#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

class Actuator final : public Model {
 public:
  Actuator(double omega_v, double zeta, double xs0, std::uint64_t calc_work)
      : omega_v_(omega_v), zeta_(zeta), xs0_(xs0), calc_work_(calc_work) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector{{xs0_, 0.0}}; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { spool, spool_velocity };
  enum Input { command };
  double omega_v_, zeta_, xs0_;
  std::uint64_t calc_work_;
};

void register_actuator(ModelRegistry& registry);

}  // namespace kausal
