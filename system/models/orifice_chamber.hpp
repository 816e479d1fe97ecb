#pragma once
// One pressure chamber between two orifices (docs/benchmarks.md B): one equation,
//   ṗ = g_up (p_up − p) − g_down (p − p_down),
// where g = E B / v (bulk modulus × orifice conductance / chamber volume, 1/s) lumps the
// linearised orifice and the chamber's capacity. Chambers in series, coupled p → p_up of
// the next and p → p_down of the previous, give the stiff linear chain of benchmark B.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

class OrificeChamber final : public Model {
 public:
  OrificeChamber(double g_up, double g_down, double p0) : g_up_(g_up), g_down_(g_down), p0_(p0) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector::Constant(1, p0_); }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum Input { p_up, p_down };
  double g_up_, g_down_, p0_;
};

void register_orifice_chamber(ModelRegistry& registry);

}  // namespace kausal
