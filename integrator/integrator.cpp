#include "integrator/integrator.hpp"

#include <cmath>

#include "system/errors.hpp"
#include "system/request_limits.hpp"

namespace kausal {
namespace {

// Busy time of a request: its wall time minus its waits for the System, recorded as the
// pieces between those waits (the Integrator's strip of the utilisation timeline), and the
// whole request as a call span (trace.json draws it around the pieces and the waits).
class RequestScope {
 public:
  RequestScope(Integrator::BusyPieces& pieces, ActivityKind kind, SpanTag tag)
      : pieces_(pieces), call_(pieces.clock, tag) {
    pieces_.begin(kind, tag);
  }
  ~RequestScope() { pieces_.end(); }
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

 private:
  Integrator::BusyPieces& pieces_;
  CallScope call_;  // declared last: recorded after the last piece
};

}  // namespace

// f(t, x) and ∂f/∂x of the System (a chain pendulum has no inputs), each call booked as a
// wait for the System.
class Integrator::LinkRhs final : public RightHandSide {
 public:
  explicit LinkRhs(Integrator& owner) : owner_(owner) {}
  void derivative(double t, VectorView x, VectorOut dx) override {
    owner_.pieces_.wait_for_system([&] { owner_.link_.derivative(t, x, no_inputs_, dx); });
    owner_.clock_.count_calc();
  }
  void jacobian(double t, VectorView x, MatrixOut J) override {
    owner_.pieces_.wait_for_system([&] { owner_.link_.jacobian(t, x, no_inputs_, J); });
  }

