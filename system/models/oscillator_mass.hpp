#pragma once
// One mass of the two-mass oscillator (docs/benchmarks.md E): a mass on a wall spring and damper,
// joined to another mass by a coupling spring and damper,
//   m ẍ = −k x − d v − kc (x − x_other) − dc (v − v_other).
// Two instances coupled x → x_other, v → v_other both ways are benchmark E; the coupling
// force is computed on both sides, so each partition needs only the other's position and
// velocity.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

struct OscillatorMassParams {
  double m = 1, k = 0, d = 0, kc = 0, dc = 0, x0 = 0, v0 = 0;
};

class OscillatorMass final : public Model {
 public:
  explicit OscillatorMass(const OscillatorMassParams& p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override;
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { pos, vel };
  enum Input { x_other, v_other };
  OscillatorMassParams p_;
};

void register_oscillator_mass(ModelRegistry& registry);

}  // namespace kausal
