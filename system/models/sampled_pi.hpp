#pragma once
// A discrete controller: a PI controller sampled every h seconds (the h of its partition),
// whose command is held between samples (zero-order hold). It is a discrete component
// among continuous ones: its state changes only at its sample instants, which is why it
// steps itself (integrator "co-simulation") instead of showing a derivative.
//
// At the sample at t it reads the measurement y(t) and the setpoint r(t), and sets
//   e = r − y,   I ← clamp(I + ki·e·h),   u = clamp(kp·e + I)
// with both clamped to [command_min, command_max] (the integral is clamped too, so it does
// not wind up while the command saturates). The new u is the controller's output from the
// end of that sample period on: one sample of computational delay, as in a controller that
// needs its sample period to compute. The setpoint steps by `setpoint_step` after
// `setpoint_time`.
#include "system/model.hpp"
#include "system/models/ramp.hpp"

namespace kausal {

class ModelRegistry;

struct SampledPiParams {
  double kp = 0, ki = 0;
  double command_min = 0, command_max = 0;
  double command0 = 0;  // the command held until the first sample's result
  Ramp setpoint;
};

class SampledPi final : public Model {
 public:
  explicit SampledPi(SampledPiParams p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override;
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool steps_itself() const override { return true; }
  void step(double t, double h, VectorView u, MatrixView du, VectorOut x) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { integral, command };
  enum Input { measurement };
  double clamp(double command) const;
  SampledPiParams p_;
};

void register_sampled_pi(ModelRegistry& registry);

}  // namespace kausal
