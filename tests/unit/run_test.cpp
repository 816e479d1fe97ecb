// run(RunSpec): one way to run every model kind under every method, in one process
// (LocalPlatform). The same digest from every method; the run's files written; a failure
// before the first step is a result, not an exception.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

using testing::Method;
using testing::spec_of;
const std::vector<Method> kChainMethods = {{SyncMethod::sequential, Guarantee::none},
                                           {SyncMethod::conservative, Guarantee::step},
                                           {SyncMethod::conservative, Guarantee::lookahead},
                                           {SyncMethod::optimistic, Guarantee::none}};
const std::vector<Method> kPartitionedMethods = {{SyncMethod::sequential, Guarantee::none},
                                                 {SyncMethod::conservative, Guarantee::none},
                                                 {SyncMethod::optimistic, Guarantee::none}};

// thesis.toml for 1 s (1,000 steps, collisions included).
std::shared_ptr<const Scenario> short_thesis(const fs::path& dir) {
  return std::make_shared<const Scenario>(load_scenario(testing::short_thesis(dir, "1.0")));
}

nlohmann::json summary_of(const fs::path& out) {
  return nlohmann::json::parse(testing::slurp(out / "summary.json"));
}

// Runs every method on `model` and requires the sequential digest from each, with the run's
// files written and the summary saying what was run.
void expect_every_method_agrees(const RunModel& model, const std::vector<Method>& methods) {
  TempDir dir;
  LocalPlatform platform;
  std::string reference;
  for (const Method& m : methods) {
    const fs::path out = dir / method_dir(m.method, m.guarantee);
    RunControl control;
    const RunResult r = run(spec_of(model, m, out), platform, control);
    ASSERT_EQ(r.status, RunStatus::completed) << r.label() << ": " << r.error;
    if (reference.empty()) reference = r.trajectory_sha256;
    EXPECT_EQ(r.trajectory_sha256, reference) << r.label();
    for (const char* file : {"trajectory.csv", "checkpoint.json", "trace.json", "summary.json"})
      EXPECT_TRUE(fs::exists(out / file)) << r.label() << ": no " << file;
    const auto summary = summary_of(out);
    EXPECT_EQ(summary["trajectory_sha256"], reference) << r.label();
    EXPECT_EQ(summary["method"], to_string(m.method));
    EXPECT_EQ(summary["layout"], m.method == SyncMethod::sequential ? "none" : "process");
  }
}

TEST(Run, EveryMethodOfAChainGivesTheSequentialDigest) {
  TempDir dir;
  expect_every_method_agrees(ChainModel{short_thesis(dir.path()), nullptr}, kChainMethods);
}

TEST(Run, EveryMethodOfAPartitionedModelGivesTheSequentialDigest) {
  const auto s = std::make_shared<const PartitionedScenario>(
      load_partitioned_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-mass.toml"));
  expect_every_method_agrees(PartitionedModel{s, nullptr}, kPartitionedMethods);
}

// A platform whose components never start.
class DeadPlatform final : public RunPlatform {
 public:
  std::unique_ptr<Deployment> place(const ComponentPlan&, const Placing&) override {
    throw PeerError("system-1", "did not start");
  }
};

TEST(Run, ComponentsThatDoNotStartEndTheRunAsAFailureWithItsFilesWritten) {
  TempDir dir;
  DeadPlatform platform;
  const RunModel chain = ChainModel{short_thesis(dir.path()), nullptr};
  const RunModel partitioned = PartitionedModel{
      std::make_shared<const PartitionedScenario>(
          load_partitioned_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-tanks.toml")),
      nullptr};
  for (const auto& [name, model] :
       {std::pair("chain", chain), std::pair("partitioned", partitioned)}) {
    const fs::path out = dir / name;
    RunSpec spec = spec_of(model, {SyncMethod::optimistic, Guarantee::none}, out);
    spec.layout = Layout::pendulum;
    RunControl control;
    RunResult r;
    ASSERT_NO_THROW(r = run(spec, platform, control)) << name;
    EXPECT_EQ(r.status, RunStatus::failed) << name;
    EXPECT_EQ(r.exit_code, ExitCode::peer_failure) << name;
    EXPECT_NE(r.error.find("system-1"), std::string::npos) << name << ": " << r.error;
    const auto summary = summary_of(out);
    EXPECT_EQ(summary["status"], "failed") << name;
    EXPECT_EQ(summary["layout"], "pendulum") << name;
    EXPECT_TRUE(fs::exists(out / "trace.json")) << name;
  }
}

}  // namespace
}  // namespace kausal
