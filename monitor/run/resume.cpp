#include "monitor/run/resume.hpp"

#include <nlohmann/json.hpp>

#include "monitor/scenario/cosim_scenario.hpp"
#include "monitor/scenario/input_file.hpp"
#include "system/errors.hpp"

namespace kausal {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPartitioned =
    "resume is for pendulum-chain runs; partitioned models are not supported (their "
    "partitions carry multistep history and held inputs between steps, which no checkpoint "
    "keeps)";

// A directory without a checkpoint: say why, when we can tell.
[[noreturn]] void no_checkpoint(const fs::path& dir) {
  const fs::path summary = dir / "summary.json";
  bool partitioned = false;
  try {
    const auto j = read_input_json(summary, "run summary");
    partitioned = j.is_object() && j.value("model", "") == "partitioned";
  } catch (const std::exception&) {
    // missing or unreadable: the plain message below says enough
  }
  if (partitioned) throw InputError(summary.string() + ": " + kPartitioned);
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
  return "";
}

void check_command_line(const ResumeRequest& req, const Checkpoint& c) {
  for (const auto& [option, value] : req.given) {
    if (option == "--out" || option == "--force")
      throw InputError("command line: " + option +
                       " conflicts with --resume: a resumed run continues in " + req.dir.string());
    if (option == "--tolerance") throw InputError(std::string("command line: ") + kPartitioned);
    const std::string stored = stored_value(c.setup, option);
    if (value != stored)
      throw InputError("command line: " + option + " " + value + " conflicts with the run in " +
                       req.dir.string() + " (" + option + " " +
                       (stored.empty() ? "not used" : stored) +
                       "): a resume continues the run as it was started; omit the option");
  }
  if (req.scenario.empty()) return;
  if (is_partitioned_scenario(req.scenario)) throw InputError(req.scenario + ": " + kPartitioned);
  if (file_sha256(req.scenario) != c.scenario_sha256)
    throw InputError(req.scenario + ": differs from the scenario the run started with (" +
                     (req.dir / kScenarioCopy).string() +
                     "); omit the scenario argument to resume");
}

// The checkpoint against its scenario copy and trajectory.csv.
void check_consistency(const fs::path& dir, const Checkpoint& c, const Scenario& s) {
  const std::string file = (dir / kCheckpointFile).string();
  if (c.pendulums != s.pendulums())
    throw InputError(file + ": field pendulums: " + std::to_string(c.pendulums) +
                     ", the scenario has " + std::to_string(s.pendulums()));
  if (c.planned_steps != s.steps)
    throw InputError(file + ": field planned_steps: " + std::to_string(c.planned_steps) +
                     ", the scenario has " + std::to_string(s.steps) + " steps");
  if (c.step() > s.steps)
    throw InputError(file + ": field step: " + std::to_string(c.step()) +
                     " lies beyond the scenario's end (step " + std::to_string(s.steps) + ")");
  const fs::path csv = dir / "trajectory.csv";
  std::error_code ec;
  const auto size = fs::file_size(csv, ec);
  if (ec) throw InputError(csv.string() + ": missing: the checkpoint continues it");
  if (size < c.recorder.csv_bytes)
    throw InputError(csv.string() + ": " + std::to_string(size) + " bytes, shorter than the " +
                     std::to_string(c.recorder.csv_bytes) + " of field csv_bytes in " + file);
}

}  // namespace

ResumedRun prepare_resume(const ResumeRequest& req) {
  if (!fs::is_directory(req.dir))
    throw InputError(req.dir.string() + ": no such run directory to resume");
  if (!fs::exists(req.dir / kCheckpointFile)) no_checkpoint(req.dir);
  ResumedRun r;
  r.checkpoint = read_checkpoint(req.dir);
  const Checkpoint& c = r.checkpoint;
  check_command_line(req, c);
  const fs::path copy = req.dir / kScenarioCopy;
  if (!fs::exists(copy)) throw InputError(copy.string() + ": missing: the run's scenario copy");
  if (file_sha256(copy) != c.scenario_sha256)
    throw InputError(copy.string() + ": changed since the run started (its SHA-256 differs " +
                     "from field scenario_sha256 in " + (req.dir / kCheckpointFile).string() + ")");
  if (is_partitioned_scenario(copy)) throw InputError(copy.string() + ": " + kPartitioned);
  r.scenario = load_scenario(copy, req.limits);
  r.scenario.file = c.setup.scenario;  // as the run named it (summary.json, messages)
  check_consistency(req.dir, c, r.scenario);
  r.start = {c.step(), c.states, c.collisions};
  return r;
}

Checkpoint fresh_checkpoint(const Scenario& s, const RunSetup& setup, const fs::path& dir) {
  const fs::path copy = dir / kScenarioCopy;
  try {
    fs::remove(dir / kCheckpointFile);
    if (!(fs::exists(copy) && fs::equivalent(s.file, copy)))
      fs::copy_file(s.file, copy, fs::copy_options::overwrite_existing);
  } catch (const fs::filesystem_error& e) {
    throw InputError(copy.string() + ": cannot keep the scenario for a resume: " + e.what());
  }
  Checkpoint c;
  c.setup = setup;
  c.scenario_sha256 = file_sha256(copy);
  c.pendulums = s.pendulums();
  c.planned_steps = s.steps;
  c.h = s.h;
  return c;
}

Checkpoint resumed_checkpoint(const ResumedRun& run) {
  Checkpoint c = run.checkpoint;
  c.h = run.scenario.h;
  c.resumed_from.push_back(run.start.step);
  return c;
}

std::unique_ptr<TrajectoryRecorder> open_recorder(const Scenario& s, const fs::path& dir,
                                                  const ResumedRun* resumed) {
  const fs::path csv = dir / "trajectory.csv";
  if (!resumed)
    return std::make_unique<TrajectoryRecorder>(csv, s.pendulums(), s.output_every, s.steps, s.t0(),
                                                s.h);
  return std::make_unique<TrajectoryRecorder>(csv, resumed->checkpoint.recorder, s.output_every,
                                              s.steps, s.t0(), s.h);
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
