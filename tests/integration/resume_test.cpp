// kausal run --resume with real processes: a run whose component is killed (exit 3) or that
// is interrupted (exit 130) is continued from its checkpoint to the digest and the very
// trajectory.csv of an uninterrupted sequential run; what cannot be resumed exits 2.
#include <gtest/gtest.h>

#include <regex>

#include "kausal_process.hpp"
#include "monitor/record/checkpoint.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

// A run that is to be caught mid-way is driven by an external clock (--external-clock) that
// the test ticks (Ticker): released at the pace of a kPacedSeconds run, but only up to three
// quarters of what it has left, so it cannot end before it is struck however fast or loaded
// the host; the strike comes once it has committed enough (trajectory.csv, checkpoint.json).
// The resumed run goes unpaced (pacing is how the run is driven, not what it computes: a
// resume may change it). So the scenarios can be short: what a resume computes is the rest
// of the run, in component processes (about 150 µs of CPU per pendulum-step).
constexpr double kPacedSeconds = 3;
constexpr const char* kDuration = "duration = 5.0";

// Two masses, mass1 with AB3: its multistep memory and the samples its hold polynomial
// reaches back to must survive the resume.
const std::map<std::string, std::string> kTwoMassAb3 = {{"\"rk4\"", "\"ab3\""}};

struct ResumeRun {
  TempDir dir;
  fs::path scenario = scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", kDuration}});
  fs::path out = dir / "out";

  ResumeRun() = default;
  ResumeRun(const std::string& shipped, const std::map<std::string, std::string>& edits)
      : scenario(scenario_variant(shipped, dir.path(), edits)) {}

  std::unique_ptr<KausalProcess> start(const std::string& method,
                                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run",  scenario.string(), "--method",
                                     method, "--out",           out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<KausalProcess>(args, dir.path());
  }
  std::unique_ptr<KausalProcess> resume(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "--resume", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<KausalProcess>(args, dir.path());
  }
  // Waits until trajectory.csv has grown past `bytes` (the run is committing steps).
  void wait_for_csv_beyond(std::uintmax_t bytes) const {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      std::error_code ec;
      if (fs::file_size(out / "trajectory.csv", ec) > bytes && !ec) return;
      std::this_thread::sleep_for(20ms);
    }
    FAIL() << "the run did not commit steps";
  }
  nlohmann::json checkpoint() const { return read_json(out / "checkpoint.json"); }
};

// Ticks a run started with --external-clock from a `kausal tick` process: one tick every
// kPacedSeconds / (the run's ticks), up to three quarters of the ticks it has left. The run
// waits for ticks once they are spent, so a strike always finds it mid-way.
class Ticker {
 public:
  explicit Ticker(const ResumeRun& run) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!fs::exists(run.out / "clock.ior") && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    // One tick first, for the clock's figures: "the run's clock: T ticks, ... of N committed".
    KausalProcess first({"tick", run.out.string(), "--count", "1"}, run.dir.path());
    EXPECT_EQ(first.wait(30s).value_or(-1), 0) << first.err();
    std::smatch m;
    const std::string said = first.out();
    if (!std::regex_search(said, m, std::regex(R"(clock: (\d+) ticks, .* of (\d+) committed)"))) {
      ADD_FAILURE() << "kausal tick said: " << said;
      return;
    }
    const std::uint64_t ticks = std::stoull(m[1]), last = std::stoull(m[2]);
    const std::uint64_t count = std::max<std::uint64_t>(1, (last - ticks) * 3 / 4);
    rest_ = std::make_unique<KausalProcess>(
        std::vector<std::string>{"tick", run.out.string(), "--count", std::to_string(count),
                                 "--period", std::to_string(kPacedSeconds / double(last))},
        run.dir.path());
  }

 private:
  std::unique_ptr<KausalProcess> rest_;  // killed by its destructor if still ticking
};

