#include "system/models/synchronous_machine.hpp"

#include <cmath>

#include "system/model_registry.hpp"

namespace kausal {

namespace {

MachineCoefficients coefficients_of(const ParameterValues& v) {
  const double xd = v["xd"] + v["xe"];
  const double xq = v["xq"] + v["xe"];
  const double xt = v["xd_transient"] + v["xe"];
  const double h2 = 2 * v["H"];
  const double inv_m = 2 * M_PI * v["f"] / h2;  // 1/M = ωs/(2H)
  const double t0 = v["td0_transient"];
  const double bus = v["v_bus"];
  return {v["KD"] / h2,
          inv_m * bus / xt,
          inv_m * bus * bus * (1 / xq - 1 / xt),
          xd / (xt * t0),
          (v["xd"] - v["xd_transient"]) * bus / (xt * t0),
          1 / t0,
          inv_m};
}

std::unique_ptr<Model> make_synchronous_machine(const ParameterValues& v) {
  if (!(v["xd_transient"] < v["xd"]))
    throw InvalidParameters("parameter 'xd_transient' must be < xd");
  return std::make_unique<SynchronousMachine>(coefficients_of(v), v["efd"],
                                              Vector{{v["delta0"], v["omega0"], v["eq0"]}});
}

}  // namespace

const Signature& SynchronousMachine::signature() const {
  static const Signature signature{
      {"delta", "omega", "eq"}, {"pm"}, {"delta", "omega", "eq", "pe"}};
  return signature;
}

void SynchronousMachine::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  dx[delta] = x[omega];
  dx[omega] = -c_.c1 * x[omega] - c_.c2 * std::sin(x[delta]) * x[eq] -
              0.5 * c_.c3 * std::sin(2 * x[delta]) + c_.inv_m * u[pm];
  dx[eq] = c_.c5 * std::cos(x[delta]) - c_.c4 * x[eq] + c_.c6 * efd_;
}

// pe is the electrical air-gap power (pu): the swing equation's load, M (ω̇ + c1 ω) = pm − pe.
void SynchronousMachine::output(double, VectorView x, VectorOut y) const {
  y.head(3) = x;
  y[3] = (c_.c2 * std::sin(x[delta]) * x[eq] + 0.5 * c_.c3 * std::sin(2 * x[delta])) / c_.inv_m;
}

void SynchronousMachine::jacobian(double, VectorView x, VectorView, MatrixOut J) const {
  const double s = std::sin(x[delta]);
  const double c = std::cos(x[delta]);
  J << 0, 1, 0,                                                                 //
      -c_.c2 * c * x[eq] - c_.c3 * std::cos(2 * x[delta]), -c_.c1, -c_.c2 * s,  //
      -c_.c5 * s, 0, -c_.c4;
}

void register_synchronous_machine(ModelRegistry& registry) {
  registry.add(
      {"synchronous_machine",
       "synchronous machine on an infinite bus, one-axis model (turbogenerator x1..x3, "
       "benchmark C)",
       {{"H", 3.5, "inertia constant, s (MW s/MVA)", positive},
        {"KD", 8.0, "damping torque coefficient, pu torque / pu speed", 0},
        {"f", 60.0, "network frequency, Hz", positive},
        {"xd", 1.81, "d-axis synchronous reactance, pu", positive},
        {"xq", 1.76, "q-axis synchronous reactance, pu", positive},
        {"xd_transient", 0.30, "d-axis transient reactance x'd, pu (< xd)", positive},
        {"td0_transient", 8.0, "d-axis open-circuit transient time constant T'd0, s", positive},
        {"xe", 0.475, "transformer + line reactance to the infinite bus, pu", 0},
        {"v_bus", 1.0, "infinite bus voltage, pu", positive},
        {"efd", 1.93640091, "field voltage (constant, no exciter), pu"},
        {"delta0", 1.22357732, "initial rotor angle against the bus, rad"},
        {"omega0", 0.0, "initial speed deviation, electrical rad/s"},
        {"eq0", 0.881636624, "initial transient q-axis voltage e'q, pu"}},
       make_synchronous_machine});
}

}  // namespace kausal
