// Resuming partitioned models in process: a run cut anywhere and resumed from its
// checkpoint.json gives the digest and the very trajectory.csv of the uninterrupted run, for
// every method; the checkpoint carries what a partition holds between steps (multistep
// memory, the input samples its hold polynomials reach back to, the rows not yet complete).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "integrator/local_model_link.hpp"
#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/resume.hpp"
#include "monitor/run/run.hpp"
#include "monitor/sync/partitioned_driver.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::slurp;
using testing::TempDir;

// A shipped scenario with text replaced, written into dir.
fs::path variant(const fs::path& dir, const std::string& name,
                 const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = slurp(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name);
  for (const auto& [from, to] : edits) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  const fs::path file = dir / name;
  std::ofstream(file) << text;
  return file;
}

// A run into dir with its checkpoint, fresh or resumed; partitions in process. `cut_often`: a
// hybrid model's cut at every chance, each one written (a checkpoint about every second would
// leave these short runs with their first cut only).
RunResult record(SyncMethod method, const PartitionedScenario& s, const fs::path& dir,
                 RunControl& control, const ResumedPartitionedRun* resumed = nullptr,
                 bool cut_often = false) {
  RunSpec spec;
  spec.model =
      resumed ? resumed_model(*resumed)
              : RunModel(PartitionedModel{std::make_shared<const PartitionedScenario>(s), nullptr});
  spec.method = method;
  spec.pin = Pinning::none;
  spec.out = dir;
  if (cut_often) spec.checkpoint_every = std::chrono::milliseconds(0);
  LocalPlatform platform;
  return run(spec, platform, control);
}

struct Case {
  std::string scenario;
  std::vector<std::pair<std::string, std::string>> edits;
};

// Cuts a run of the case at `cut` ticks (a distributed run: at about `cut`), resumes it and
// compares with an uninterrupted sequential run.
void expect_cut_and_resume_matches(const Case& c, SyncMethod method, std::uint64_t cut) {
  TempDir ref_dir;
  const PartitionedScenario ref_s =
      load_partitioned_scenario(variant(ref_dir.path(), c.scenario, c.edits));
  RunControl plain;
  const RunResult ref = record(SyncMethod::sequential, ref_s, ref_dir.path(), plain);
  ASSERT_EQ(ref.status, RunStatus::completed) << ref.error;

  TempDir dir;
  const PartitionedScenario s = load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits));
  StopAt stop(cut);
  const RunResult first = record(method, s, dir.path(), stop, nullptr, s.bridge.has_value());
  ASSERT_EQ(first.status, RunStatus::interrupted) << first.error;
  const Checkpoint at = read_checkpoint(dir.path());
  ASSERT_TRUE(at.partitioned());
  if (s.bridge) {
    // A hybrid model's checkpoint is its last cut, at or before where the run stopped.
    ASSERT_TRUE(at.partitions().bridge);
    EXPECT_LE(at.step(), first.steps);
    EXPECT_GT(at.step(), first.steps / 2) << "not a recent cut";
  } else {
    EXPECT_EQ(at.step(), first.steps);  // the horizon, as summary.json counts it
  }
  EXPECT_LT(at.step(), s.ticks);

  const ResumedPartitionedRun resumed = prepare_partitioned_resume({dir.path(), "", {}});
  RunControl control;
  const RunResult second = record(method, resumed.scenario, dir.path(), control, &resumed);
  ASSERT_EQ(second.status, RunStatus::completed) << second.error;
  EXPECT_EQ(second.trajectory_sha256, ref.trajectory_sha256);
  EXPECT_EQ(slurp(dir / "trajectory.csv"), slurp(ref_dir / "trajectory.csv"));
  if (s.bridge) {
    EXPECT_EQ(slurp(dir / "bridge.csv"), slurp(ref_dir / "bridge.csv"));
  }
  const Checkpoint last = read_checkpoint(dir.path());
  EXPECT_EQ(last.step(), s.ticks);
  EXPECT_EQ(last.resumed_from, std::vector<std::uint64_t>{at.step()});
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // AB3: the multistep memory must come back; hold order 1 reaches a sample back.
      {"two-mass.toml", {{"t_end = 5.0", "t_end = 1.0"}, {"\"rk4\"", "\"ab3\""}}},
      // Multirate (steps of 1 and 0.5 s): rows completed by one partition only at the cut.
      {"two-tanks.toml", {}},
      // Multirate 1:3 with hold 0, Euler.
      {"hydraulic-multirate.toml", {{"t_end = 0.6", "t_end = 0.3"}}},
      // Exponential integrators with Jacobian blocks.
      {"turbogenerator.toml", {}},
      // Stiff, three partitions; DRE0, and pDRE0 with its partitioned Jacobian.
      {"orifices-dre0.toml", {}},
      {"orifices-pdre0.toml", {}},
  };
  return all;
}