// The uninterrupted reference: a sequential run of the same scenario.
struct Reference {
  TempDir dir;
  std::string digest;
  std::string csv;
  double end_s = 0;  // the simulated time the run covers
  explicit Reference(const fs::path& scenario) {
    const fs::path out = dir / "ref";
    std::string err;
    EXPECT_EQ(run_kausal({"run", scenario.string(), "--out", out.string()}, dir.path(), &err), 0)
        << err;
    const auto summary = read_json(out / "summary.json");
    digest = summary["trajectory_sha256"];
    end_s = summary["planned_steps"].get<double>() * summary["h"].get<double>();
    csv = read_file(out / "trajectory.csv");
  }
  // trajectory.csv's size once a twentieth of the run is committed.
  std::uintmax_t twentieth() const { return csv.size() / 20; }
};

// The run ended with `code` mid-way and left a checkpoint of a step it had committed.
void expect_stopped_mid_run(KausalProcess& p, int code, const ResumeRun& run) {
  const auto exit = p.wait(15s);
  ASSERT_TRUE(exit) << "the run did not end";
  ASSERT_EQ(*exit, code) << p.err();
  const auto c = run.checkpoint();
  const auto summary = read_json(run.out / "summary.json");
  EXPECT_EQ(c["step"], summary["steps"]) << "the final checkpoint is the last committed step";
  EXPECT_GT(c["step"].get<std::uint64_t>(), 0u);
  EXPECT_LT(c["step"].get<std::uint64_t>(), c["planned_steps"].get<std::uint64_t>());
}

// Resumes to the end and compares with the reference; returns the summary.
nlohmann::json expect_resume_completes(ResumeRun& run, const Reference& ref,
                                       std::vector<std::string> extra = {}) {
  const auto step = run.checkpoint()["step"].get<std::uint64_t>();
  auto p = run.resume(std::move(extra));
  const auto code = p->wait(60s);
  EXPECT_TRUE(code);
  EXPECT_EQ(code.value_or(-1), 0) << p->err();
  const auto summary = read_json(run.out / "summary.json");
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["resumed_from_step"], step);
  EXPECT_EQ(summary["trajectory_sha256"], ref.digest);
  EXPECT_TRUE(read_file(run.out / "trajectory.csv") == ref.csv)
      << "trajectory.csv differs from the uninterrupted run's";
  EXPECT_EQ(run.checkpoint()["step"], run.checkpoint()["planned_steps"]);
  return summary;
}

void kill_resume_and_compare(const std::string& method, const std::string& victim,
                             ResumeRun run = {}, std::vector<std::string> extra = {}) {
  const Reference ref(run.scenario);
  extra.push_back("--external-clock");
  auto p = run.start(method, std::move(extra));
  const Ticker ticker(run);
  run.wait_for_csv_beyond(ref.twentieth());
  const auto pid = p->component_pid(victim);
  ASSERT_TRUE(pid) << victim << " not found";
  ASSERT_EQ(kill(*pid, SIGKILL), 0);
  expect_stopped_mid_run(*p, 3, run);
  // Where and how to talk may change on resume.
  const auto summary =
      expect_resume_completes(run, ref, {"--pin", "none", "--call-timeout", "5000"});
  EXPECT_EQ(summary["method"], method);
  EXPECT_EQ(summary["resumes"], 1);
  // The failed attempt's own report is kept.
  EXPECT_EQ(read_json(run.out / "attempts" / "1" / "summary.json")["status"], "failed");
}

TEST(Resume, PartitionedConservativeRunWithAKilledIntegratorResumesToTheSequentialDigest) {
  kill_resume_and_compare("conservative", "integrator-mass1", {"two-mass.toml", kTwoMassAb3});
}

TEST(Resume, PartitionedOptimisticRunWithAKilledSystemResumesToTheSequentialDigest) {
  kill_resume_and_compare("optimistic", "system-mass2", {"two-mass.toml", kTwoMassAb3});
}

// The co-simulation FMU's System dies; the resumed run restores both FMUs from the state
// bytes the checkpoint holds (an FMU started afresh would integrate from zero again).
TEST(Resume, PartitionedOptimisticRunWithAKilledFmuSystemResumesFromTheFmuStates) {
  kill_resume_and_compare("optimistic", "system-sum", {"fmu-coupled.toml", {}});
}

