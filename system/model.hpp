#pragma once
// The model API (docs/model.md §4): one subsystem ẋ = f(t, x, u), y = g(t, x), with an optional
// Jacobian block, optional zero-crossing event indicators with handlers, and optional named
// events sent from outside (the pendulum chain's impulses). Plain C++ and Eigen: a model
// does no CORBA, no threads and no I/O. docs/adding-a-model.md walks through writing one.
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kausal {

using Parameters = std::vector<std::pair<std::string, double>>;
using Bytes = std::vector<std::uint8_t>;

// Whether a model keeps state outside its vector x (Model::internal_state).
enum class InternalState { none, restorable, unrestorable };

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;
using VectorView = Eigen::Ref<const Eigen::VectorXd>;
using VectorOut = Eigen::Ref<Eigen::VectorXd>;
using MatrixOut = Eigen::Ref<Eigen::MatrixXd>;
using MatrixView = Eigen::Ref<const Eigen::MatrixXd>;

// A copy of contiguous doubles as a Vector.
inline Vector vector_of(std::span<const double> values) {
  return Eigen::Map<const Vector>(values.data(), static_cast<Eigen::Index>(values.size()));
}

struct Event {
  std::string kind;
  std::uint64_t step = 0;
  double t = 0;
  std::vector<double> data;
};

// The names of a subsystem's state components, inputs and outputs; their counts are the
// sizes. Names are what scenarios and couplings refer to ("chamber.p1").
struct Signature {
  std::vector<std::string> states;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

class Model {
 public:
  virtual ~Model() = default;

  virtual const Signature& signature() const = 0;
  std::size_t state_size() const { return signature().states.size(); }
  std::size_t input_size() const { return signature().inputs.size(); }
  std::size_t output_size() const { return signature().outputs.size(); }

  // The state at t0, from the parameters (zero unless the model says otherwise).
  virtual Vector initial_state() const {
    return Vector::Zero(static_cast<Eigen::Index>(state_size()));
  }

  // f: dx/dt at (t, x, u), one "Calc" (docs/model.md §1). u has input_size() values.
  virtual void derivative(double t, VectorView x, VectorView u, VectorOut dx) const = 0;
  // Only the rows where `rows[i]` is true are needed (a partition of this model asks for its
  // own states); the others may be left unset. Override it when skipping rows saves real
  // work; the default computes all of them.
  virtual void derivative_rows(double t, VectorView x, VectorView u, VectorOut dx,
                               const std::vector<bool>& rows) const;

  // g: the outputs at (t, x). The default copies the state (for models whose outputs are
  // their states, named alike).
  virtual void output(double t, VectorView x, VectorOut y) const;

  // ∂f/∂x (state_size² values). Models that know it say so; the default is central
  // differences, which the implicit and exponential integrators then use.
  virtual bool has_jacobian() const { return false; }
  virtual void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const;

  // Zero crossings: when indicator i changes sign across a step, on_crossing(i, t, x) is
  // applied to the state at the end of that step (events are located to the step, as the
  // chain's impacts are: docs/model.md §2).
  virtual std::size_t indicator_count() const { return 0; }
  virtual void indicators(double t, VectorView x, VectorView u, VectorOut g) const;
  virtual void on_crossing(std::size_t indicator, double t, VectorOut x) const;

  // An event sent by the monitor. Throws ModelError for an event kind it does not know
  // (the default knows none).
  virtual void handle_event(const Event& event, std::span<double> x) const;

  // ---- state that x does not hold (an imported FMU's discrete states, or all of a
  // co-simulation FMU's state: docs/fmi.md) ----
  // restorable: save_internal() gives bytes that restore_internal() returns to; the state
  // list keeps them with x, so rollback, --resume and --rollback-check restore them.
  // unrestorable: such state exists but cannot be saved; nothing may roll this model back.
  virtual InternalState internal_state() const { return InternalState::none; }
  // Why it is unrestorable (for the message that refuses a rollback).
  virtual std::string unrestorable_reason() const { return {}; }
  // The internal state as it is now. Only changes through on_crossing(), handle_event() and
  // step(): derivative(), output(), jacobian() and indicators() leave it as it was.
  virtual Bytes save_internal() const;
  virtual void restore_internal(std::span<const std::uint8_t> bytes) const;

  // ---- models that keep something at every step an Integrator takes (an FMI
  // model-exchange FMU that asks for fmi2CompletedIntegratorStep: docs/fmi.md) ----
  // completed_step(t, x) is called once after each step, at its end, before the zero
  // crossings are looked for. It may change x (a step event) and the internal state. A step
  // taken again (a rollback, the rollback check) is completed again, from the internal
  // state saved before it.
  virtual bool completes_steps() const { return false; }
  virtual void completed_step(double t, VectorOut x) const;

  // ---- models that step themselves (a co-simulation FMU) ----
  // Such a model has no derivative(): the Integrator's method is OdeMethod::co_simulation,
  // whose step is step(). x is what the model shows of its state (its outputs).
  virtual bool steps_itself() const { return false; }
  // From t to t + h; writes the new x. The inputs over the step are u at t and, where the
  // partition extrapolates them (a coupling's hold order, the master's predictions), their
  // time derivatives at t: du(i, k - 1) = d^k u_i / dt^k, so that
  // u_i(t + s) = u_i + Σ_k du(i, k - 1) s^k / k! (input_over_step). du has no columns where
  // every input is held. A model may use them (an FMU that interpolates its inputs) or hold
  // u over the step.
  virtual void step(double t, double h, VectorView u, MatrixView du, VectorOut x) const;
};

// The most derivatives of the inputs a step is given: a coupling's hold order is at most 2,
// the master's blended prediction a cubic.
inline constexpr Eigen::Index max_input_derivative_order = 3;

// Input i over a step from t, at t + s: the Taylor polynomial of Model::step's u and du
// (Horner's form: one rounding order wherever it is evaluated).
double input_over_step(VectorView u, MatrixView du, Eigen::Index i, double s);

// Builds a model by registered name from named parameters (system/model_registry.hpp);
// throws ModelError naming `component` and the parameter that is missing, unknown or out
// of range.
std::unique_ptr<Model> make_model(const std::string& component, const std::string& name,
                                  const Parameters& parameters);

}  // namespace kausal
