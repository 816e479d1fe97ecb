#pragma once
// The discrete-event models a scenario can name (docs/events.md): each with its parameters,
// their defaults and meanings (for `kausal models` and error messages), and how to build it
// from the values a scenario gives.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct EventParameter {
  std::string name;
  double default_value = 0;
  bool whole = false;  // must be a whole number (counts, seeds)
  std::string meaning;
  // The largest value a scenario may give: keeps memory and the set-up's work over pairs
  // of components bounded (docs/events.md, "Limits").
  double most = 1e300;
};

struct EventModelType {
  std::string name;
  std::string description;
  std::vector<EventParameter> parameters;
  // Builds the model from a value for every parameter (defaults filled in); throws
  // InputError naming the parameter for a value out of range.
  std::function<std::unique_ptr<EventModel>(const std::map<std::string, double>&)> make;
};

// What is wrong with `value` for parameter `p` ("must be a whole number, 0 or more"), or
// empty: the one check of every value, from a scenario or over the wire.
std::string parameter_problem(const EventParameter& p, double value);

const std::vector<EventModelType>& event_model_types();
// nullptr if no model has that name.
const EventModelType* event_model_type(const std::string& name);

}  // namespace kausal::des