// A sequential run with FMUs, interrupted (ticked, so that it is caught mid-way): its
// resume once failed with "used before configure()", the FMU's saved state handed to a
// System not configured yet. The ball also as an FMI 3.0 FMU (fmi3GetFMUState and
// fmi3SerializeFMUState carry its state across).
TEST(Resume, InterruptedSequentialRunsWithFmusResumeToTheUninterruptedDigest) {
  const std::map<std::string, std::string> fmi3 = {{"bouncing_ball.fmu", "bouncing_ball_3.fmu"}};
  for (const auto& [shipped, edits] :
       std::vector<std::pair<const char*, std::map<std::string, std::string>>>{
           {"fmu-bouncing-ball.toml", {}},
           {"fmu-coupled.toml", {}},
           {"fmu-sampled-loop.toml", {}},
           {"fmu-bouncing-ball.toml", fmi3},
           // A co-simulation FMU that takes its inputs over the step (intermediate update):
           // the resumed steps get the derivatives of the channel's samples restored.
           {"fmu-coupled.toml",
            {{"/integrator.fmu", "/integrator_smooth_3.fmu"}, {"hold = 0", "hold = 2"}}}}) {
    SCOPED_TRACE(std::string(shipped) + (edits.empty() ? "" : ", edited"));
    ResumeRun run(shipped, edits);
    for (const auto& edit : edits)
      ASSERT_NE(read_file(run.scenario).find(edit.second), std::string::npos) << edit.second;
    const Reference ref(run.scenario);
    auto p = run.start("sequential", {"--external-clock"});
    const Ticker ticker(run);
    run.wait_for_csv_beyond(200);
    ASSERT_EQ(kill(p->pid(), SIGINT), 0);
    expect_stopped_mid_run(*p, 130, run);
    expect_resume_completes(run, ref);
  }
}

// Under the co-simulation master a checkpoint is taken where a macro step was accepted: every
// partition there and the master's own state (its output histories, the predictions last
// given, the next step's size), so that the resumed run takes the uninterrupted run's macro
// steps: killed in processes, or interrupted in this one.
TEST(Resume, MasterRunWithAKilledIntegratorResumesToTheSequentialDigest) {
  kill_resume_and_compare("conservative", "integrator-mass1", {"two-mass-master.toml", {}});
}

// A hybrid model is checkpointed at cuts (docs/events.md, "Checkpoints of hybrid models"):
// killed in processes once it has written a cut past its first, its checkpoint is that cut
// or a later one, at or before what it committed, and the resumed run ends with the uninterrupted
// run's digest, trajectory.csv and bridge.csv (the level switch's crossings and commands).
TEST(Resume, HybridRunWithAKilledIntegratorResumesFromItsLastCut) {
  ResumeRun run("two-tanks-level-switch.toml", {});
  const Reference ref(run.scenario);
  auto p = run.start("conservative", {"--layout", "process", "--external-clock"});
  const Ticker ticker(run);
  // The checkpointer asks for a cut at once, then about every second: wait for the second.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(fs::exists(run.out / "checkpoint.json") && run.checkpoint()["step"] > 2))
    std::this_thread::sleep_for(20ms);
  const auto pid = p->component_pid("integrator-upper");
  ASSERT_TRUE(pid) << p->err();
  ASSERT_EQ(kill(*pid, SIGKILL), 0);
  const auto exit = p->wait(15s);
  ASSERT_TRUE(exit) << "the run did not end";
  ASSERT_EQ(*exit, 3) << p->err();
  const auto c = run.checkpoint();
  const auto step = c["step"].get<std::uint64_t>();
  EXPECT_GT(step, 2u) << "only the first cut was kept";
  EXPECT_LE(step, read_json(run.out / "summary.json")["steps"].get<std::uint64_t>());
  EXPECT_TRUE(c.contains("bridge"));
  expect_resume_completes(run, ref, {"--pin", "none"});
  EXPECT_TRUE(read_file(run.out / "bridge.csv") == read_file(ref.dir / "ref" / "bridge.csv"))
      << "bridge.csv differs from the uninterrupted run's";
}

