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

void expect_all_gone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) EXPECT_FALSE(process_exists(pid)) << "process " << pid << " left behind";
}

void kill_component_and_expect_exit_3(const std::string& component, int signal,
                                      std::vector<std::string> extra = {}) {
  LongRun run(std::move(extra));
  run.wait_until_running();
  const auto victim = run.kausal->component_pid(component);
  ASSERT_TRUE(victim) << component << " not found";
  const auto pids = run.components();
  ASSERT_EQ(pids.size(), 10u);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(*victim, signal), 0);
  const auto code = run.kausal->wait(10s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(code) << "the run did not end within 10 s of " << component << " failing";
  EXPECT_EQ(*code, 3) << run.kausal->err();
  EXPECT_NE(run.kausal->err().find(component), std::string::npos) << run.kausal->err();
  if (signal == SIGSTOP) {
    EXPECT_NE(run.kausal->err().find("did not answer within the call timeout"), std::string::npos)
        << run.kausal->err();
  }
  std::cout << component << " failure detected and run ended in "
            << std::chrono::duration<double>(took).count() << " s\n";
  expect_committed_prefix_on_disk(run.out, "failed");
  expect_all_gone(pids);
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
  const auto pids = run.components();
  ASSERT_EQ(pids.size(), 5u);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(*victim, SIGKILL), 0);
  const auto code = run.kausal->wait(10s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(code) << "the run did not end within 10 s of a pendulum process dying";
  EXPECT_EQ(*code, 3) << run.kausal->err();
  for (const char* lost : {"system-3", "integrator-3"})
    EXPECT_NE(run.kausal->err().find(lost), std::string::npos) << run.kausal->err();
  std::cout << method << ": pendulum process failure detected and run ended in "
            << std::chrono::duration<double>(took).count() << " s\n";
  expect_committed_prefix_on_disk(run.out, "failed");
  expect_all_gone(pids);
}

TEST(Failure, KilledPendulumProcessEndsAConservativeRunWithExitThree) {
  kill_pendulum_process_and_expect_exit_3("conservative");
}

TEST(Failure, KilledPendulumProcessEndsAnOptimisticRunWithExitThree) {
  kill_pendulum_process_and_expect_exit_3("optimistic");
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

TEST(Failure, InterfaceVersionMismatchExitsFour) {
  TempDir dir;
  KausalProcess p({"run", std::string(KAUSAL_SOURCE_DIR) + "/scenarios/thesis.toml", "--method",
                   "conservative", "--out", (dir / "out").string()},
                  dir.path(), {{"KAUSAL_TEST_INTERFACE_VERSION", "99"}});
  const auto code = p.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 4) << p.err();
  EXPECT_NE(p.err().find("interface version 99"), std::string::npos) << p.err();
  EXPECT_TRUE(children_of(p.pid()).empty());
}

TEST(Failure, InterfaceVersionMismatchExitsFourInThePendulumLayout) {
  TempDir dir;
  KausalProcess p({"run", std::string(KAUSAL_SOURCE_DIR) + "/scenarios/thesis.toml", "--method",
                   "conservative", "--layout", "pendulum", "--out", (dir / "out").string()},
                  dir.path(), {{"KAUSAL_TEST_INTERFACE_VERSION", "99"}});
  const auto code = p.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 4) << p.err();
  EXPECT_NE(p.err().find("interface version 99"), std::string::npos) << p.err();
  EXPECT_TRUE(children_of(p.pid()).empty());
}

}  // namespace
}  // namespace kausal::testing