TEST(PartitionedResume, SequentialCutAnywhereGivesTheUninterruptedDigestAndCsv) {
  for (const Case& c : cases()) {
    TempDir dir;
    const std::uint64_t ticks =
        load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits)).ticks;
    // At the start, between rows, late (a cut within a batch of the end may find it done).
    for (const std::uint64_t cut : {std::uint64_t{1}, ticks / 3 + 1, 2 * ticks / 3}) {
      SCOPED_TRACE(c.scenario + " cut at tick " + std::to_string(cut));
      expect_cut_and_resume_matches(c, SyncMethod::sequential, cut);
    }
  }
}

TEST(PartitionedResume, ConservativeAndOptimisticPartitionsStartAtTheCheckpoint) {
  for (const Case& c : cases()) {
    TempDir dir;
    const std::uint64_t ticks =
        load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits)).ticks;
    for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic}) {
      SCOPED_TRACE(c.scenario + " " + to_string(method));
      expect_cut_and_resume_matches(c, method, ticks / 2);
    }
  }
}

// Under the co-simulation master a checkpoint is taken where a macro step was accepted, with
// the master's own state: cut anywhere (within a macro step, at its synchronisation point, late),
// the resumed run takes the uninterrupted run's macro steps. Gauss–Seidel iterated with error
// control (as shipped, AB3 in one partition), and Jacobi with fixed steps.
TEST(PartitionedResume, TheMasterResumesWhereAMacroStepWasAcceptedToTheSameBits) {
  const std::vector<Case> masters = {
      {"two-mass-master.toml", {{"t_end = 5.0", "t_end = 3.0"}, {"\"rk4\"", "\"ab3\""}}},
      {"two-mass-master.toml",
       {{"t_end = 5.0", "t_end = 3.0"},
        {"\"gauss-seidel\"", "\"jacobi\""},
        {"iterations = 4", "iterations = 0"},
        {"error_control = true", "error_control = false"}}},
  };
  for (const Case& c : masters) {
    TempDir dir;
    const std::uint64_t ticks =
        load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits)).ticks;
    for (const std::uint64_t cut : {std::uint64_t{7}, ticks * 5 / 6, ticks * 9 / 10}) {
      SCOPED_TRACE(c.edits.size() == 2 ? "gauss-seidel" : "jacobi");
      SCOPED_TRACE("cut at tick " + std::to_string(cut));
      expect_cut_and_resume_matches(c, SyncMethod::sequential, cut);
    }
    expect_cut_and_resume_matches(c, SyncMethod::conservative, ticks / 2);
  }
}

