#include "system/system_core.hpp"

#include <cmath>

#include "system/errors.hpp"

namespace kausal {

std::size_t SystemCore::configure(const std::string& model, const Parameters& parameters) {
  model_ = make_model(name_, model, parameters);
  return model_->state_size();
}

const Model& SystemCore::configured() const {
  if (!model_) throw ProtocolError(name_, "used before configure()");
  return *model_;
}

void SystemCore::check_state(std::span<const double> x, const char* what) const {
  if (x.size() != configured().state_size())
    throw ModelError(name_, std::string(what) + " has " + std::to_string(x.size()) +
                                " values, the model's state has " +
                                std::to_string(configured().state_size()));
  for (double v : x)
    if (!std::isfinite(v)) throw ModelError(name_, std::string(what) + " is not finite");
}

void SystemCore::calc(double t, std::span<const double> x, std::span<double> dx) {
  BusyScope busy(clock_);
  clock_.count_request();
  check_state(x, "state");
  if (dx.size() != x.size()) throw ModelError(name_, "derivative buffer has the wrong size");
  configured().calc(t, x, dx);
  clock_.count_calc();
}

void SystemCore::handle_event(const Event& event, std::span<double> x) {
  BusyScope busy(clock_);
  clock_.count_request();
  check_state(x, "state");
  for (double v : event.data)
    if (!std::isfinite(v)) throw ModelError(name_, "event '" + event.kind + "' data is not finite");
  try {
    configured().handle_event(event, x);
  } catch (const ModelError& e) {
    throw ModelError(name_, e.reason());
  }
}

}  // namespace kausal