TEST(Resume, InterruptedSequentialMasterRunResumesToTheUninterruptedDigest) {
  ResumeRun run("two-mass-master.toml", {});
  const Reference ref(run.scenario);
  auto p = run.start("sequential", {"--external-clock"});
  const Ticker ticker(run);
  run.wait_for_csv_beyond(200);
  ASSERT_EQ(kill(p->pid(), SIGINT), 0);
  expect_stopped_mid_run(*p, 130, run);
  EXPECT_TRUE(run.checkpoint().contains("master"));
  expect_resume_completes(run, ref);
}

// A scenario named relative to where kausal ran, with an input table named relative to it:
// the resume, from another directory, finds the table where the run did (checkpoint.json
// scenario_dir); it once looked beside the run's copy of the scenario.
TEST(Resume, ARunStartedByARelativePathResumesFromAnotherDirectory) {
  ResumeRun run;
  run.dir.write("inflow.csv", "time,inflow\n0,0\n1,2\n2,0\n3,1\n");
  run.dir.write("tank.toml",
                "[run]\nt_end = 3.0\noutput_interval = 0.125\n[[subsystem]]\nname = \"tank\"\n"
                "model = \"water_tank\"\nparameters = { area = 2.0, orifice = 0.5 }\n"
                "input_table = \"inflow.csv\"\nintegrator = \"rk4\"\nh = 0.125\n");
  const Reference ref(run.dir / "tank.toml");
  // kausal started in `cwd` (sh changes to it and execs kausal: pid() is kausal).
  const auto in_dir = [&](const fs::path& cwd, std::vector<std::string> args) {
    args.insert(args.begin(), {"sh", "-c", "cd \"$0\" && exec \"$@\"", cwd.string(),
                               std::string(KAUSAL_BIN_DIR) + "/kausal"});
    static int started = 0;
    return std::make_unique<LabProcess>(args, run.dir.path(),
                                        "in-dir-" + std::to_string(++started));
  };
  auto p = in_dir(run.dir.path(), {"run", "tank.toml", "--method", "conservative",
                                   "--external-clock", "--out", run.out.string()});
  {
    const Ticker ticker(run);
    run.wait_for_csv_beyond(200);
    ASSERT_EQ(kill(p->pid(), SIGINT), 0);
    const auto exit = p->wait(15s);
    ASSERT_EQ(exit.value_or(-1), 130) << p->err();
  }
  EXPECT_EQ(run.checkpoint()["scenario"], "tank.toml");
  ASSERT_EQ(run.checkpoint()["files"].size(), 1u);
  EXPECT_EQ(run.checkpoint()["files"][0]["path"], (run.dir / "inflow.csv").string());
  fs::create_directories(run.dir / "elsewhere");
  // The table changed since the run read it: the resume is refused (it would continue the run
  // with other inputs); as it was, it resumes.
  const std::string inflow = read_file(run.dir / "inflow.csv");
  run.dir.write("inflow.csv", "time,inflow\n0,0\n1,2\n2,0\n3,1.5\n");
  auto refused = in_dir(run.dir / "elsewhere", {"run", "--resume", run.out.string()});
  EXPECT_EQ(refused->wait(60s).value_or(-1), 2);
  EXPECT_NE(refused->err().find("inflow.csv: changed since the run started"), std::string::npos)
      << refused->err();
  run.dir.write("inflow.csv", inflow);
  auto resumed = in_dir(run.dir / "elsewhere", {"run", "--resume", run.out.string()});
  EXPECT_EQ(resumed->wait(60s).value_or(-1), 0) << resumed->err();
  EXPECT_EQ(read_json(run.out / "summary.json")["trajectory_sha256"], ref.digest);
  EXPECT_TRUE(read_file(run.out / "trajectory.csv") == ref.csv);
}

