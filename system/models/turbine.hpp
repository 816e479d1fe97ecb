#pragma once
// The steam turbine with its speed governor (docs/benchmarks.md C: x4, x5):
//   ẋ4 = k1 u1 − k2 ω − k3 x4     (governor / control valve position, pu)
//   ẋ5 = k4 x4 − k5 x5            (mechanical power, pu: steam chest delay)
// a non-reheat turbine with a droop governor (Kundur, "Power System Stability and Control",
// 1994, §9.2 and §11.1; Anderson & Fouad ch. 2): k1 = k3 = 1/TG, k2 = 1/(R ωs TG),
// k4 = k5 = 1/TCH, with ω the machine's speed deviation in electrical rad/s (an input) and
// u1 the load reference (pu). Defaults: TG = 0.2 s, TCH = 0.3 s, R = 5 % droop — typical
// values of those sections. The load change of the benchmark (80 % → 20 % in 3 s) is u1:
// a ramp from load_start to load_end starting at ramp_start and lasting ramp_time. The
// initial state is the equilibrium at load_start (valve = power = 0.8).
#include "system/model.hpp"
#include "system/models/ramp.hpp"

namespace kausal {

class ModelRegistry;

struct TurbineCoefficients {
  double k1, k2, k3, k4, k5;
};

class Turbine final : public Model {
 public:
  Turbine(const TurbineCoefficients& k, const Ramp& load, Vector x0)
      : k_(k), load_(load), x0_(std::move(x0)) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return x0_; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;
  double load_reference(double t) const { return load_(t); }

 private:
  // Indices into the state vector x and the input vector u.
  enum State { valve, power };
  enum Input { omega };
  TurbineCoefficients k_;
  Ramp load_;
  Vector x0_;
};

void register_turbine(ModelRegistry& registry);

}  // namespace kausal
