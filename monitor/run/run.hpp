#pragma once
// One run, whatever the model kind, method and placement: `run(spec, platform, control)`.
// The kausal command (run, compare, --resume) and the tests assemble every run through it.
//
//   RunSpec ──► run() ──► recorder + checkpointer (observers of what commits)
//                     ──► sequential: the coupling in this thread
//                     ──► otherwise:  platform.place(components) and the coupling over its ports
//                     ──► OUT/trajectory.csv, checkpoint.json, trace.json, summary.json
//
// The model kinds differ only in their coupling (the chain's contact sweep, the partitions'
// sample routing, the event groups' guarantees or Time Warp) and its recorder; everything
// else is shared.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "monitor/core/capabilities.hpp"
#include "monitor/core/run_control.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/deploy/run_platform.hpp"
#include "monitor/record/trace_writer.hpp"
#include "monitor/run/resume.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

// A pendulum chain, from step 0 or (resumed) from its checkpoint.
struct ChainModel {
  std::shared_ptr<const Scenario> scenario;
  std::shared_ptr<const ResumedRun> resumed;  // null: a fresh run
};
// A partitioned model, from its start or (resumed) from its checkpoint.
struct PartitionedModel {
  std::shared_ptr<const PartitionedScenario> scenario;
  std::shared_ptr<const ResumedPartitionedRun> resumed;  // null: a fresh run
};
// A discrete-event model (docs/events.md).
struct EventsModel {
  std::shared_ptr<const EventScenario> scenario;
  std::shared_ptr<const ResumedEventsRun> resumed;  // null: a fresh run
};
using RunModel = std::variant<ChainModel, PartitionedModel, EventsModel>;

// The model a checkpoint continues (its scenario is the resumed run's).
RunModel resumed_model(ResumedRun resumed);
RunModel resumed_model(ResumedPartitionedRun resumed);
RunModel resumed_model(ResumedEventsRun resumed);

// Everything that decides what one run computes and where it writes.
struct RunSpec {
  RunModel model;
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;  // chains, conservative: step or lookahead; else none
  Layout layout = Layout::process;        // conservative and optimistic
  std::uint32_t blocks = 0;               // layout blocks: how many (chains)
  std::size_t batch = 32;                 // chains, optimistic: states per batch
  std::optional<std::uint64_t> window;    // optimistic; default: the model kind's own
  std::optional<double> tolerance;        // partitioned, optimistic; default: the scenario's
  std::optional<std::uint32_t> groups;    // discrete events; default: the scenario's
  bool check_guarantees = false;          // chains, conservative lookahead
  bool rollback_check = false;            // every Integrator: step, restore, step again
  Pinning pin = Pinning::cores;
  TraceOptions trace;
  std::filesystem::path out;  // made if missing; the run's files are written here
  // How often checkpoint.json is written (a chain's, a partitioned model's): about every second,
  // or at every chance (0: what tests of resuming use; Checkpointer).
  std::chrono::milliseconds checkpoint_every = std::chrono::seconds(1);
  // Recorded only (the summary, the checkpoint): the deployment file that placed the
  // components ("" when they run here) and the components' call timeout.
  std::string deployment_file;
  unsigned call_timeout_ms = 0;
  // Paced runs (docs/realtime.md): the clock that releases the steps; none by default.
  RealtimeOptions realtime;
  // A replay (kausal run --replay): a recording's injections, applied at their steps (the
  // run must be paced; InputError for one the model cannot take).
  std::vector<Injection> replayed;

  // "conservative/lookahead", "optimistic", ...
  std::string label() const { return method_label(method, guarantee); }
};

// The scenario file a model was read from.
std::string scenario_file_of(const RunModel& model);
// The row of the capability table a model is (monitor/core/capabilities.hpp).
ModelKind kind_of(const RunModel& model);
// The run as the capability table is asked about it.
RunShape shape_of(const RunSpec& spec);

// The label's directory name: "conservative-lookahead".
std::string method_dir(SyncMethod method, Guarantee guarantee);

// Runs `spec`: records it in spec.out (trajectory.csv, checkpoint.json, trace.json,
// summary.json), shows it on the platform's live view if it has one, stops when `control`
// says so. A failure, before or during the run, is the result's status, exit code and
// message, with everything committed up to then recorded; only output files that cannot be
// written, and what the model kind does not take (the capability table), are thrown
// (InputError naming the file).
RunResult run(const RunSpec& spec, RunPlatform& platform, RunControl& control);

}  // namespace kausal
