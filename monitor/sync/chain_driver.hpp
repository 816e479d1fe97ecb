#pragma once
#include <string>

#include "monitor/core/commit_observer.hpp"
#include "monitor/core/run_control.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {

struct StepChecks {
  ActivityClock* monitor = nullptr;  // gets the sweep's time as busy time, if given
  // At steps the stepper guaranteed impact-free, require that no pair is even in contact
  // (the test mode of the lookahead, docs/lookahead.md).
  bool check_guarantees = false;
};

// One step of every method: step every pendulum from m to m + 1, then sweep the impacts of
// all pairs at m + 1 (docs/model.md §2). Returns the number of impacts. An impulse due at a step
// that the stepper guaranteed impact-free is a causality violation (SimulationError).
std::uint64_t step_chain(ChainStepper& stepper, ImpactSweep& sweep, std::uint64_t m,
                         std::span<PendulumState> states, const StepChecks& checks = {});

// A result that says what was run (method, model, sizes) and nothing yet about how it went.
RunResult describe_run(const Scenario& scenario, SyncMethod method);

// Runs the scenario step by step: step every pendulum, sweep the impacts (docs/model.md §2),
// commit, telling `commits` (the recorder, the checkpointer, the readout) of every step.
// Never throws a kausal::Error: a failure ends the run with status "failed" (or
// "interrupted"), the exit code and the message in the result, and everything committed
// up to then told. An observer (the live animation) sees every committed step, the horizon
// and the rollbacks.
RunResult drive_chain(const Scenario& scenario, SyncMethod method, ChainStepper& stepper,
                      const CommitObservers& commits, RunControl& control,
                      bool check_guarantees = false, RunObserver* observer = nullptr);

struct DriveOptions {
  bool check_guarantees = false;
  RunObserver* observer = nullptr;
  // Resume at this committed step (already recorded; it is not committed again). The
  // stepper (and its components) must have been set up to start there too.
  const ChainStart* from = nullptr;
  // Paced runs: every step waits for its release, every commit is timed.
  StepClock* clock = nullptr;
  // Paced runs: pushes and a stop from the operator, applied at their steps (checked
  // already: the pendulum exists).
  Injections* injections = nullptr;
};
RunResult drive_chain(const Scenario& scenario, SyncMethod method, ChainStepper& stepper,
                      const CommitObservers& commits, RunControl& control,
                      const DriveOptions& options);

}  // namespace kausal
