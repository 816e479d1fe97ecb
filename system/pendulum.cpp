#include "system/pendulum.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "system/model_registry.hpp"

namespace kausal {

namespace {

PendulumParams params_of(const ParameterValues& v) {
  PendulumParams p;
  p.pivot_x = v["pivot_x"];
  p.length = v["length"];
  p.mass = v["mass"];
  p.radius = v["radius"];
  p.damping = v["damping"];
  p.gravity = v["gravity"];
  p.calc_work = static_cast<std::uint64_t>(v["calc_work"]);
  if (!(p.radius < p.length)) throw InvalidParameters("parameter 'radius' must be < length");
  return p;
}

}  // namespace

void register_pendulum(ModelRegistry& registry) {
  registry.add(
      {"pendulum",
       "plane pendulum of the chain benchmark (state phi, omega; no inputs)",
       {{"pivot_x", {}, "pivot position along the row, m"},
        {"length", {}, "rod length, m", positive},
        {"mass", {}, "bob mass, kg", positive},
        {"radius", {}, "bob radius, m (< length)", positive},
        {"damping", 0.0, "viscous damping, 1/s", 0},
        {"gravity", 9.81, "gravitational acceleration, m/s^2", positive},
        {"calc_work", 0.0, "artificial work units per Calc (a slow host)", 0,
         static_cast<double>(limits::max_calc_work), true}},
       [](const ParameterValues& v) { return std::make_unique<PendulumModel>(params_of(v)); }});
}

PendulumParams pendulum_params_from(const std::string& component, const Parameters& parameters) {
  const auto model = model_registry().make(component, "pendulum", parameters);
  return static_cast<const PendulumModel&>(*model).params();
}

Parameters to_parameters(const PendulumParams& p) {
  return {{"pivot_x", p.pivot_x},
          {"length", p.length},
          {"mass", p.mass},
          {"radius", p.radius},
          {"damping", p.damping},
          {"gravity", p.gravity},
          {"calc_work", static_cast<double>(p.calc_work)}};
}

const Signature& PendulumModel::signature() const {
  static const Signature signature{{"phi", "omega"}, {}, {"phi", "omega"}};
  return signature;
}

void PendulumModel::jacobian(double, VectorView x, VectorView, MatrixOut J) const {
  J << 0, 1, -c_.g_over_l * std::cos(x[0]), -c_.damping;
}

void PendulumModel::handle_event(const Event& event, std::span<double> x) const {
  if (event.kind != "impulse" || event.data.size() != 1)
    throw ModelError("pendulum",
                     "unknown event '" + event.kind + "' (expected 'impulse' with one value)");
  apply_pendulum_impulse(p_, event.data[0], x.data());
}

}  // namespace kausal