// A String coupled between FMUs (docs/fmi.md, "String ports") travels as numbers: the
// samples of its lanes in the checkpoint bring an interrupted optimistic run in processes back
// to the uninterrupted digest.
TEST(Resume, AStringCoupledBetweenFmusResumesToTheSequentialDigest) {
  ResumeRun run;
  const std::string fmus = std::string(KAUSAL_BIN_DIR) + "/../fmus/";
  run.dir.write("text.toml",
                "[run]\nt_end = 3.0\noutput_interval = 0.1\n"
                "[[subsystem]]\nname = \"stairs\"\nmodel = \"fmu\"\nfmu = \"" +
                    fmus +
                    "staircase.fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
                    "h = 0.1\nparameters = { period = 0.5 }\n"
                    "[[subsystem]]\nname = \"reader\"\nmodel = \"fmu\"\nfmu = \"" +
                    fmus +
                    "text_reader.fmu\"\nintegrator = \"co-simulation\"\nh = 0.1\n"
                    "[[coupling]]\nfrom = \"stairs.label\"\nto = \"reader.text\"\n");
  run.scenario = run.dir / "text.toml";
  const Reference ref(run.scenario);
  auto p = run.start("optimistic", {"--layout", "process", "--external-clock"});
  {
    const Ticker ticker(run);
    run.wait_for_csv_beyond(ref.csv.size() / 4);
    ASSERT_EQ(kill(p->pid(), SIGINT), 0);
    expect_stopped_mid_run(*p, 130, run);
  }
  expect_resume_completes(run, ref);
}

TEST(Resume, ConservativeRunWithAKilledIntegratorResumesToTheSequentialDigest) {
  kill_resume_and_compare("conservative", "integrator-3");
}

TEST(Resume, OptimisticRunWithAKilledSystemResumesToTheSequentialDigest) {
  kill_resume_and_compare("optimistic", "system-2");
}

// Blocks as processes: a killed block ends the run; the resumed run starts the blocks again
// from the checkpoint's states. (Ticked, the blocks cannot run ahead past the clock: unpaced
// they computed the whole run before the kill on a fast machine.)
TEST(Resume, RunsWithAKilledBlockProcessResumeToTheSequentialDigest) {
  kill_resume_and_compare("optimistic", "block-2", {}, {"--layout", "block-processes:2"});
  kill_resume_and_compare("conservative", "block-1", {},
                          {"--guarantee", "lookahead", "--layout", "block-processes:2"});
}

TEST(Resume, InterruptedRunResumesAndAResumeThatFailsAgainCanBeResumed) {
  ResumeRun run;
  const Reference ref(run.scenario);
  auto p = run.start("conservative", {"--guarantee", "lookahead", "--external-clock"});
  const Ticker ticker(run);
  run.wait_for_csv_beyond(ref.twentieth());
  ASSERT_EQ(kill(p->pid(), SIGINT), 0);
  expect_stopped_mid_run(*p, 130, run);
  const auto first_stop = run.checkpoint()["step"].get<std::uint64_t>();

  // The resumed run (ticked again) fails too: a component killed once it has committed more.
  auto again = run.resume({"--external-clock"});
  const Ticker ticker_again(run);
  run.wait_for_csv_beyond(fs::file_size(run.out / "trajectory.csv") + ref.twentieth());
  const auto pid = again->component_pid("integrator-2");
  ASSERT_TRUE(pid);
  ASSERT_EQ(kill(*pid, SIGKILL), 0);
  expect_stopped_mid_run(*again, 3, run);
  EXPECT_GT(run.checkpoint()["step"].get<std::uint64_t>(), first_stop);

  const auto summary = expect_resume_completes(run, ref);
  EXPECT_EQ(summary["guarantee"], "lookahead");
  EXPECT_EQ(summary["resumes"], 2);
}

// ---- what --resume refuses ----

int kausal_exit(const std::vector<std::string>& args, const fs::path& dir, std::string& err) {
  return run_kausal(args, dir, &err, 30s);
}

