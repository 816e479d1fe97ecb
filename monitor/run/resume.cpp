#include "monitor/run/resume.hpp"

#include "monitor/core/capabilities.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/sha256.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"

namespace kausal {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void no_checkpoint(const fs::path& dir) {
  throw InputError((dir / kCheckpointFile).string() +
                   ": no checkpoint, nothing to resume (a run writes one from its first committed "
                   "step on; one that failed before it has to be started again)");
}

// The value a checkpoint stores for a command-line option that must not change.
std::string stored_value(const RunSetup& s, const std::string& option) {
  if (option == "--method") return to_string(s.method);
  if (option == "--guarantee") return to_string(s.guarantee);
  if (option == "--layout") return layout_label(s.layout);
  if (option == "--batch") return std::to_string(s.batch);
  if (option == "--window") return std::to_string(s.window);
  if (option == "--check-guarantees") return s.check_guarantees ? "true" : "false";
  if (option == "--rollback-check") return s.rollback_check ? "true" : "false";
  if (option == "--tolerance") return option_value(s.tolerance);
  return "";
}

void check_command_line(const ResumeRequest& req, const Checkpoint& c) {
  for (const auto& [option, value] : req.given) {
    if (option == "--out" || option == "--force")
      throw InputError("command line: " + option +
                       " conflicts with --resume: a resumed run continues in " + req.dir.string());
    const std::string stored = stored_value(c.setup, option);
    if (value != stored)
      throw InputError("command line: " + option + " " + value + " conflicts with the run in " +
                       req.dir.string() + " (" + option + " " +
                       (stored.empty() ? "not used" : stored) +
                       "): a resume continues the run as it was started; omit the option");
  }
  if (req.scenario.empty()) return;
  if (file_sha256(req.scenario) != c.scenario_sha256)
    throw InputError(req.scenario + ": differs from the scenario the run started with (" +
                     (req.dir / kScenarioCopy).string() +
                     "); omit the scenario argument to resume");
}

// What the scenario reads besides itself (FMUs, input tables, model libraries) is what the
// run read: a changed FMU or table would continue the run with another model.
void check_files(const fs::path& dir,
                 const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [file, sha] : files) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw InputError(file + ": missing: the run read it (field files of " +
                       (dir / kCheckpointFile).string() + ")");
    if (file_sha256(file) != sha)
      throw InputError(file +
                       ": changed since the run started (its SHA-256 differs from field "
                       "files of " +
                       (dir / kCheckpointFile).string() +
                       "): a resume continues the run with the files it started with");
  }
}

void check_csv(const fs::path& dir, std::uint64_t csv_bytes) {
  const fs::path csv = dir / "trajectory.csv";
  std::error_code ec;
  const auto size = fs::file_size(csv, ec);
  if (ec) throw InputError(csv.string() + ": missing: the checkpoint continues it");
  if (size < csv_bytes)
    throw InputError(csv.string() + ": " + std::to_string(size) + " bytes, shorter than the " +
                     std::to_string(csv_bytes) + " of field csv_bytes in " +
                     (dir / kCheckpointFile).string());
}

// A hybrid model's partition at a cut: its held inputs and the events waiting for it.
void check_bridge_partition(const std::string& file, const BridgePoint::Partition& at,
                            const IntegratorConfig& config, std::size_t p) {
  const std::string field = file + ": field bridge.partitions[" + std::to_string(p) + "].";
  if (at.held.size() != config.ports.held0.size())
    throw InputError(field + "held: " + std::to_string(at.held.size()) +
                     " values, the partition has " + std::to_string(config.ports.held0.size()) +
                     " inputs that events set");
  for (const ArrivingEvent& e : at.scheduled)
    if (e.input >= config.ports.inputs.size())
      throw InputError(field + "scheduled: an event for event input " + std::to_string(e.input) +
                       ", the partition has " + std::to_string(config.ports.inputs.size()));
}

