#include "system/models/turbine.hpp"

#include <cmath>

#include "system/model_registry.hpp"

namespace kausal {

namespace {

std::unique_ptr<Model> make_turbine(const ParameterValues& v) {
  const double tg = v["TG"];
  const double tch = v["TCH"];
  const double omega_s = 2 * M_PI * v["f"];
  const TurbineCoefficients k{1 / tg, 1 / (v["R"] * omega_s * tg), 1 / tg, 1 / tch, 1 / tch};
  const Ramp load{v["load_start"], v["load_end"], v["ramp_start"], v["ramp_time"]};
  return std::make_unique<Turbine>(k, load, Vector{{v["valve0"], v["power0"]}});
}

}  // namespace

const Signature& Turbine::signature() const {
  static const Signature signature{{"valve", "power"}, {"omega"}, {"power", "valve"}};
  return signature;
}

void Turbine::derivative(double t, VectorView x, VectorView u, VectorOut dx) const {
  dx[valve] = k_.k1 * load_(t) - k_.k2 * u[omega] - k_.k3 * x[valve];
  dx[power] = k_.k4 * x[valve] - k_.k5 * x[power];
}

void Turbine::output(double, VectorView x, VectorOut y) const {
  y[0] = x[power];
  y[1] = x[valve];
}

void Turbine::jacobian(double, VectorView, VectorView, MatrixOut J) const {
  J << -k_.k3, 0, k_.k4, -k_.k5;
}

void register_turbine(ModelRegistry& registry) {
  registry.add({"turbine",
                "steam turbine with droop governor, load reference ramp (turbogenerator x4, x5, "
                "benchmark C)",
                {{"TG", 0.2, "governor (speed relay and servomotor) time constant, s", positive},
                 {"TCH", 0.3, "steam chest time constant, s", positive},
                 {"R", 0.05, "speed droop, pu speed / pu power", positive},
                 {"f", 60.0, "network frequency, Hz (converts omega to pu)", positive},
                 {"load_start", 0.8, "load reference before the ramp, pu", 0},
                 {"load_end", 0.2, "load reference after the ramp, pu", 0},
                 {"ramp_start", 0.0, "time the load change begins, s"},
                 {"ramp_time", 3.0, "duration of the load change, s (0: a step)", 0},
                 {"valve0", 0.8, "initial valve position, pu"},
                 {"power0", 0.8, "initial mechanical power, pu"}},
                make_turbine});
}

}  // namespace kausal
