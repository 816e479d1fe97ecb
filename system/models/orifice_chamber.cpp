#include "system/models/orifice_chamber.hpp"

#include "system/model_registry.hpp"

namespace kausal {

const Signature& OrificeChamber::signature() const {
  static const Signature signature{{"p"}, {"p_up", "p_down"}, {"p"}};
  return signature;
}

void OrificeChamber::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  dx[0] = g_up_ * (u[p_up] - x[0]) - g_down_ * (x[0] - u[p_down]);
}

void OrificeChamber::jacobian(double, VectorView, VectorView, MatrixOut J) const {
  J(0, 0) = -(g_up_ + g_down_);
}

void register_orifice_chamber(ModelRegistry& registry) {
  registry.add({"orifice_chamber",
                "pressure chamber between two orifices, dp/dt = g_up (p_up - p) - g_down (p - "
                "p_down) (benchmark B)",
                {{"g_up", {}, "upstream orifice conductance x bulk modulus / volume, 1/s", 0},
                 {"g_down", {}, "downstream orifice conductance x bulk modulus / volume, 1/s", 0},
                 {"p0", 0.0, "initial pressure, bar"}},
                [](const ParameterValues& v) {
                  return std::make_unique<OrificeChamber>(v["g_up"], v["g_down"], v["p0"]);
                }});
}

}  // namespace kausal
