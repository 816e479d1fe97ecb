#include "system/models/water_tank.hpp"

#include <cmath>

#include "system/model_registry.hpp"

namespace kausal {

const Signature& WaterTank::signature() const {
  static const Signature signature{{"level"}, {"inflow"}, {"level", "outflow"}};
  return signature;
}

Vector WaterTank::initial_state() const {
  return Vector{{p_.level0}};
}

// An empty tank does not drain (a step may overshoot slightly below 0: no NaN from √).
double WaterTank::outflow(double level) const {
  return level > 0 ? p_.orifice * std::sqrt(2 * p_.gravity * level) : 0.0;
}

void WaterTank::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  dx[0] = (u[0] - outflow(x[0])) / p_.area;
}

void WaterTank::output(double, VectorView x, VectorOut y) const {
  y[0] = x[0];
  y[1] = outflow(x[0]);
}

// d q_out / dh = a·g / √(2 g h); at h = 0 the slope is infinite, so it is capped at a tiny
// level (the Jacobian only steers implicit and exponential methods).
void WaterTank::jacobian(double, VectorView x, VectorView, MatrixOut J) const {
  const double level = std::max(x[0], 1e-9);
  J(0, 0) = -p_.orifice * p_.gravity / std::sqrt(2 * p_.gravity * level) / p_.area;
}

void register_water_tank(ModelRegistry& registry) {
  registry.add({"water_tank",
                "tank drained through a bottom orifice, A dh/dt = q_in - a sqrt(2 g h) "
                "(worked example of docs/adding-a-model.md)",
                {{"area", {}, "cross-section A, m^2", positive},
                 {"orifice", {}, "orifice area a, m^2", 0},
                 {"gravity", 9.81, "gravitational acceleration, m/s^2", positive},
                 {"level0", 0.0, "level at t = 0, m", 0}},
                [](const ParameterValues& v) {
                  return std::make_unique<WaterTank>(
                      WaterTankParams{v["area"], v["orifice"], v["gravity"], v["level0"]});
                }});
}

}  // namespace kausal
