#include "monitor/sync/chain_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "integrator/stepper.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal {
namespace {

[[noreturn]] void causality_violation(const BobPair& pair, std::uint64_t step, const char* what) {
  throw SimulationError("causality violation: pendulum[" + std::to_string(pair.i + 1) + "] and [" +
                        std::to_string(pair.j + 1) + "] " + what + " at step " +
                        std::to_string(step) + ", which the monitor had guaranteed impact-free");
}

}  // namespace

std::uint64_t step_chain(ChainStepper& stepper, ImpactSweep& sweep, std::uint64_t m,
                         std::span<PendulumState> states, const StepChecks& checks) {
  stepper.step_all(m, states);
  std::optional<BusyScope> busy;
  if (checks.monitor) busy.emplace(*checks.monitor, SpanTag{ActivityCall::sweep, m + 1});
  const std::uint64_t step = m + 1;
  if (stepper.guaranteed_impact_free(step)) {
    if (checks.check_guarantees) {
      if (const auto contact = sweep.first_contact(states))
        causality_violation(*contact, step, "are in contact");
    }
    return sweep.resolve(states, step, [&](const BobPair& pair, const Impact&) {
      causality_violation(pair, step, "need an impulse");
    });
  }
  auto apply = [&](const BobPair& pair, const Impact& impact) {
    stepper.apply_impulse(pair.i, step, impact.left_impulse, states);
    stepper.apply_impulse(pair.j, step, impact.right_impulse, states);
  };
  if (const auto share = stepper.resolved_inside())
    return share->impacts + sweep.resolve_among(states, step, share->left, apply);
  return sweep.resolve(states, step, apply);
}

namespace {

// A pendulum chain under any of its steppers (sequential, the Integrators of the
// conservative and optimistic methods, blocks): one step per advance, committed at once.
class ChainCoupling final : public Coupling {
 public:
  ChainCoupling(const Scenario& s, ChainStepper& stepper, const CommitObservers& commits,
                const DriveOptions& options)
      : s_(s),
        stepper_(stepper),
        commits_(commits),
        options_(options),
        // The in-process reference runs in this thread: no separate monitor timing (two
        // clock reads per step would cost more than the step).
        monitor_(stepper.in_monitor_thread() ? nullptr : &monitor_clock_),
        sweep_(s.chain),
        step_(options.from ? options.from->step : 0),
        states_(options.from ? options.from->states : s.initial),
        collisions_(options.from ? options.from->collisions : 0) {
    stepper_.set_observer(options_.observer);
    if (options_.observer)
      options_.observer->monitor_trace(monitor_ ? &monitor_->trace() : nullptr);
  }

  std::uint64_t committed() const override { return step_; }
  std::uint64_t end() const override { return s_.steps; }
  bool computes_here() const override { return true; }

  void start(std::uint64_t) override {
    if (options_.from)
      commits_.resumed(step_, states_, collisions_);
    else
      commits_.committed(0, states_, 0);
    if (options_.observer) options_.observer->committed(step_, values_of(states_));
  }

  bool advance(std::uint64_t released) override {
    if (step_ >= released) return false;
    collisions_ +=
        step_chain(stepper_, sweep_, step_, states_, {monitor_, options_.check_guarantees});
    ++step_;
    commits_.committed(step_, states_, collisions_);
    if (options_.observer) options_.observer->committed(step_, values_of(states_));
    return true;
  }

  // A push acts on the state at its step, before the step from there.
  void apply(const Injection& i) override {
    if (i.kind != InjectionKind::push) return;
    stepper_.push(std::stoull(i.target) - 1, step_, i.value, states_);
    commits_.pushed(step_, states_);
  }

  void finish(RunResult& r) override {
    r.steps = step_;
    r.collisions = collisions_;
    // Whatever happened, the last committed step is on disk for a resume, with its digest.
    commits_.finished(r);
    if (options_.observer) options_.observer->monitor_trace(nullptr);
    stepper_.set_observer(nullptr);
    r.counters = stepper_.counters();
    if (monitor_) r.components.push_back(monitor_report(*monitor_));
    for (auto& c : stepper_.reports()) {
      // Calc calls are counted where the model is evaluated: by Systems, or by the
      // sequential reference and blocks, which evaluate their models themselves.
      if (c.role == ComponentRole::system || c.role == ComponentRole::sequential ||
          c.role == ComponentRole::block)
        r.calc_calls += c.totals.calc_calls;
      r.state_list_peak = std::max(r.state_list_peak, c.totals.state_list_peak);
      r.components.push_back(std::move(c));
    }
  }

 private:
  const Scenario& s_;
  ChainStepper& stepper_;
  const CommitObservers commits_;
  const DriveOptions& options_;
  ActivityClock monitor_clock_;
  ActivityClock* monitor_;
  ImpactSweep sweep_;
  std::uint64_t step_;
  std::vector<PendulumState> states_;
  std::uint64_t collisions_;
};

}  // namespace

RunResult describe_run(const Scenario& s, SyncMethod method) {
  RunResult r;
  r.method = method;
  r.model = s.model;
  r.scenario = s.file;
  r.integrator = std::string(ode_method_name(s.method));
  r.pendulums = s.pendulums();
  r.h = s.h;
  r.planned_steps = s.steps;
  r.geometry = s.chain.pendulums;
  return r;
}

RunResult drive_chain(const Scenario& s, SyncMethod method, ChainStepper& stepper,
                      const CommitObservers& commits, RunControl& control, bool check_guarantees,
                      RunObserver* observer) {
  return drive_chain(s, method, stepper, commits, control,
                     DriveOptions{check_guarantees, observer});
}

RunResult drive_chain(const Scenario& s, SyncMethod method, ChainStepper& stepper,
                      const CommitObservers& commits, RunControl& control,
                      const DriveOptions& options) {
  ChainCoupling coupling(s, stepper, commits, options);
  return execute(coupling, describe_run(s, method), control, {options.clock, options.injections});
}

}  // namespace kausal
