#pragma once
// The one loop every run goes through, whatever its model kind and method (docs/architecture.md,
// "One loop"): it starts the coupling, advances it until its end, and owns what is the same for
// all of them —
//  - a stop (Ctrl-C, a test's cut, the operator's stop at its step) and the progress report;
//  - pacing: a paced run's clock (the wall clock or an external one) releases the steps one
//    by one; a coupling that computes here advances once per release, one whose components
//    run by themselves gets every release from a pacing thread while the loop collects;
//  - the operator's injections (and a replay's, a resume's carried ones), applied at their
//    step boundaries as the releases reach them;
//  - timing and the failure path: a kausal::Error ends the run with its status, exit code
//    and message, and the coupling still finishes (its last checkpoint, its digest).
#include "monitor/core/run_control.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/sync/coupling.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

// A paced run's clock and injections (both null: unpaced). The injections need the clock.
struct Pacing {
  StepClock* clock = nullptr;
  Injections* injections = nullptr;
};

// Runs the coupling to its end (or a failure, or a stop) and returns `described` with how it
// went. Never throws a kausal::Error.
RunResult execute(Coupling& coupling, RunResult described, RunControl& control,
                  const Pacing& pacing = {});

}  // namespace kausal
