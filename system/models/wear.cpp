#include "system/models/wear.hpp"

#include "system/model_registry.hpp"

namespace kausal {

const Signature& Wear::signature() const {
  static const Signature signature{{"wear"}, {"running"}, {"wear"}};
  return signature;
}

void Wear::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  dx[0] = u[0] * p_.rate * (1 + p_.growth * x[0]);
}

void Wear::jacobian(double, VectorView, VectorView u, MatrixOut J) const {
  J(0, 0) = u[0] * p_.rate * p_.growth;
}

void register_wear(ModelRegistry& registry) {
  registry.add({"wear",
                "a machine's wear while it runs, dw/dt = running * rate * (1 + growth * w): "
                "input running (1 or 0), output the wear",
                {{"rate", 0.01, "wear rate of a new machine, 1/s", 0},
                 {"growth", 1.0, "how much faster a worn machine wears", 0},
                 {"wear0", 0.0, "wear at t = 0", 0}},
                [](const ParameterValues& v) {
                  return std::make_unique<Wear>(WearParams{v["rate"], v["growth"], v["wear0"]});
                }});
}

}  // namespace kausal
