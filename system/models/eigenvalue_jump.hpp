#pragma once
// The hardware-in-the-loop texts' test of a solver's reaction to a model that turns stiff: a
// first-order lag whose eigenvalue jumps at t_jump,
//   dx/dt = −λ(t)·(x − u),  λ = lambda_before up to t_jump, lambda_after after it
// (by default −5 → −1000 /s at t = 1 s; a step that ends at t_jump sees none of the jump).
// Input u (the value x follows), output x.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

struct EigenvalueJumpParams {
  double lambda_before = 5;  // 1/s: the eigenvalue is −lambda_before
  double lambda_after = 1000;
  double t_jump = 1;
  double x0 = 1;
};

class EigenvalueJump final : public Model {
 public:
  explicit EigenvalueJump(const EigenvalueJumpParams& p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector{{p_.x0}}; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  double lambda(double t) const { return t <= p_.t_jump ? p_.lambda_before : p_.lambda_after; }
  EigenvalueJumpParams p_;
};

void register_eigenvalue_jump(ModelRegistry& registry);

}  // namespace kausal