TEST(Resume, RefusesWhatItCannotResumeWithExitTwo) {
  ResumeRun run;
  std::string err;
  EXPECT_EQ(kausal_exit({"run", "--resume", (run.dir / "nowhere").string()}, run.dir.path(), err),
            2);
  EXPECT_NE(err.find("no such run directory"), std::string::npos) << err;
  fs::create_directories(run.dir / "empty");
  EXPECT_EQ(kausal_exit({"run", "--resume", (run.dir / "empty").string()}, run.dir.path(), err), 2);
  EXPECT_NE(err.find("checkpoint.json"), std::string::npos) << err;
  EXPECT_EQ(kausal_exit({"run"}, run.dir.path(), err), 2);
  EXPECT_NE(err.find("scenario is required"), std::string::npos) << err;

  // A finished sequential run: nothing to resume (exit 0); other methods or scenarios refused.
  ASSERT_EQ(
      kausal_exit({"run", run.scenario.string(), "--out", run.out.string()}, run.dir.path(), err),
      0)
      << err;
  const std::string digest = read_json(run.out / "summary.json")["trajectory_sha256"];
  EXPECT_EQ(kausal_exit({"run", "--resume", run.out.string()}, run.dir.path(), err), 0) << err;
  EXPECT_EQ(read_json(run.out / "summary.json")["trajectory_sha256"], digest);
  EXPECT_EQ(kausal_exit({"run", "--resume", run.out.string(), "--method", "optimistic"},
                        run.dir.path(), err),
            2);
  EXPECT_NE(err.find("--method optimistic conflicts"), std::string::npos) << err;
  const auto other = scenario_variant("thesis.toml", run.dir / "empty", {});
  EXPECT_EQ(kausal_exit({"run", other.string(), "--resume", run.out.string()}, run.dir.path(), err),
            2);
  EXPECT_NE(err.find("differs from the scenario the run started with"), std::string::npos) << err;

  // A checkpoint that does not match the run's digest or its trajectory.csv, written as
  // kausal writes one (its MAC verifies: what is tested is the consistency checks).
  const Checkpoint stored = read_checkpoint(run.out);
  Checkpoint c = stored;
  c.chain().recorder.step = 100;  // the midstate no longer belongs to it
  write_checkpoint(c, run.out);
  EXPECT_EQ(kausal_exit({"run", "--resume", run.out.string()}, run.dir.path(), err), 2);
  EXPECT_NE(err.find("sha256_midstate.length"), std::string::npos) << err;
  c = stored;
  c.chain().recorder.csv_bytes = fs::file_size(run.out / "trajectory.csv") + 1;
  write_checkpoint(c, run.out);
  EXPECT_EQ(kausal_exit({"run", "--resume", run.out.string()}, run.dir.path(), err), 2);
  EXPECT_NE(err.find("shorter than"), std::string::npos) << err;

  // A partitioned run that completed has nothing to resume; one of another method is refused.
  const fs::path two_tanks = std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-tanks.toml";
  const fs::path tanks_out = run.dir / "tanks";
  ASSERT_EQ(
      kausal_exit({"run", two_tanks.string(), "--out", tanks_out.string()}, run.dir.path(), err), 0)
      << err;
  EXPECT_EQ(kausal_exit({"run", "--resume", tanks_out.string(), "--method", "optimistic"},
                        run.dir.path(), err),
            2);
  EXPECT_NE(err.find("--method optimistic conflicts"), std::string::npos) << err;
  EXPECT_EQ(kausal_exit({"run", "--resume", tanks_out.string()}, run.dir.path(), err), 0) << err;
}

// ---- discrete-event components ----

// PHOLD to `end`: by default long enough (about 10 M events) that the run is still going
// when the test strikes.
struct EventResumeRun : ResumeRun {
  explicit EventResumeRun(const std::string& end)
      : ResumeRun("phold.toml", {{"end = 2000.0", end}}) {}
  // Waits until the run has written a checkpoint with committed events (its first cut).
  void wait_for_checkpoint() const {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(out / "checkpoint.json") && checkpoint().contains("step") &&
          checkpoint()["step"].get<std::uint64_t>() > 0)
        return;
      std::this_thread::sleep_for(20ms);
    }
    FAIL() << "the run wrote no checkpoint";
  }
};

