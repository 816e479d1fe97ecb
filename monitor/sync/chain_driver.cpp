#include "monitor/sync/chain_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "integrator/stepper.hpp"
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

// The operator's injections at step m: pushes on the states at m (before the step from m),
// then a stop if one is due.
void inject(Injections& injections, ChainStepper& stepper, std::uint64_t m,
            std::span<PendulumState> states) {
  for (const Injection& i : injections.take(m))
    if (i.kind == InjectionKind::push) stepper.push(std::stoull(i.target) - 1, m, i.value, states);
  injections.check_stop(m);
}

// Tells the observer about a committed step: the states as one row of values (phi, omega per
// pendulum, as trajectory.csv has them), in a buffer reused from step to step.
void tell_committed(RunObserver& observer, std::uint64_t step,
                    const std::vector<PendulumState>& states, std::vector<double>& row) {
  row.clear();
  for (const PendulumState& x : states) row.insert(row.end(), x.begin(), x.end());
  observer.committed(step, row);
}

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
                      TrajectoryRecorder& recorder, RunControl& control, bool check_guarantees,
                      RunObserver* observer) {
  return drive_chain(s, method, stepper, recorder, control,
                     DriveOptions{check_guarantees, observer});
}

RunResult drive_chain(const Scenario& s, SyncMethod method, ChainStepper& stepper,
                      TrajectoryRecorder& recorder, RunControl& control,
                      const DriveOptions& options) {
  RunResult r = describe_run(s, method);
  RunObserver* observer = options.observer;
  Checkpointer* checkpoints = options.checkpoints;

  // The in-process reference runs in this thread: no separate monitor timing (two clock
  // reads per step would cost more than the step).
  ActivityClock monitor_clock;
  ActivityClock* monitor = stepper.in_monitor_thread() ? nullptr : &monitor_clock;
  const auto start = std::chrono::steady_clock::now();
  r.start_ns = monotonic_ns(start);
  const std::uint64_t first = options.from ? options.from->step : 0;
  std::vector<PendulumState> states = options.from ? options.from->states : s.initial;
  ImpactSweep sweep(s.chain);
  r.steps = first;
  r.collisions = options.from ? options.from->collisions : 0;
  stepper.set_observer(observer);
  if (observer) observer->monitor_trace(monitor ? &monitor->trace() : nullptr);
  std::vector<double> row;  // for the observer
  try {
    if (!options.from) {
      recorder.commit(0, states);
      if (checkpoints) checkpoints->committed(0, states, 0, recorder);
    }
    if (observer) tell_committed(*observer, first, states, row);
    StepClock* clock = options.clock;
    Readout* readout = options.readout;
    auto values = [&] { return std::span<const double>(states.front().data(), 2 * states.size()); };
    if (readout) readout->update(0, first, values());
    if (clock) clock->start();
    for (std::uint64_t m = first; m < s.steps; ++m) {
      if (control.stop_requested()) throw Interrupted();
      if (clock) clock->wait_release(m, control);
      if (options.injections) inject(*options.injections, stepper, m, states);
      r.collisions += step_chain(stepper, sweep, m, states, {monitor, options.check_guarantees});
      if (clock) clock->committed(m + 1);
      recorder.commit(m + 1, states);
      if (readout) readout->update(0, m + 1, values());
      if (checkpoints) checkpoints->committed(m + 1, states, r.collisions, recorder);
      if (observer) tell_committed(*observer, m + 1, states, row);
      r.steps = m + 1;
      control.progress(m + 1, s.steps);
    }
  } catch (const Error& e) {
    r.end_with(e);
  }
  // Whatever happened, the last committed step is on disk for a resume.
  if (checkpoints) checkpoints->write_final(recorder, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (observer) observer->monitor_trace(nullptr);
  stepper.set_observer(nullptr);
  recorder.flush();
  r.trajectory_sha256 = recorder.digest();
  r.counters = stepper.counters();
  if (monitor) r.components.push_back(monitor_report(monitor_clock));
  for (auto& c : stepper.reports()) {
    // Calc calls are counted where the model is evaluated: by Systems, or by the
    // sequential reference and blocks, which evaluate their models themselves.
    if (c.role == ComponentRole::system || c.role == ComponentRole::sequential ||
        c.role == ComponentRole::block)
      r.calc_calls += c.totals.calc_calls;
    r.state_list_peak = std::max(r.state_list_peak, c.totals.state_list_peak);
    r.components.push_back(std::move(c));
  }
  return r;
}

}  // namespace kausal
