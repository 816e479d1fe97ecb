// A dead, hung or interrupted peer ends the run with the documented exit code, a message
// naming the component, the committed trajectory on disk and no process left behind.
#include <gtest/gtest.h>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

// A conservative run long enough to be interrupted (thesis.toml for 300 s of model time).
struct LongRun {
  TempDir dir;
  fs::path out = dir / "out";
  std::unique_ptr<KausalProcess> kausal;

  explicit LongRun(std::vector<std::string> extra = {},
                   const std::map<std::string, std::string>& env = {},
                   const std::string& method = "conservative") {
    const auto file =
        scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 300.0"}});
    std::vector<std::string> args = {"run",  file.string(), "--method",
                                     method, "--out",       out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    kausal = std::make_unique<KausalProcess>(args, dir.path(), env);
  }

  // Waits until the run has committed some steps (trajectory rows on disk).
  void wait_until_running() {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(out / "trajectory.csv") && fs::file_size(out / "trajectory.csv") > 2000)
        return;
      std::this_thread::sleep_for(50ms);
    }
    FAIL() << "the run did not start committing steps: " << kausal->err();
  }

  std::vector<pid_t> components() {
    std::vector<pid_t> pids;
    for (const auto& [pid, cmd] : children_of(kausal->pid())) pids.push_back(pid);
    return pids;
  }
};

// After a failed run: summary and trajectory agree on how far it got, and it got somewhere.
void expect_committed_prefix_on_disk(const fs::path& out, const std::string& status) {
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["status"], status);
  const auto steps = summary["steps"].get<std::uint64_t>();
  EXPECT_GT(steps, 0u);
  EXPECT_LT(steps, summary["planned_steps"].get<std::uint64_t>());
  // The last CSV row is at or before the last committed step, within one output interval.
  std::ifstream csv(out / "trajectory.csv");
  std::string line, last;
  while (std::getline(csv, line))
    if (!line.empty()) last = line;
  const double t_last = std::stod(last.substr(0, last.find(',')));
  const double t_committed = static_cast<double>(steps) * summary["h"].get<double>();
  EXPECT_LE(t_last, t_committed + 1e-9);
  EXPECT_GT(t_last, t_committed - 0.01 - 1e-9);  // output_interval of thesis.toml
}

// Kills `victim` with `signal` and expects the run to end with exit 3 within 10 s, naming
// every lost component, with its committed prefix on disk and no child left.
void expect_exit_3_after(LongRun& run, pid_t victim, int signal,
                         const std::vector<std::string>& lost, std::size_t children) {
  const auto pids = run.components();
  ASSERT_EQ(pids.size(), children);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(victim, signal), 0);
  const auto code = run.kausal->wait(10s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(code) << "the run did not end within 10 s of " << lost.front() << " failing";
  EXPECT_EQ(*code, 3) << run.kausal->err();
  for (const auto& name : lost)
    EXPECT_NE(run.kausal->err().find(name), std::string::npos) << run.kausal->err();
  if (signal == SIGSTOP) {
    EXPECT_NE(run.kausal->err().find("did not answer within the call timeout"), std::string::npos)
        << run.kausal->err();
    // Every SIGSTOP test runs with --call-timeout 1000. A stopped block once took 4.5-9.9 s
    // (blocks had no heartbeat).
    EXPECT_LT(std::chrono::duration<double>(took).count(), liveness_bound_s(1.0));
  }
  std::cout << lost.front() << " failure detected and run ended in "
            << std::chrono::duration<double>(took).count() << " s\n";
  expect_committed_prefix_on_disk(run.out, "failed");
  expect_all_gone(pids);
}

void kill_component_and_expect_exit_3(const std::string& component, int signal,
                                      std::vector<std::string> extra = {}) {
  LongRun run(std::move(extra));
  run.wait_until_running();
  const auto victim = run.kausal->component_pid(component);
  ASSERT_TRUE(victim) << component << " not found";
  expect_exit_3_after(run, *victim, signal, {component}, 10);
}

TEST(Failure, KilledIntegratorEndsTheRunWithExitThree) {
  kill_component_and_expect_exit_3("integrator-3", SIGKILL);
}

TEST(Failure, KilledSystemEndsTheRunWithExitThree) {
  kill_component_and_expect_exit_3("system-2", SIGKILL);
}