// A hybrid model's discrete side against its scenario: its components, its event outputs, its
// cut no earlier than its partitions' tick (with event outputs, at it) and within the run.
void check_bridge(const std::string& file, const BridgePoint& b, const PartitionedPoint& c,
                  const PartitionedScenario& s) {
  const std::size_t components =
      s.bridge->built->components() + s.bridge->outputs.size() + s.bridge->built->ports().size();
  const double t = step_time(s.t0(), s.tick, c.horizon);
  if (b.partitions.size() != s.partitions.size())
    throw InputError(file + ": field bridge.partitions: " + std::to_string(b.partitions.size()) +
                     ", the scenario has " + std::to_string(s.partitions.size()));
  if (b.serials.size() != s.bridge->outputs.size())
    throw InputError(file + ": field bridge.serials: " + std::to_string(b.serials.size()) +
                     ", the scenario has " + std::to_string(s.bridge->outputs.size()) +
                     " event outputs");
  if (b.cut.states.size() != components)
    throw InputError(file + ": field bridge.components: " + std::to_string(b.cut.states.size()) +
                     ", the scenario's discrete side has " + std::to_string(components));
  if (b.cut.time > s.t_end || b.cut.time < t || (!s.bridge->outputs.empty() && b.cut.time != t))
    throw InputError(file + ": field bridge.cut: t = " + std::to_string(b.cut.time) +
                     " does not fit the partitions' tick " + std::to_string(c.horizon) + " (t = " +
                     std::to_string(t) + ") within the run to t = " + std::to_string(s.t_end));
}

// The checkpoint against its scenario copy and trajectory.csv.
void check_consistency(const fs::path& dir, const ChainPoint& c, const Scenario& s) {
  const std::string file = (dir / kCheckpointFile).string();
  if (c.pendulums != s.pendulums())
    throw InputError(file + ": field pendulums: " + std::to_string(c.pendulums) +
                     ", the scenario has " + std::to_string(s.pendulums()));
  if (c.planned_steps != s.steps)
    throw InputError(file + ": field planned_steps: " + std::to_string(c.planned_steps) +
                     ", the scenario has " + std::to_string(s.steps) + " steps");
  if (c.recorder.step > s.steps)
    throw InputError(file + ": field step: " + std::to_string(c.recorder.step) +
                     " lies beyond the scenario's end (step " + std::to_string(s.steps) + ")");
  check_csv(dir, c.recorder.csv_bytes);
}

void check_consistency(const fs::path& dir, const PartitionedPoint& c,
                       const PartitionedScenario& s) {
  const std::string file = (dir / kCheckpointFile).string();
  if (s.master.has_value() != c.master.has_value())
    throw InputError(file + (s.master ? ": field master is missing: a run under the co-simulation "
                                        "master ([master]) keeps the master's state"
                                      : ": field master: the scenario has no [master] table"));
  if (s.bridge.has_value() != c.bridge.has_value())
    throw InputError(file + (s.bridge ? ": field bridge is missing: a hybrid model's run keeps "
                                        "its discrete side"
                                      : ": field bridge: the scenario has no discrete side"));
  if (c.bridge) check_bridge(file, *c.bridge, c, s);
  if (c.partitions.size() != s.partitions.size())
    throw InputError(file + ": field partitions: " + std::to_string(c.partitions.size()) +
                     ", the scenario has " + std::to_string(s.partitions.size()));
  if (c.planned_ticks != s.ticks)
    throw InputError(file + ": field planned_steps: " + std::to_string(c.planned_ticks) +
                     ", the scenario has " + std::to_string(s.ticks) + " ticks");
  const PartitionedPlan plan = plan_partitions(s, {});
  std::uint64_t horizon = s.ticks;
  for (std::size_t p = 0; p < c.partitions.size(); ++p) {
    const std::string field = file + ": field partitions[" + std::to_string(p) + "].";
    const PartitionPoint& at = c.partitions[p];
    const IntegratorConfig& config = plan.configs[p];
    const auto states = static_cast<std::uint64_t>(config.x0.size());
    const std::uint64_t recorded = c.recorder.recorded[p];
    if (recorded > config.last_step + 1)
      throw InputError(field + "recorded: " + std::to_string(recorded) +
                       " steps, the partition has " + std::to_string(config.last_step + 1));
    if (at.x.size() != states)
      throw InputError(field + "x: " + std::to_string(at.x.size()) + " values, the partition has " +
                       std::to_string(states) + " states");
    if (at.inputs.size() > config.channels.size())
      throw InputError(field + "inputs: more than the partition's " +
                       std::to_string(config.channels.size()) + " channels");
    if (c.recorder.digests[p].length != recorded * states * sizeof(double))
      throw InputError(field + "sha256_midstate.length: does not match " +
                       std::to_string(recorded) + " recorded steps");
    horizon = std::min(horizon, (recorded - 1) * config.ticks_per_step);
    // Under the master every partition resumes at the end of the same macro step, in a hybrid
    // model at the same cut.
    if ((c.master || c.bridge) && (recorded - 1) * config.ticks_per_step != c.horizon)
      throw InputError(field + "recorded: the partition is not at the " +
                       (c.master ? "master's" : "cut's") + " tick " + std::to_string(c.horizon));
    if (c.bridge) check_bridge_partition(file, c.bridge->partitions.at(p), config, p);
  }
  if (c.horizon != horizon)
    throw InputError(file + ": field step: " + std::to_string(c.horizon) +
                     ", the partitions have recorded up to tick " + std::to_string(horizon));
  check_csv(dir, c.recorder.csv_bytes);
}

