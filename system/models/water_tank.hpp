#pragma once
// A water tank drained through an orifice at its bottom (Torricelli):
//   A ḣ = q_in − q_out,   q_out = a·√(2 g h)   (h ≥ 0)
// Input: the inflow q_in; outputs: the level h and the outflow q_out. Tanks in a cascade
// couple one tank's q_out to the next one's q_in. This is the worked example of
// docs/adding-a-model.md.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

struct WaterTankParams {
  double area = 1;     // A, m²
  double orifice = 0;  // a, m²
  double gravity = 9.81;
  double level0 = 0;  // h at t = 0, m
};

class WaterTank final : public Model {
 public:
  explicit WaterTank(const WaterTankParams& p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override;
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  double outflow(double level) const;
  WaterTankParams p_;
};

void register_water_tank(ModelRegistry& registry);

}  // namespace kausal