// A hybrid model is checkpointed at cuts, with its discrete side: the event group's components
// and pending events, the events already sent to partitions for later times, the held inputs
// events set. Cut anywhere, under every method, the resumed run commits the uninterrupted
// run's partitions, discrete events and bridge.csv, bit for bit: the level switch (events set
// an input), the repair crew (several partitions of two step sizes, events set states), two
// crews in two event groups and the bouncing ball (a state reset at each located impact).
TEST(PartitionedResume, AHybridModelResumesFromACutWithItsDiscreteSide) {
  const std::vector<Case> hybrids = {
      {"two-tanks-level-switch.toml", {{"t_end = 2000.0", "t_end = 200.0"}}},  // 4 switchings
      {"machines-repair.toml", {{"t_end = 1000.0", "t_end = 100.0"}}},         // 5 failures
      // Two crews in two event groups: a cut holds both groups' components and events.
      {"machines-crews.toml", {{"t_end = 1000.0", "t_end = 150.0"}}},
      {"bouncing-ball-floor.toml", {}},
  };
  for (const Case& c : hybrids) {
    TempDir dir;
    const PartitionedScenario s =
        load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits));
    ASSERT_TRUE(s.bridge) << c.scenario;
    for (const std::uint64_t cut : {s.ticks / 3, 2 * s.ticks / 3}) {
      SCOPED_TRACE(c.scenario + " cut at tick " + std::to_string(cut));
      expect_cut_and_resume_matches(c, SyncMethod::sequential, cut);
    }
    for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic}) {
      SCOPED_TRACE(c.scenario + " " + to_string(method));
      expect_cut_and_resume_matches(c, method, s.ticks / 2);
    }
  }
}

// A hybrid model's checkpoint that does not fit its scenario (written by kausal, so that it
// verifies, but changed) is refused with exit 2 naming the field, before anything starts.
TEST(PartitionedResume, AHybridCheckpointThatDoesNotFitItsScenarioIsRefusedNamingTheField) {
  TempDir dir;
  const Case c{"two-tanks-level-switch.toml", {{"t_end = 2000.0", "t_end = 100.0"}}};
  const PartitionedScenario s = load_partitioned_scenario(variant(dir.path(), c.scenario, c.edits));
  StopAt stop(s.ticks / 2);
  ASSERT_EQ(record(SyncMethod::sequential, s, dir.path(), stop, nullptr, true).status,
            RunStatus::interrupted);
  const Checkpoint good = read_checkpoint(dir.path());
  const auto refusal = [&](const std::function<void(std::optional<BridgePoint>&)>& change) {
    Checkpoint changed = good;
    change(changed.partitions().bridge);
    write_checkpoint(changed, dir.path());
    try {
      prepare_partitioned_resume({dir.path(), "", {}});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  using Bridge = std::optional<BridgePoint>;
  EXPECT_NE(refusal([](Bridge& b) { b.reset(); }).find("field bridge is missing"),
            std::string::npos);
  EXPECT_NE(refusal([](Bridge& b) {
              b->partitions[0].held.push_back(1.0);
            }).find("bridge.partitions[0].held: 2 values, the partition has 1"),
            std::string::npos);
  EXPECT_NE(refusal([](Bridge& b) { b->partitions.pop_back(); }).find("bridge.partitions: 1"),
            std::string::npos);
  EXPECT_NE(refusal([](Bridge& b) { b->serials.push_back(0); }).find("bridge.serials"),
            std::string::npos);
  EXPECT_NE(refusal([](Bridge& b) {
              b->cut.time = std::nextafter(b->cut.time, 1e9);
            }).find("bridge.cut: t = "),
            std::string::npos);
  EXPECT_NE(refusal([](Bridge& b) {
              b->partitions[1].scheduled.push_back({{}, 7, 0.0});
            }).find("scheduled: an event for event input 7"),
            std::string::npos);
}

TEST(PartitionedResume, AStartWithoutTheSamplesItNeedsIsRefused) {
  TempDir dir;
  const PartitionedScenario s = load_partitioned_scenario(variant(dir.path(), "two-mass.toml", {}));
  PartitionedPlan plan = plan_partitions(s, {});
  IntegratorConfig config = plan.configs[0];
  // hold 1 reaches back to sample 98, and a speculating partition predicting sample 100 from
  // sample 99 to 97
  config.first_step = 100;
  config.publish_first_state = false;
  config.input_history.assign(config.channels.size(), {99, {0.0, 0.0}});
  SystemCore system("system-mass1");
  configure(system, partitioned_deployment(s, plan)[0].recipe);
  LocalModelLink link(system);
  try {
    Integrator integrator(config, link);
    FAIL() << "a history starting at sample 99 was accepted for step 100";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("needs sample 97"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kausal
