#include "system/models/eigenvalue_jump.hpp"

#include "system/model_registry.hpp"

namespace kausal {

const Signature& EigenvalueJump::signature() const {
  static const Signature signature{{"x"}, {"u"}, {"x"}};
  return signature;
}

void EigenvalueJump::derivative(double t, VectorView x, VectorView u, VectorOut dx) const {
  dx[0] = -lambda(t) * (x[0] - u[0]);
}

void EigenvalueJump::jacobian(double t, VectorView, VectorView, MatrixOut J) const {
  J(0, 0) = -lambda(t);
}

void register_eigenvalue_jump(ModelRegistry& registry) {
  registry.add({"eigenvalue_jump",
                "a first-order lag whose eigenvalue jumps, dx/dt = -lambda(t) (x - u), lambda = "
                "lambda_before up to t_jump, lambda_after after it: input u, output x",
                {{"lambda_before", 5.0, "1/s: the eigenvalue before the jump is -lambda_before", 0},
                 {"lambda_after", 1000.0, "1/s: the eigenvalue from t_jump on", 0},
                 {"t_jump", 1.0, "s"},
                 {"x0", 1.0, "x at t = 0"}},
                [](const ParameterValues& v) {
                  return std::make_unique<EigenvalueJump>(EigenvalueJumpParams{
                      v["lambda_before"], v["lambda_after"], v["t_jump"], v["x0"]});
                }});
}

}  // namespace kausal