// Copies the scenario to DIR/scenario.toml and removes a checkpoint an earlier run left.
Checkpoint fresh(const fs::path& scenario, const RunSetup& setup, const fs::path& dir) {
  const fs::path copy = dir / kScenarioCopy;
  try {
    fs::remove(dir / kCheckpointFile);
    if (!(fs::exists(copy) && fs::equivalent(scenario, copy)))
      fs::copy_file(scenario, copy, fs::copy_options::overwrite_existing);
  } catch (const fs::filesystem_error& e) {
    throw InputError(copy.string() + ": cannot keep the scenario for a resume: " + e.what());
  }
  Checkpoint c;
  c.setup = setup;
  c.scenario_sha256 = file_sha256(copy);
  return c;
}

}  // namespace

std::string option_value(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

Checkpoint read_resumable(const ResumeRequest& req) {
  if (!fs::is_directory(req.dir))
    throw InputError(req.dir.string() + ": no such run directory to resume");
  if (!fs::exists(req.dir / kCheckpointFile)) no_checkpoint(req.dir);
  Checkpoint c = read_checkpoint(req.dir);
  check_command_line(req, c);
  const fs::path copy = req.dir / kScenarioCopy;
  if (!fs::exists(copy)) throw InputError(copy.string() + ": missing: the run's scenario copy");
  if (file_sha256(copy) != c.scenario_sha256)
    throw InputError(copy.string() + ": changed since the run started (its SHA-256 differs " +
                     "from field scenario_sha256 in " + (req.dir / kCheckpointFile).string() + ")");
  const bool events = is_event_scenario(copy);
  if (events != c.events() || (!events && is_partitioned_scenario(copy) != c.partitioned()))
    throw InputError((req.dir / kCheckpointFile).string() + ": field model: " +
                     (c.events()        ? "events"
                      : c.partitioned() ? "partitioned"
                                        : "chain") +
                     ", but " + copy.string() + " is not such a scenario");
  return c;
}

ResumedRun prepare_resume(const ResumeRequest& req, Checkpoint checkpoint) {
  ResumedRun r;
  r.checkpoint = std::move(checkpoint);
  const ChainPoint& c = r.checkpoint.chain();
  const fs::path copy = req.dir / kScenarioCopy;
  r.scenario = load_scenario(copy, req.limits);
  r.scenario.file = r.checkpoint.setup.scenario;  // as the run named it (summary.json, messages)
  check_consistency(req.dir, c, r.scenario);
  r.start = {c.recorder.step, c.states, c.collisions};
  return r;
}

ResumedPartitionedRun prepare_partitioned_resume(const ResumeRequest& req, Checkpoint checkpoint) {
  ResumedPartitionedRun r;
  r.checkpoint = std::move(checkpoint);
  r.scenario = load_partitioned_scenario(
      req.dir / kScenarioCopy, req.limits,
      r.checkpoint.setup.scenario_dir.empty()
          ? std::filesystem::path(r.checkpoint.setup.scenario).parent_path()
          : std::filesystem::path(r.checkpoint.setup.scenario_dir));
  r.scenario.file = r.checkpoint.setup.scenario;
  check_files(req.dir, r.checkpoint.setup.files);
  choose_integrators(r.scenario);
  check_consistency(req.dir, r.checkpoint.partitions(), r.scenario);
  return r;
}

ResumedEventsRun prepare_events_resume(const ResumeRequest& req, Checkpoint checkpoint) {
  ResumedEventsRun r;
  r.checkpoint = std::move(checkpoint);
  r.scenario = load_event_scenario(req.dir / kScenarioCopy);
  r.scenario.file = r.checkpoint.setup.scenario;
  const std::string file = (req.dir / kCheckpointFile).string();
  const EventPoint& c = r.checkpoint.event_point();
  const des::EventModel& model = *r.scenario.built;
  if (c.end != r.scenario.end)
    throw InputError(file + ": field end: " + std::to_string(c.end) + ", the scenario ends at " +
                     std::to_string(r.scenario.end));
  const auto& states = c.at.cut.states;
  if (states.size() != model.components())
    throw InputError(file + ": field components: " + std::to_string(states.size()) +
                     ", the model has " + std::to_string(model.components()));
  for (des::ComponentId k = 0; k < states.size(); ++k)
    if (states[k].values.size() != model.initial_state(k).values.size())
      throw InputError(file + ": field components[" + std::to_string(k) +
                       "].values: " + std::to_string(states[k].values.size()) + " values, " +
                       model.component_name(k) + " has " +
                       std::to_string(model.initial_state(k).values.size()));
  return r;
}

void ResumedPartitionedRun::apply_to(PartitionedPlan& plan) const {
  const PartitionedPoint& c = checkpoint.partitions();
  for (std::size_t p = 0; p < plan.configs.size(); ++p) {
    IntegratorConfig& config = plan.configs[p];
    const PartitionPoint& at = c.partitions[p];
    if (!plan.unrestorable[p].empty())
      throw InputError("cannot resume: " + plan.unrestorable[p] +
                       ", so the run cannot continue from a checkpoint");
    config.first_step = c.recorder.recorded[p] - 1;
    config.x0 = vector_of(at.x);
    config.memory0 = at.memory;
    config.indicators0 = vector_of(at.indicators);
    config.internal0 = at.internal;
    config.input_history = at.inputs;
    config.publish_first_state = false;
    if (c.bridge) config.ports.held0 = c.bridge->partitions[p].held;
  }
}

Checkpoint fresh_checkpoint(const Scenario& s, const RunSetup& setup, const fs::path& dir) {
  Checkpoint c = fresh(s.file, setup, dir);
  ChainPoint point;
  point.pendulums = s.pendulums();
  point.planned_steps = s.steps;
  point.h = s.h;
  c.point = point;
  return c;
}

Checkpoint fresh_checkpoint(const PartitionedScenario& s, const RunSetup& setup,
                            const fs::path& dir) {
  Checkpoint c = fresh(s.file, setup, dir);
  PartitionedPoint point;
  point.planned_ticks = s.ticks;
  point.tick = s.tick;
  c.point = point;
  return c;
}

Checkpoint fresh_checkpoint(const EventScenario& s, const RunSetup& setup, const fs::path& dir) {
  Checkpoint c = fresh(s.file, setup, dir);
  EventPoint point;
  point.end = s.end;
  c.point = point;
  return c;
}

Checkpoint resumed_checkpoint(const ResumedEventsRun& run) {
  Checkpoint c = run.checkpoint;
  c.resumed_from.push_back(c.step());
  return c;
}

Checkpoint resumed_checkpoint(const ResumedRun& run) {
  Checkpoint c = run.checkpoint;
  c.chain().h = run.scenario.h;
  c.resumed_from.push_back(run.start.step);
  return c;
}

Checkpoint resumed_checkpoint(const ResumedPartitionedRun& run) {
  Checkpoint c = run.checkpoint;
  c.partitions().tick = run.scenario.tick;
  c.resumed_from.push_back(c.step());
  return c;
}

std::unique_ptr<TrajectoryRecorder> open_recorder(const Scenario& s, const fs::path& dir,
                                                  const ResumedRun* resumed) {
  const fs::path csv = dir / "trajectory.csv";
  if (!resumed)
    return std::make_unique<TrajectoryRecorder>(csv, s.pendulums(), s.output_every, s.steps, s.t0(),
                                                s.h);
  return std::make_unique<TrajectoryRecorder>(csv, resumed->checkpoint.chain().recorder,
                                              s.output_every, s.steps, s.t0(), s.h);
}

void keep_previous_attempt(const fs::path& dir) {
  fs::path keep;
  for (int k = 1; keep.empty() || fs::exists(keep); ++k)
    keep = dir / "attempts" / std::to_string(k);
  try {
    bool any = false;
    for (const char* name : {"summary.json", "trace.json", "logs"}) {
      if (!fs::exists(dir / name)) continue;
      if (!any) fs::create_directories(keep);
      any = true;
      fs::rename(dir / name, keep / name);
    }
  } catch (const fs::filesystem_error& e) {
    throw InputError(keep.string() + ": cannot keep the previous attempt: " + e.what());
  }
}

}  // namespace kausal