 private:
  Integrator& owner_;
  const Vector no_inputs_;
};

Integrator::Integrator(IntegratorConfig config, ModelLink& link)
    : config_(std::move(config)),
      link_(link),
      x_(Eigen::Map<const Vector>(config_.x0.data(), static_cast<Eigen::Index>(config_.x0.size()))),
      stepper_(config_.method, config_.x0.size()),
      step_(config_.first_step) {
  if (!(config_.h > 0) || !std::isfinite(config_.h))
    throw ModelError(config_.name, "step size h must be finite and > 0");
  if (x_.size() == 0 || !x_.allFinite())
    throw ModelError(config_.name, "initial state must be non-empty and finite");
}

std::uint64_t Integrator::max_uncommitted_steps() const {
  return limits::steps_within(limits::held_bytes,
                              StateList::entry_bytes(static_cast<std::size_t>(x_.size()), 0,
                                                     config_.method == OdeMethod::ab3));
}

std::uint64_t Integrator::max_reply_steps() const {
  return limits::steps_within(limits::reply_bytes, 8 * static_cast<std::uint64_t>(x_.size()));
}

void Integrator::require(bool condition, const std::string& what) const {
  if (!condition) throw ProtocolError(config_.name, what);
}

ActivityTotals Integrator::totals() const {
  ActivityTotals t = clock_.totals();
  t.state_list_peak = list_.peak();
  t.calc_wait_s = std::chrono::duration<double>(pieces_.link_wait).count();
  return t;
}

void Integrator::BusyPieces::begin(ActivityKind kind, SpanTag request) {
  clock.count_request();
  kind_ = kind;
  request_ = request;
  step_ = ActivityTrace::untagged;
  start_ = ActivityClock::Clock::now();
}

void Integrator::BusyPieces::close_piece(ActivityClock::Clock::time_point at) {
  clock.add(kind_, start_, at, {request_.call, step_, request_.epoch});
  start_ = at;
}

void Integrator::BusyPieces::tag_step(std::uint64_t step) {
  close_piece(ActivityClock::Clock::now());
  step_ = step;
}

void Integrator::BusyPieces::end() {
  close_piece(ActivityClock::Clock::now());
}

template <typename Call>
void Integrator::BusyPieces::wait_for_system(Call&& call) {
  const auto start = ActivityClock::Clock::now();
  close_piece(start);
  call();
  start_ = ActivityClock::Clock::now();
  link_wait += start_ - start;
}

void Integrator::compute_step() {
  LinkRhs rhs(*this);
  try {
    stepper_.step(rhs, step_time(config_.t0, config_.h, step_), config_.h, x_);
  } catch (const SimulationError& e) {
    throw ModelError(config_.name, std::string(e.what()) + " (step " + std::to_string(step_ + 1) +
                                       "; step size too large for the method?)");
  }
  ++step_;
}

// Restores the state just saved before the step, steps again and compares the bits: a
// rollback that does not reproduce the trajectory exactly would break equivalence.
void Integrator::check_rollback_reproduces_step() {
  // list_.back() is what step_once() saved just before this step (after any event).
  check_restep_reproduces(config_.name, list_.back(), stepper_, x_, [&] {
    step_ = list_.back().step;
    compute_step();
  });
}

void Integrator::step_once() {
  const auto start = ActivityClock::Clock::now();
  const auto wait_before = pieces_.link_wait;
  const std::uint64_t calls_before = stepper_.derivative_calls();
  pieces_.tag_step(step_ + 1);
  list_.save({step_, x_, stepper_.memory(), {}, {}, 0});
  compute_step();
  if (config_.rollback_check) check_rollback_reproduces_step();
  pieces_.tag_step(ActivityTrace::untagged);
  StateList::Entry& from = list_.back();
  from.work = ActivityClock::Clock::now() - start - (pieces_.link_wait - wait_before);
  from.derivative_calls = stepper_.derivative_calls() - calls_before;
}

void Integrator::run_ahead_mode() {
  speculative_ = true;
  clock_.trace().set_speculative();
}

StateBatch Integrator::advance(std::uint64_t guarantee, std::uint64_t gvt, Deadline deadline) {
  RequestScope scope(
      pieces_, ActivityKind::busy,
      {speculative_ ? ActivityCall::run_ahead : ActivityCall::advance, step_ + 1, epoch_});
  // (Messages built only when needed: this is every step of a running-ahead Integrator.)
  if (gvt > step_)
    throw ProtocolError(config_.name, "gvt " + std::to_string(gvt) +
                                          " lies after the current step " + std::to_string(step_));
  if (guarantee > gvt && guarantee - gvt > max_uncommitted_steps())
    throw ProtocolError(config_.name, "guarantee " + std::to_string(guarantee) +
                                          " lies more than " +
                                          std::to_string(max_uncommitted_steps()) +
                                          " steps past gvt " + std::to_string(gvt) +
                                          " (the state list's budget for this state size; "
                                          "commit first)");
  list_.fossil_collect(gvt);
  clock_.trace().settle(gvt);
  const auto n = static_cast<std::size_t>(x_.size());
  StateBatch batch{epoch_, step_ + 1, n, {}};
  const std::uint64_t steps =
      guarantee > step_ ? std::min(guarantee - step_, max_reply_steps()) : 0;
  batch.states.reserve(steps * n);
  for (std::uint64_t k = 0; k < steps; ++k) {
    step_once();
    batch.states.insert(batch.states.end(), x_.data(), x_.data() + n);
    if (deadline != Deadline::max() && std::chrono::steady_clock::now() >= deadline) break;
  }
  return batch;
}

std::vector<double> Integrator::apply_event(const Event& event) {
  RequestScope scope(pieces_, ActivityKind::busy, {ActivityCall::apply_event, event.step, epoch_});
  require(event.step == step_, "event for step " + std::to_string(event.step) +
                                   " arrived at step " + std::to_string(step_));
  // Rollback restores the first state saved at a step (as stepping produced it); a second
  // event at the same step needs no second copy.
  if (list_.first_at(step_) == nullptr) list_.save({step_, x_, stepper_.memory(), {}, {}, 0});
  pieces_.wait_for_system([&] {
    link_.handle_event(event, {x_.data(), static_cast<std::size_t>(x_.size())});
  });
  if (!x_.allFinite())
    throw ModelError(config_.name, "event '" + event.kind + "' made the state non-finite");
  stepper_.restart();  // the state jumped: a multistep method starts afresh
  return {x_.data(), x_.data() + x_.size()};
}

RollbackResult Integrator::rollback(std::uint64_t step) {
  RequestScope scope(pieces_, ActivityKind::rollback, {ActivityCall::rollback, step, epoch_});
  require(step <= step_, "rollback to step " + std::to_string(step) + " after the current step " +
                             std::to_string(step_));
  RollbackResult result{0, step_ - step, 0};
  // The first entry saved at `step` is the state as stepping produced it, before any event.
  if (list_.first_at(step) != nullptr) {
    StateList::Rewound r = list_.rewind_to(step);
    x_ = std::move(r.entry.x);
    stepper_.restore(r.entry.memory);
    clock_.reclassify_as_rollback(r.work);
    result.wasted_derivative_calls = r.derivative_calls;
  } else {
    require(step == step_,
            "rollback to step " + std::to_string(step) + ", which is no longer in the state list");
  }
  clock_.mark_rolled_back_after(step);
  step_ = step;
  result.epoch = ++epoch_;
  return result;
}

void Integrator::commit(std::uint64_t gvt) {
  CallScope call(clock_, {ActivityCall::commit, gvt, epoch_});
  require(gvt <= step_, "commit at gvt " + std::to_string(gvt) + " after the current step " +
                            std::to_string(step_));
  list_.fossil_collect(gvt);
  clock_.trace().settle(gvt);
}

}  // namespace kausal
