#include "system/pendulum.hpp"

#include <cmath>
#include <map>

#include "system/errors.hpp"

namespace kausal {

PendulumParams pendulum_params_from(const std::string& component, const Parameters& parameters) {
  std::map<std::string, double> given;
  for (const auto& [name, value] : parameters) {
    if (!std::isfinite(value))
      throw ModelError(component, "parameter '" + name + "' is not finite");
    if (!given.emplace(name, value).second)
      throw ModelError(component, "parameter '" + name + "' given twice");
  }
  PendulumParams p;
  auto take = [&](const char* name, double& field, bool required) {
    auto it = given.find(name);
    if (it == given.end()) {
      if (required) throw ModelError(component, std::string("missing parameter '") + name + "'");
      return;
    }
    field = it->second;
    given.erase(it);
  };
  take("pivot_x", p.pivot_x, true);
  take("length", p.length, true);
  take("mass", p.mass, true);
  take("radius", p.radius, true);
  take("damping", p.damping, false);
  take("gravity", p.gravity, false);
  double work = 0;
  take("calc_work", work, false);
  if (!given.empty())
    throw ModelError(component, "unknown parameter '" + given.begin()->first + "'");
  if (!(p.length > 0)) throw ModelError(component, "parameter 'length' must be > 0");
  if (!(p.mass > 0)) throw ModelError(component, "parameter 'mass' must be > 0");
  if (!(p.radius > 0)) throw ModelError(component, "parameter 'radius' must be > 0");
  if (!(p.radius < p.length)) throw ModelError(component, "parameter 'radius' must be < length");
  if (p.damping < 0) throw ModelError(component, "parameter 'damping' must be >= 0");
  if (!(p.gravity > 0)) throw ModelError(component, "parameter 'gravity' must be > 0");
  if (!(work >= 0 && work <= 1e12) || work != std::floor(work))
    throw ModelError(component, "parameter 'calc_work' must be a whole number in [0, 1e12]");
  p.calc_work = static_cast<std::uint64_t>(work);
  return p;
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

void PendulumModel::handle_event(const Event& event, std::span<double> x) const {
  if (event.kind != "impulse" || event.data.size() != 1)
    throw ModelError("pendulum",
                     "unknown event '" + event.kind + "' (expected 'impulse' with one value)");
  apply_pendulum_impulse(p_, event.data[0], x.data());
}

std::unique_ptr<Model> make_model(const std::string& component, const std::string& name,
                                  const Parameters& parameters) {
  if (name == "pendulum")
    return std::make_unique<PendulumModel>(pendulum_params_from(component, parameters));
  throw ModelError(component, "unknown model '" + name + "' (known: pendulum)");
}

}  // namespace kausal