TEST(Resume, InterruptedEventRunResumesFromItsLastCutToTheSequentialDigest) {
  EventResumeRun run("end = 2000.0");
  TempDir ref_dir;
  std::string err;
  ASSERT_EQ(run_kausal({"run", run.scenario.string(), "--method", "sequential", "--out",
                        (ref_dir / "ref").string()},
                       ref_dir.path(), &err, 120s),
            0)
      << err;
  const auto ref = read_json(ref_dir / "ref" / "summary.json");

  // Ticked to three quarters of the shipped end at most, stopped after its first cut.
  auto p = run.start("optimistic", {"--groups", "2", "--external-clock"});
  const Ticker ticker(run);
  run.wait_for_checkpoint();
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(kill(p->pid(), SIGINT), 0);
  ASSERT_EQ(p->wait(30s).value_or(-1), 130) << p->err();
  const auto c = run.checkpoint();
  EXPECT_EQ(c["model"], "events");
  EXPECT_LT(c["t"].get<double>(), 2000.0);
  const auto before = c["step"].get<std::uint64_t>();
  ASSERT_GT(before, 0u);
  const auto stopped = read_json(run.out / "summary.json");
  EXPECT_EQ(stopped["status"], "interrupted");
  // The run committed at least up to its last cut.
  EXPECT_GE(stopped["events"]["committed"].get<std::uint64_t>(), before);

  auto resumed = run.resume({"--pin", "none"});
  ASSERT_EQ(resumed->wait(120s).value_or(-1), 0) << resumed->err();
  EXPECT_NE(resumed->out().find("resumed after " + std::to_string(before)), std::string::npos)
      << resumed->out();
  const auto summary = read_json(run.out / "summary.json");
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["method"], "optimistic");
  EXPECT_EQ(summary["resumes"], 1);
  EXPECT_EQ(summary["resumed_from_step"], before);
  EXPECT_EQ(summary["trajectory_sha256"], ref["trajectory_sha256"]);
  EXPECT_EQ(before + summary["events"]["committed"].get<std::uint64_t>(),
            ref["events"]["committed"].get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(summary["events"]["resumed_at"].get<double>(), c["t"].get<double>());
  EXPECT_EQ(read_json(run.out / "attempts" / "1" / "summary.json")["status"], "interrupted");
  // Complete now: nothing left to resume.
  EXPECT_EQ(run_kausal({"run", "--resume", run.out.string()}, run.dir.path(), &err), 0) << err;
}

TEST(Resume, AnEventCheckpointThatDoesNotFitItsRunIsRefusedWithItsField) {
  ResumeRun run("phold.toml", {{"end = 2000.0", "end = 200.0"}});
  std::string err;
  ASSERT_EQ(run_kausal(
                {"run", run.scenario.string(), "--method", "sequential", "--out", run.out.string()},
                run.dir.path(), &err),
            0)
      << err;
  const Checkpoint stored = read_checkpoint(run.out);
  ASSERT_TRUE(stored.events());
  // Written as kausal writes one (its MAC verifies): what is tested is the checks.
  auto refused = [&](const std::function<void(Checkpoint&)>& edit) {
    Checkpoint c = stored;
    c.event_point().at.cut.time = 100;  // mid-run, so that there is something to resume
    edit(c);
    write_checkpoint(c, run.out);
    std::string message;
    EXPECT_EQ(kausal_exit({"run", "--resume", run.out.string()}, run.dir.path(), message), 2)
        << message;
    return message;
  };
  EXPECT_NE(refused([](Checkpoint& c) {
              c.event_point().at.cut.pending.front().key.time = 50;
            }).find("pending[0].time: before the cut"),
            std::string::npos);
  EXPECT_NE(refused([](Checkpoint& c) {
              c.event_point().at.cut.pending.front().key.serial = 1u << 30;
            }).find("pending[0].serial"),
            std::string::npos);
  EXPECT_NE(refused([](Checkpoint& c) {
              c.event_point().at.digests[3].length += 24;
            }).find("components[3].sha256_midstate.length"),
            std::string::npos);
  EXPECT_NE(refused([](Checkpoint& c) {
              c.event_point().at.cut.states[5].values.push_back(1);
            }).find("components[5].values: "),
            std::string::npos);
  EXPECT_NE(refused([](Checkpoint& c) { c.event_point().end = 300; }).find("field end"),
            std::string::npos);
}

