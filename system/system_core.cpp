#include "system/system_core.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "system/composite_model.hpp"

namespace kausal {

std::size_t SystemCore::configure(const std::string& model, const Parameters& parameters) {
  return configure(make_model(name_, model, parameters));
}

// Every reply's size comes from the model: a model beyond the limits is refused before any
// call has to answer with its sizes.
std::size_t SystemCore::configure(std::unique_ptr<Model> model) {
  try {
    limits::require_model_within(name_, "the model", model->state_size(), model->input_size(),
                                 model->output_size(), model->indicator_count());
  } catch (const ProtocolError& e) {
    throw ModelError(name_, e.reason());  // configure answers a bad model with ModelFailure
  }
  model_ = std::move(model);
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

void SystemCore::handle_event(const Event& event, std::span<double> x) {
  BusyScope busy(clock_, {ActivityCall::event, event.step});
  clock_.count_request();
  check_state(x, "state");
  limits::within(name_, "event '" + event.kind + "': data values", event.data.size(),
                 limits::max_model_size, "the largest model a component accepts");
  for (double v : event.data)
    if (!std::isfinite(v)) throw ModelError(name_, "event '" + event.kind + "' data is not finite");
  try {
    configured().handle_event(event, x);
  } catch (const ModelError& e) {
    throw ModelError(name_, e.reason());
  }
}

void SystemCore::change(const ModelChange& change) {
  BusyScope busy(clock_, {ActivityCall::event});
  clock_.count_request();
  auto* composite = dynamic_cast<CompositeModel*>(model_.get());
  if (!composite) {
    configured();  // a ProtocolError before configure()
    throw ModelError(name_, "its model is not a partition: no input or parameter can change");
  }
  try {
    composite->change(change);
  } catch (const ModelError& e) {
    throw ModelError(name_, e.reason());
  }
}

void SystemCore::check_inputs(VectorView u) const {
  if (static_cast<std::size_t>(u.size()) != configured().input_size())
    throw ModelError(name_, "inputs have " + std::to_string(u.size()) + " values, the model has " +
                                std::to_string(configured().input_size()));
  if (!u.allFinite()) throw ModelError(name_, "inputs are not finite");
}

void SystemCore::check_input_derivatives(VectorView u, MatrixView du) const {
  if (du.rows() != u.size() || du.cols() > max_input_derivative_order)
    throw ModelError(name_, "input derivatives: " + std::to_string(du.rows()) + " × " +
                                std::to_string(du.cols()) + " values for " +
                                std::to_string(u.size()) + " inputs (at most " +
                                std::to_string(max_input_derivative_order) + " orders)");
  if (!du.allFinite()) throw ModelError(name_, "input derivatives are not finite");
}

template <typename Call>
void SystemCore::guarded(ActivityCall name, Call&& call) {
  BusyScope busy(clock_, {name});
  clock_.count_request();
  try {
    call();
  } catch (const ModelError& e) {
    throw ModelError(name_, e.reason());
  }
}

void SystemCore::derivative(double t, VectorView x, VectorView u, VectorOut dx) {
  guarded(ActivityCall::derivative, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    check_inputs(u);
    configured().derivative(t, x, u, dx);
    clock_.count_calc();
  });
}

void SystemCore::output(double t, VectorView x, VectorOut y) {
  guarded(ActivityCall::output, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    configured().output(t, x, y);
  });
}

void SystemCore::jacobian(double t, VectorView x, VectorView u, MatrixOut J) {
  guarded(ActivityCall::jacobian, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    check_inputs(u);
    configured().jacobian(t, x, u, J);
  });
}

void SystemCore::indicators(double t, VectorView x, VectorView u, VectorOut g) {
  guarded(ActivityCall::indicators, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    check_inputs(u);
    configured().indicators(t, x, u, g);
  });
}

void SystemCore::on_crossing(std::size_t indicator, double t, VectorOut x) {
  guarded(ActivityCall::event, [&] {
    if (indicator >= configured().indicator_count())
      throw ModelError(name_, "no zero-crossing indicator " + std::to_string(indicator));
    configured().on_crossing(indicator, t, x);
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state after the event");
  });
}

void SystemCore::completed_step(double t, VectorOut x) {
  guarded(ActivityCall::event, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    if (!std::isfinite(t)) throw ModelError(name_, "completed_step: t is not finite");
    configured().completed_step(t, x);
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state after the step's end");
  });
}

void SystemCore::step(double t, double h, VectorView u, MatrixView du, VectorOut x) {
  guarded(ActivityCall::derivative, [&] {
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state");
    check_inputs(u);
    check_input_derivatives(u, du);
    if (!std::isfinite(t) || !(h > 0) || !std::isfinite(h))
      throw ModelError(name_, "step from t = " + std::to_string(t) +
                                  " by h = " + std::to_string(h) + ": needs a finite t and h > 0");
    if (!configured().steps_itself())
      throw ModelError(name_, "its model does not step itself: integrate it with an ODE method");
    configured().step(t, h, u, du, x);
    check_state({x.data(), static_cast<std::size_t>(x.size())}, "state after the step");
    clock_.count_calc();
  });
}

Bytes SystemCore::save_internal() {
  Bytes bytes;
  guarded(ActivityCall::event, [&] {
    if (configured().internal_state() != InternalState::restorable)
      throw ModelError(name_, "its model has no internal state it can save");
    bytes = configured().save_internal();
    if (bytes.size() > limits::max_internal_bytes)
      throw ModelError(name_, "internal state of " + std::to_string(bytes.size()) +
                                  " bytes exceeds " + std::to_string(limits::max_internal_bytes));
  });
  return bytes;
}

void SystemCore::restore_internal(std::span<const std::uint8_t> bytes) {
  guarded(ActivityCall::event, [&] {
    if (configured().internal_state() != InternalState::restorable)
      throw ModelError(name_, "its model has no internal state it can restore");
    if (bytes.size() > limits::max_internal_bytes)
      throw ModelError(name_, "internal state of " + std::to_string(bytes.size()) +
                                  " bytes exceeds " + std::to_string(limits::max_internal_bytes));
    configured().restore_internal(bytes);
  });
}

}  // namespace kausal
