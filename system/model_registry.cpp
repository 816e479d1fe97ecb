#include "system/model_registry.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/listed.hpp"
#include "system/model_library.hpp"

namespace kausal {

double ParameterValues::operator[](const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("model asks for unregistered parameter " + name);
  return it->second;
}

void ModelRegistry::add(ModelInfo info) {
  const std::string name = info.name;
  if (!models_.emplace(name, std::move(info)).second)
    throw std::logic_error("model '" + name + "' registered twice");
}

const ModelInfo* ModelRegistry::find(const std::string& name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : &it->second;
}

std::vector<std::string> ModelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : models_) out.push_back(name);
  return out;
}

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void check_value(const ParameterSpec& spec, double v) {
  const std::string what = "parameter '" + spec.name + "' ";
  if (!std::isfinite(v)) throw InvalidParameters(what + "is not finite");
  if (spec.min == positive && spec.max == std::numeric_limits<double>::infinity() && !(v > 0))
    throw InvalidParameters(what + "must be > 0, got " + number(v));
  if (v < spec.min || v > spec.max)
    throw InvalidParameters(what + "must be in [" + number(spec.min) + ", " + number(spec.max) +
                            "], got " + number(v));
  if (spec.whole && v != std::floor(v)) throw InvalidParameters(what + "must be a whole number");
}

ParameterValues resolve(const ModelInfo& info, const Parameters& given) {
  std::map<std::string, double> values;
  for (const auto& [name, value] : given) {
    const ParameterSpec* spec = nullptr;
    for (const auto& s : info.parameters)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::vector<std::string> known;
      for (const auto& s : info.parameters) known.push_back(s.name);
      throw InvalidParameters("unknown parameter '" + name + "' for model '" + info.name +
                              "' (known: " + listed(known) + ")");
    }
    if (!values.emplace(name, value).second)
      throw InvalidParameters("parameter '" + name + "' given twice");
    check_value(*spec, value);
  }
  for (const auto& spec : info.parameters) {
    if (values.count(spec.name)) continue;
    if (!spec.default_value)
      throw InvalidParameters("missing parameter '" + spec.name + "' (" + spec.meaning + ")");
    values.emplace(spec.name, *spec.default_value);
  }
  return ParameterValues(std::move(values));
}

}  // namespace

std::unique_ptr<Model> ModelRegistry::make(const std::string& component, const std::string& name,
                                           const Parameters& given) const {
  const ModelInfo* info = find(name);
  if (!info)
    throw ModelError(component, "unknown model '" + name + "' (known: " + listed(names()) + ")");
  try {
    return info->make(resolve(*info, given));
  } catch (const InvalidParameters& e) {
    throw ModelError(component, e.what());
  }
}

std::unique_ptr<Model> make_model(const std::string& component, const std::string& name,
                                  const Parameters& parameters) {
  if (!model_registry().find(name))
    if (auto model = make_library_model(component, name, parameters)) return model;
  return model_registry().make(component, name, parameters);  // (names an unknown model)
}

}  // namespace kausal