// In the process layout a lost group's process loses nothing committed before the last cut:
// the run resumes from it, in new processes, to the sequential digest.
TEST(Resume, EventRunWithAKilledGroupProcessResumesFromItsLastCut) {
  EventResumeRun run("end = 20000.0");
  TempDir ref_dir;
  std::string err;
  ASSERT_EQ(run_kausal({"run", run.scenario.string(), "--method", "sequential", "--out",
                        (ref_dir / "ref").string()},
                       ref_dir.path(), &err, 60s),
            0)
      << err;
  const auto ref = read_json(ref_dir / "ref" / "summary.json");
  auto p = run.start("conservative", {"--layout", "process", "--external-clock"});
  const Ticker ticker(run);
  run.wait_for_checkpoint();
  ASSERT_FALSE(HasFatalFailure());
  const auto victim = p->component_pid("event-group-1");
  ASSERT_TRUE(victim);
  ASSERT_EQ(kill(*victim, SIGKILL), 0);
  ASSERT_EQ(p->wait(30s).value_or(-1), 3) << p->err();
  const auto before = run.checkpoint()["step"].get<std::uint64_t>();
  ASSERT_GT(before, 0u);
  EXPECT_LT(run.checkpoint()["t"].get<double>(), 20000.0);

  auto resumed = run.resume();
  ASSERT_EQ(resumed->wait(120s).value_or(-1), 0) << resumed->err();
  const auto summary = read_json(run.out / "summary.json");
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["layout"], "process");
  EXPECT_EQ(summary["resumed_from_step"], before);
  EXPECT_EQ(summary["trajectory_sha256"], ref["trajectory_sha256"]);
  EXPECT_EQ(before + summary["events"]["committed"].get<std::uint64_t>(),
            ref["events"]["committed"].get<std::uint64_t>());
  EXPECT_EQ(read_json(run.out / "attempts" / "1" / "summary.json")["status"], "failed");
}

// A run whose monitor ended after its last checkpoint but before its summary (killed at the
// end, say) said "nothing to resume" and exited 0 without its digest; the digest, the run's
// proof, is in its checkpoint: `--resume` prints it, the one the summary would have had.
TEST(Resume, AFinishedRunWithoutItsSummaryGetsItsDigestFromTheCheckpoint) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::map<std::string, std::string>>> runs{
      {"thesis.toml", {{"duration = 20.0", "duration = 0.5"}}},
      {"two-mass.toml", {}},
      {"phold.toml", {}}};
  for (const auto& [file, edits] : runs) {
    const fs::path scenario = scenario_variant(file, dir.path(), edits);
    const fs::path out = dir / ("done-" + file);
    std::string err;
    ASSERT_EQ(run_kausal({"run", scenario.string(), "--out", out.string()}, dir.path(), &err), 0)
        << file << ": " << err;
    const std::string digest = read_json(out / "summary.json")["trajectory_sha256"];
    fs::remove(out / "summary.json");
    KausalProcess resume({"run", "--resume", out.string()}, dir.path());
    EXPECT_EQ(resume.wait(60s), std::optional<int>(0)) << file << ": " << resume.err();
    EXPECT_NE(resume.out().find("nothing to resume"), std::string::npos) << resume.out();
    EXPECT_NE(resume.out().find("digest        " + digest), std::string::npos)
        << file << ": " << resume.out();
  }
}

}  // namespace
}  // namespace kausal::testing
