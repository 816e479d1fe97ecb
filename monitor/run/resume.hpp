#pragma once
// `kausal run --resume DIR` (docs/scenarios.md, "Resuming a run"): continue a failed or
// interrupted run (a pendulum chain, a partitioned model or discrete-event components) from
// DIR/checkpoint.json, appending to its trajectory.csv (the first two) and continuing its
// digest, so that it ends with the digest of an uninterrupted run.
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "monitor/record/checkpoint.hpp"
#include "monitor/record/trajectory_recorder.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/partitioned_plan.hpp"

namespace kausal {

// What the command line gave besides --resume, as far as it could change what is computed.
struct ResumeRequest {
  std::filesystem::path dir;
  std::string scenario;  // the positional argument, "" if not given
  // Options given, by name ("--method"), with the value as a checkpoint stores it
  // ("optimistic", "64", "true"). Each must equal the checkpoint's: a resume continues the
  // run as it was started. Options about where and how processes talk are not listed here.
  std::map<std::string, std::string> given;
  ScenarioLimits limits{};  // --max-output: what the rest of the run may write
};

// A pendulum chain to continue.
struct ResumedRun {
  Checkpoint checkpoint;
  Scenario scenario;  // DIR/scenario.toml, named as the run named it
  ChainStart start;   // the last committed step and its states

  bool complete() const { return start.step >= scenario.steps; }
};

// A partitioned model to continue.
struct ResumedPartitionedRun {
  Checkpoint checkpoint;
  PartitionedScenario scenario;  // DIR/scenario.toml, named as the run named it

  bool complete() const { return checkpoint.step() >= scenario.ticks; }
  // Every partition starts at its last recorded step, with its memory, indicators and input
  // samples; its state there is not published again.
  void apply_to(PartitionedPlan& plan) const;
};

// A discrete-event model to continue from its last cut.
struct ResumedEventsRun {
  Checkpoint checkpoint;
  EventScenario scenario;  // DIR/scenario.toml, named as the run named it

  bool complete() const { return checkpoint.event_point().at.cut.time >= scenario.end; }
};

// A double option as the checkpoint compares it ("--tolerance"): the shortest exact form.
std::string option_value(double v);

// Reads DIR's checkpoint and checks it against the command line and the scenario copy; then
// (prepare_*) against the scenario and trajectory.csv. Everything wrong is an InputError
// (exit 2) naming the file and field or option. checkpoint.partitioned() says which to call.
Checkpoint read_resumable(const ResumeRequest& request);
ResumedRun prepare_resume(const ResumeRequest& request, Checkpoint checkpoint);
ResumedPartitionedRun prepare_partitioned_resume(const ResumeRequest& request,
                                                 Checkpoint checkpoint);
ResumedEventsRun prepare_events_resume(const ResumeRequest& request, Checkpoint checkpoint);
inline ResumedRun prepare_resume(const ResumeRequest& request) {
  return prepare_resume(request, read_resumable(request));
}
inline ResumedPartitionedRun prepare_partitioned_resume(const ResumeRequest& request) {
  return prepare_partitioned_resume(request, read_resumable(request));
}

// The checkpoint a fresh run starts keeping: copies its scenario file to DIR/scenario.toml
// and removes a checkpoint an earlier run left in DIR (it no longer describes DIR).
Checkpoint fresh_checkpoint(const Scenario& scenario, const RunSetup& setup,
                            const std::filesystem::path& dir);
Checkpoint fresh_checkpoint(const PartitionedScenario& scenario, const RunSetup& setup,
                            const std::filesystem::path& dir);
Checkpoint fresh_checkpoint(const EventScenario& scenario, const RunSetup& setup,
                            const std::filesystem::path& dir);
// The checkpoint a resumed run keeps: the stored one, resumed once more from its step.
Checkpoint resumed_checkpoint(const ResumedRun& run);
Checkpoint resumed_checkpoint(const ResumedPartitionedRun& run);
Checkpoint resumed_checkpoint(const ResumedEventsRun& run);

// The recorder of a run: a new trajectory.csv, or for a resumed run the stored one cut to
// the checkpoint and continued.
std::unique_ptr<TrajectoryRecorder> open_recorder(const Scenario& scenario,
                                                  const std::filesystem::path& dir,
                                                  const ResumedRun* resumed);

// Keeps what the previous attempt wrote about itself (summary.json, trace.json, logs/) in
// DIR/attempts/K/ (K = 1, 2, ...) before a resume overwrites it; trajectory.csv stays.
void keep_previous_attempt(const std::filesystem::path& dir);

}  // namespace kausal
