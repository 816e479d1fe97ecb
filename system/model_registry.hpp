#pragma once
// Models by name: what a scenario's `model = "..."` refers to. Each model registers a
// description of its parameters and a factory; the registry checks every value (known,
// given once, finite, in range, required ones present) before the factory sees it, so a
// bad scenario is reported with the component and the parameter, never a silent default.
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "system/model.hpp"

namespace kausal {

// As ParameterSpec::min: the value must be > 0 (reported so).
inline constexpr double positive = std::numeric_limits<double>::min();

struct ParameterSpec {
  std::string name;
  std::optional<double> default_value;  // none: the scenario must give it
  std::string meaning;                  // with its unit: "spring stiffness, N/m"
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool whole = false;  // must be an integer (counts, artificial work units)
};

// The checked parameters handed to a factory: every spec'd name has a value.
class ParameterValues {
 public:
  explicit ParameterValues(std::map<std::string, double> values) : values_(std::move(values)) {}
  double operator[](const std::string& name) const;
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// A factory throws this for a combination of values it cannot take (a radius longer than
// the pendulum); make_model adds the component's name.
class InvalidParameters : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelInfo {
  std::string name;
  std::string summary;  // one line for `kausal models`
  std::vector<ParameterSpec> parameters;
  std::function<std::unique_ptr<Model>(const ParameterValues&)> make;
};

class ModelRegistry {
 public:
  // Throws std::logic_error for a name registered twice (a programming error).
  void add(ModelInfo info);
  const ModelInfo* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::map<std::string, ModelInfo>& all() const { return models_; }

  // Checks `given` against the model's specs and builds it; throws ModelError naming
  // `component` and the offending parameter.
  std::unique_ptr<Model> make(const std::string& component, const std::string& name,
                              const Parameters& given) const;

 private:
  std::map<std::string, ModelInfo> models_;
};

// Every model kausal ships (system/models/builtin_models.cpp lists them).
const ModelRegistry& model_registry();

}  // namespace kausal
