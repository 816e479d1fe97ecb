// Liveness that does not confuse slow with dead (docs/architecture.md, "Liveness"): a grant
// that takes longer than the call timeout over a slow link completes, and a stopped
// (SIGSTOP) component is found within the documented bound — the call timeout + 1 s — in
// every method and layout where a component can stop on its own, for pendulum chains and
// partitioned models alike. The tests print the measured times.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto call_timeout = 1000ms;
// The documented bound on finding a stopped component; the slack a test allows on top (a
// loaded machine is slow, the bound is not loose); and what it allows for the monitor to end
// the run after that (timing of the survivors, post-mortem, ending every child).
constexpr auto detection_bound = call_timeout + 1000ms;
constexpr auto detection_slack = 2s;
constexpr auto ending_allowance = 6s;

std::string sha256_of(const fs::path& out) {
  return read_json(out / "summary.json")["trajectory_sha256"];
}

// The tutorial's first grant of lookahead is 594 steps; over a 2 ms link each step's Calc
// round trip takes 4 ms or more, so that grant alone takes 2.4 s, longer than the monitor's
// call timeout (0.5 s + 1 s). Slow is not dead: the run completes with the sequential digest.
TEST(Liveness, ALongGrantOverASlowLinkIsNotMistakenForAHungComponent) {
  TempDir dir;
  const auto file =
      scenario_variant("tutorial.toml", dir.path(), {{"duration = 6.0", "duration = 0.7"}});
  std::string err;
  ASSERT_EQ(run_kausal({"run", file.string(), "--out", (dir / "seq").string()}, dir.path(), &err),
            0)
      << err;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(
      run_kausal({"run", file.string(), "--method", "conservative", "--guarantee", "lookahead",
                  "--link-delay", "2ms", "--call-timeout", "500", "--out", (dir / "slow").string()},
                 dir.path(), &err),
      0)
      << err;
  std::cout << "700 steps over a 2 ms link in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
  EXPECT_EQ(sha256_of(dir / "slow"), sha256_of(dir / "seq"));
}

struct StopCase {
  std::string name;       // for the test's name
  bool partitioned;       // turbogenerator, else thesis
  std::string method;     // conservative | optimistic
  std::string guarantee;  // chains, conservative: step | lookahead
  std::string layout;     // process | pendulum
  std::string victim;     // the component whose process is stopped
  // The components of that process: the message names one of them (in the pendulum layout
  // whichever the monitor found first).
  std::vector<std::string> hosted() const {
    if (layout == "process") return {victim};
    const std::string suffix = victim.substr(victim.find('-'));
    return {"system" + suffix, "integrator" + suffix};
  }
};

void PrintTo(const StopCase& c, std::ostream* os) {
  *os << c.name;
}

// A run long enough to be stopped in the middle: thesis.toml for 300 s of model time, or
// the turbogenerator for 600 s at 1 ms.
fs::path long_scenario(const StopCase& c, const TempDir& dir) {
  if (!c.partitioned)
    return scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 300.0"}});
  const auto file =
      scenario_variant("turbogenerator.toml", dir.path(), {{"t_end = 3.0", "t_end = 600.0"}});
  std::string text = read_file(file);
  for (std::size_t at; (at = text.find("h = 0.06")) != std::string::npos;)
    text.replace(at, 8, "h = 0.001");
  std::ofstream(file) << text;
  return file;
}

class StoppedComponent : public ::testing::TestWithParam<StopCase> {};

TEST_P(StoppedComponent, IsFoundWithinTheBoundAndTheRunExitsThreeNamingIt) {
  const StopCase& c = GetParam();
  TempDir dir;
  const fs::path out = dir / "out";
  std::vector<std::string> args = {"run",
                                   long_scenario(c, dir).string(),
                                   "--method",
                                   c.method,
                                   "--layout",
                                   c.layout,
                                   "--call-timeout",
                                   std::to_string(call_timeout.count()),
                                   "--out",
                                   out.string()};
  if (!c.guarantee.empty()) args.insert(args.end(), {"--guarantee", c.guarantee});
  KausalProcess run(args, dir.path());
  const auto victim = run.component_pid(c.victim);
  ASSERT_TRUE(victim) << c.victim << " not found: " << run.err();
  std::this_thread::sleep_for(1500ms);  // well into the run
  ASSERT_FALSE(run.wait(0ms)) << "the run ended early: " << run.err();
  const auto children = children_of(run.pid());
  const auto stopped_at = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(*victim, SIGSTOP), 0);
  // Found: the monitor ends the process that missed its heartbeat (or, should a call have
  // failed first, every process of the run).
  while (process_exists(*victim) &&
         std::chrono::steady_clock::now() - stopped_at < detection_bound + detection_slack)
    std::this_thread::sleep_for(10ms);
  const auto found = std::chrono::steady_clock::now() - stopped_at;
  const auto code = run.wait(detection_bound + ending_allowance);
  const auto ended = std::chrono::steady_clock::now() - stopped_at;
  ASSERT_TRUE(code) << "no end within " << (detection_bound + ending_allowance).count()
                    << " ms of stopping " << c.victim;
  std::cout << c.name << ": " << c.victim << " stopped; found after "
            << std::chrono::duration<double>(found).count() << " s, run ended after "
            << std::chrono::duration<double>(ended).count() << " s\n";
  EXPECT_LT(found, detection_bound + detection_slack);
  EXPECT_EQ(*code, 3) << run.err();
  bool named = false;
  for (const auto& name : c.hosted()) named = named || run.err().find(name) != std::string::npos;
  EXPECT_TRUE(named) << "the failure does not name " << c.victim << "'s process: " << run.err();
  EXPECT_NE(run.err().find("did not answer within the call timeout"), std::string::npos)
      << run.err();
  EXPECT_EQ(read_json(out / "summary.json")["status"], "failed");
  for (const auto& [pid, cmd] : children) EXPECT_FALSE(process_exists(pid)) << cmd << " left";
}

INSTANTIATE_TEST_SUITE_P(
    Everywhere, StoppedComponent,
    ::testing::Values(
        StopCase{"ChainStepProcess", false, "conservative", "step", "process", "integrator-2"},
        StopCase{"ChainLookaheadProcess", false, "conservative", "lookahead", "process",
                 "system-3"},
        StopCase{"ChainStepPendulum", false, "conservative", "step", "pendulum", "integrator-4"},
        StopCase{"ChainOptimisticProcess", false, "optimistic", "", "process", "integrator-3"},
        StopCase{"ChainOptimisticProcessSystem", false, "optimistic", "", "process", "system-5"},
        StopCase{"ChainOptimisticPendulum", false, "optimistic", "", "pendulum", "integrator-2"},
        StopCase{"PartitionedConservativeProcess", true, "conservative", "", "process",
                 "integrator-turbine"},
        StopCase{"PartitionedConservativePendulum", true, "conservative", "", "pendulum",
                 "system-machine"},
        StopCase{"PartitionedOptimisticProcess", true, "optimistic", "", "process",
                 "system-turbine"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace kausal::testing
