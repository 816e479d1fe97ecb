#include "system/models/oscillator_mass.hpp"

#include "system/model_registry.hpp"

namespace kausal {

const Signature& OscillatorMass::signature() const {
  static const Signature signature{{"x", "v"}, {"x_other", "v_other"}, {"x", "v"}};
  return signature;
}

Vector OscillatorMass::initial_state() const {
  return Vector{{p_.x0, p_.v0}};
}

void OscillatorMass::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  const double force = -p_.k * x[pos] - p_.d * x[vel] - p_.kc * (x[pos] - u[x_other]) -
                       p_.dc * (x[vel] - u[v_other]);
  dx[pos] = x[vel];
  dx[vel] = force / p_.m;
}

void OscillatorMass::jacobian(double, VectorView, VectorView, MatrixOut J) const {
  J << 0, 1, -(p_.k + p_.kc) / p_.m, -(p_.d + p_.dc) / p_.m;
}

void register_oscillator_mass(ModelRegistry& registry) {
  registry.add({"oscillator_mass",
                "mass on a wall spring/damper, coupled to another mass by a spring/damper "
                "(benchmark E)",
                {{"m", 1.0, "mass, kg", positive},
                 {"k", 0.0, "wall spring stiffness, N/m", 0},
                 {"d", 0.0, "wall damper, N s/m", 0},
                 {"kc", 0.0, "coupling spring stiffness to the other mass, N/m", 0},
                 {"dc", 0.0, "coupling damper to the other mass, N s/m", 0},
                 {"x0", 0.0, "initial position, m"},
                 {"v0", 0.0, "initial velocity, m/s"}},
                [](const ParameterValues& v) {
                  return std::make_unique<OscillatorMass>(OscillatorMassParams{
                      v["m"], v["k"], v["d"], v["kc"], v["dc"], v["x0"], v["v0"]});
                }});
}

}  // namespace kausal
