// Every method as real processes: the equivalence matrix of issue 3 on the shipped and on
// seeded random scenarios, stale batches under injected delay, the window bound, and a
// dead peer in an optimistic run.
#include <gtest/gtest.h>

#include "../unit/test_support.hpp"
#include "kausal_process.hpp"
#include "scenario_file.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

// Returns the sequential run's impacts.
int expect_matrix_agrees(const fs::path& scenario, const std::string& label) {
  TempDir dir;
  const auto seq = run_ok(scenario, {"--method", "sequential"}, dir / "seq", dir).summary;
  const std::vector<std::vector<std::string>> methods = {
      {"--method", "conservative"},
      {"--method", "conservative", "--guarantee", "lookahead", "--check-guarantees"},
      {"--method", "optimistic"},
      {"--method", "optimistic", "--batch", "3", "--window", "20", "--pin", "none"},
  };
  for (std::size_t k = 0; k < methods.size(); ++k) {
    const auto r = run_ok(scenario, methods[k], dir / std::to_string(k), dir).summary;
    if (r.is_null()) continue;
    EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << label << " / " << methods[k][1];
    EXPECT_EQ(r["collisions"], seq["collisions"]) << label << " / " << methods[k][1];
  }
  return seq.is_null() ? 0 : seq["collisions"].get<int>();
}

TEST(Methods, ShippedScenariosAgreeAcrossProcesses) {
  for (const char* name : {"thesis.toml", "cradle.toml", "heterogeneous.toml"}) {
    TempDir dir;
    // A shorter run keeps the matrix quick: in its first 2 s each has 16-19 impacts (the
    // digest cells run them whole in processes).
    const auto file = scenario_variant(
        name, dir.path(),
        {{"duration = 20.0", "duration = 2.0"}, {"duration = 10.0", "duration = 2.0"}});
    EXPECT_GT(expect_matrix_agrees(file, name), 10) << name;
  }
}

// Each seed's row for its first 800 steps (0.4-1.6 s): long enough for the first bob's
// swing to strike the row (checked), a process per System and Integrator under four methods.
TEST(Methods, RandomScenariosAgreeAcrossProcesses) {
  for (unsigned seed : {101u, 202u, 303u, 404u}) {
    const std::size_t n = 2 + seed % 15;  // 2 .. 16 pendulums
    TempDir dir;
    const auto file = write_toml(random_scenario(seed, n, 800), dir / "random.toml");
    EXPECT_GT(expect_matrix_agrees(file, "seed " + std::to_string(seed)), 0) << seed;
  }
}

TEST(Methods, OptimisticRollsBackDropsStaleBatchesAndKeepsTheWindow) {
  TempDir dir;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 5.0"}});
  const auto seq = run_ok(file, {"--method", "sequential"}, dir / "seq", dir).summary;
  // Every batch waits 3 ms before it leaves its Integrator: rollbacks overtake batches.
  const auto opt = run_ok(file, {"--method", "optimistic", "--batch", "8", "--window", "64"},
                          dir / "opt", dir, {{"KAUSAL_TEST_DELIVERY_DELAY_MS", "3"}})
                       .summary;
  ASSERT_FALSE(opt.is_null());
  EXPECT_EQ(opt["trajectory_sha256"], seq["trajectory_sha256"]);
  EXPECT_GT(opt["rollbacks"].get<int>(), 0);
  EXPECT_GT(opt["rolled_back_steps"].get<int>(), 0);
  EXPECT_GT(opt["stale_batches"].get<int>(), 0);
  EXPECT_LE(opt["state_list_peak"].get<int>(), 64 + 8);
  for (const auto& c : opt["components"]) {
    if (c["role"] == "integrator") {
      EXPECT_LE(c["state_list_peak"].get<int>(), 64 + 8) << c["name"];
    }
  }
}

TEST(Methods, RollbackCheckModeRunsInEveryMethodOverProcesses) {
  TempDir dir;
  const auto file =
      scenario_variant("cradle.toml", dir.path(), {{"duration = 10.0", "duration = 2.0"}});
  const auto seq = run_ok(file, {"--method", "sequential"}, dir / "seq", dir).summary;
  for (const char* method : {"conservative", "optimistic"}) {
    const auto r =
        run_ok(file, {"--method", method, "--rollback-check"}, dir / method, dir).summary;
    if (r.is_null()) continue;
    EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << method;
  }
}

// Blocks of pendulums check themselves too: on threads and in kausal-block processes, every
// step is taken twice (twice the Calc calls) to the sequential digest.
TEST(Methods, RollbackCheckModeRunsInBlocksOnThreadsAndInProcesses) {
  TempDir dir;
  const auto file =
      scenario_variant("cradle.toml", dir.path(), {{"duration = 10.0", "duration = 2.0"}});
  const auto seq = run_ok(file, {"--method", "sequential"}, dir / "seq", dir).summary;
  ASSERT_FALSE(seq.is_null());
  for (const char* layout : {"blocks:2", "block-processes:2"})
    for (const char* method : {"conservative", "optimistic"}) {
      const std::string label = std::string(layout) + " " + method;
      const auto r = run_ok(file, {"--method", method, "--layout", layout, "--rollback-check"},
                            dir / (std::string(method) + layout[6]), dir)
                         .summary;
      ASSERT_FALSE(r.is_null()) << label;
      EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << label;
      EXPECT_GE(r["calc_calls"].get<std::uint64_t>(), 2 * seq["calc_calls"].get<std::uint64_t>())
          << label;
    }
}

TEST(Methods, KilledIntegratorInAnOptimisticRunEndsWithExitThree) {
  TempDir dir;
  const auto file =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 400.0"}});
  const fs::path out = dir / "out";
  KausalProcess kausal({"run", file.string(), "--method", "optimistic", "--out", out.string()},
                       dir.path());
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(fs::exists(out / "trajectory.csv") && fs::file_size(out / "trajectory.csv") > 20000))
    std::this_thread::sleep_for(50ms);
  const auto victim = kausal.component_pid("integrator-2");
  ASSERT_TRUE(victim);
  std::vector<pid_t> pids;
  for (const auto& [pid, cmd] : children_of(kausal.pid())) pids.push_back(pid);
  ASSERT_EQ(pids.size(), 10u);
  ASSERT_EQ(kill(*victim, SIGKILL), 0);
  const auto code = kausal.wait(10s);
  ASSERT_TRUE(code) << "not ended within 10 s";
  EXPECT_EQ(*code, 3) << kausal.err();
  EXPECT_NE(kausal.err().find("integrator-2"), std::string::npos) << kausal.err();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_GT(summary["steps"].get<int>(), 0);  // everything up to GVT was committed
  std::ifstream csv(out / "trajectory.csv");
  std::string line, last;
  while (std::getline(csv, line))
    if (!line.empty()) last = line;
  EXPECT_LE(std::stod(last.substr(0, last.find(','))),
            summary["steps"].get<double>() * summary["h"].get<double>() + 1e-9);
  for (pid_t pid : pids) EXPECT_FALSE(process_exists(pid)) << pid;
}

}  // namespace
}  // namespace kausal::testing