TEST(Failure, HungSystemIsCaughtByTheCallTimeout) {
  // SIGSTOP: the process is alive but never answers; only a timeout can tell.
  kill_component_and_expect_exit_3("system-4", SIGSTOP, {"--call-timeout", "1000"});
}

TEST(Failure, HungIntegratorIsCaughtByTheCallTimeout) {
  kill_component_and_expect_exit_3("integrator-5", SIGSTOP, {"--call-timeout", "1000"});
}

// Pendulum layout: one process per pendulum. Killing one loses both of its components.
void kill_pendulum_process_and_expect_exit_3(const std::string& method) {
  LongRun run({"--layout", "pendulum"}, {}, method);
  run.wait_until_running();
  const auto victim = run.kausal->component_pid("integrator-3");  // hosts system-3 too
  ASSERT_TRUE(victim);
  expect_exit_3_after(run, *victim, SIGKILL, {"integrator-3", "system-3"}, 5);
}

TEST(Failure, KilledPendulumProcessEndsAConservativeRunWithExitThree) {
  kill_pendulum_process_and_expect_exit_3("conservative");
}

TEST(Failure, KilledPendulumProcessEndsAnOptimisticRunWithExitThree) {
  kill_pendulum_process_and_expect_exit_3("optimistic");
}

// Blocks as processes: one kausal-block per block. Killing one ends every method's run,
// naming the block and how its process ended; a stopped one is caught by the call timeout.
void fail_block_process_and_expect_exit_3(const std::string& method, std::vector<std::string> extra,
                                          int signal) {
  extra.insert(extra.end(), {"--layout", "block-processes:3"});
  LongRun run(std::move(extra), {}, method);
  run.wait_until_running();
  const auto victim = run.kausal->component_pid("block-2");
  ASSERT_TRUE(victim);
  expect_exit_3_after(run, *victim, signal, {"block-2"}, 3);
  if (signal == SIGKILL) {
    EXPECT_NE(run.kausal->err().find("killed by signal 9"), std::string::npos) << run.kausal->err();
  }
}

TEST(Failure, KilledBlockProcessEndsEveryMethodWithExitThreeNamingIt) {
  fail_block_process_and_expect_exit_3("conservative", {}, SIGKILL);
  fail_block_process_and_expect_exit_3("conservative", {"--guarantee", "lookahead"}, SIGKILL);
  fail_block_process_and_expect_exit_3("optimistic", {}, SIGKILL);
}

TEST(Failure, HungBlockProcessIsCaughtByTheCallTimeout) {
  fail_block_process_and_expect_exit_3("optimistic", {"--call-timeout", "1000"}, SIGSTOP);
  fail_block_process_and_expect_exit_3("conservative", {"--call-timeout", "1000"}, SIGSTOP);
}

TEST(Failure, CtrlCEndsTheRunAndItsChildrenCleanly) {
  LongRun run;
  run.wait_until_running();
  const auto pids = run.components();
  ASSERT_EQ(pids.size(), 10u);
  ASSERT_EQ(kill(run.kausal->pid(), SIGINT), 0);
  const auto code = run.kausal->wait(10s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 130) << run.kausal->err();
  expect_committed_prefix_on_disk(run.out, "interrupted");
  expect_all_gone(pids);
}

// Every component reports interface version 99: the monitor refuses to run (exit 4).
void expect_version_mismatch(const std::string& layout) {
  TempDir dir;
  KausalProcess p({"run", std::string(KAUSAL_SOURCE_DIR) + "/scenarios/thesis.toml", "--method",
                   "conservative", "--layout", layout, "--out", (dir / "out").string()},
                  dir.path(), {{"KAUSAL_TEST_INTERFACE_VERSION", "99"}});
  const auto code = p.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 4) << p.err();
  EXPECT_NE(p.err().find("interface version 99"), std::string::npos) << p.err();
  EXPECT_TRUE(children_of(p.pid()).empty());
}

TEST(Failure, InterfaceVersionMismatchExitsFour) {
  expect_version_mismatch("process");
}

TEST(Failure, InterfaceVersionMismatchExitsFourInThePendulumLayout) {
  expect_version_mismatch("pendulum");
}

}  // namespace
}  // namespace kausal::testing
