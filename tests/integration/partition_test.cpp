// Partitioned models over real processes: a small scenario launched with
// a ProcessDeployment of partitioned_deployment and run by run_partitioned_distributed gives the
// digest of run_partitioned_sequential (conservative and optimistic, in each layout); a partition
// process killed mid-run ends the run with exit code 3 naming it, in bounded time; no child is left
// behind.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "component_client.hpp"
#include "idl/composite_convert.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/deploy/local_deployment.hpp"
#include "monitor/deploy/process_deployment.hpp"
#include "system/composite_model.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

// Two partitions of one pendulum each with different steps (multirate), and one partition
// of two pendulums (a composite of two members on the wire). Until models with inputs land
// the partitions are not coupled. calc_work makes the run last long enough to be killed.
std::string scenario_text(double t_end, double calc_work) {
  std::string pendulum = "model = \"pendulum\"\nparameters = { pivot_x = 0, length = 1, ";
  pendulum += "mass = 1, radius = 0.1, calc_work = " + std::to_string(calc_work) + " }\n";
  std::string text = "[run]\nt_end = " + std::to_string(t_end) + "\n";
  text += "[[subsystem]]\nname = \"a\"\n" + pendulum + "integrator = \"euler\"\nh = 0.001\n";
  text += "[[subsystem]]\nname = \"b\"\n" + pendulum + "integrator = \"euler\"\nh = 0.002\n";
  text += "[[subsystem]]\nname = \"c\"\n" + pendulum;
  text += "[[subsystem]]\nname = \"d\"\n" + pendulum;
  text += "[[partition]]\nname = \"cd\"\nsubsystems = [\"c\", \"d\"]\n";
  text += "integrator = \"euler\"\nh = 0.001\n";
  return text;
}

struct PartitionRun {
  TempDir dir;
  PartitionedScenario scenario;

  explicit PartitionRun(double t_end = 0.5, double calc_work = 0) {
    dir.write("partitioned.toml", scenario_text(t_end, calc_work));
    scenario = load_partitioned_scenario(dir / "partitioned.toml");
  }

  LaunchOptions options(const std::string& layout) const {
    LaunchOptions o;
    o.bin_dir = KAUSAL_BIN_DIR;
    o.log_dir = dir / "logs";
    o.call_timeout_ms = 1000;
    o.layout = parse_layout(layout);
    return o;
  }

  std::string sequential_digest(const PartitionedPlan& plan) const {
    PartitionedRecorder recorder("", scenario, plan);
    RunControl control;
    const RunResult r = run_partitioned_sequential(scenario, plan, control, {nullptr, {&recorder}});
    EXPECT_EQ(r.status, RunStatus::completed) << r.error;
    return r.trajectory_sha256;
  }

  std::unique_ptr<ProcessDeployment> launch(const PartitionedPlan& plan,
                                            const std::string& layout) const {
    const LaunchOptions launch = options(layout);
    return std::make_unique<ProcessDeployment>(
        ComponentPlan{.pairs = partitioned_deployment(scenario, plan)},
        monitor_orb(launch.call_timeout_ms), launch);
  }
  RunResult distributed(const PartitionedPlan& plan, Deployment& deployment) const {
    RunControl control;
    return distributed(plan, deployment, control);
  }

  RunResult distributed(const PartitionedPlan& plan, Deployment& deployment,
                        RunControl& control) const {
    PartitionedRecorder recorder("", scenario, plan);
    const SyncMethod method =
        plan.configs.front().speculate ? SyncMethod::optimistic : SyncMethod::conservative;
    return run_partitioned_distributed(scenario, method, plan, deployment, control,
                                       {nullptr, {&recorder}});
  }
};

// The PIDs of this process's children started with `--name <component>`.
std::vector<pid_t> component_pids() {
  std::vector<pid_t> pids;
  for (const auto& [pid, cmd] : children_of(getpid()))
    if (cmd.find("--name ") != std::string::npos) pids.push_back(pid);
  return pids;
}

std::optional<pid_t> pid_of(const std::string& component) {
  for (const auto& [pid, cmd] : children_of(getpid()))
    if (cmd.find("--name " + component + " ") != std::string::npos) return pid;
  return std::nullopt;
}

struct LayoutCase {
  std::string layout;
  bool speculate;
};

class PartitionLayouts : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(PartitionLayouts, DistributedRunGivesTheSequentialDigest) {
  const LayoutCase c = GetParam();
  PartitionRun run;
  const PartitionedPlan plan = plan_partitions(run.scenario, {c.speculate, 0.0, 1000});
  const std::string expected = run.sequential_digest(plan);
  std::vector<pid_t> pids;
  {
    auto deployment = run.launch(plan, c.layout);
    pids = component_pids();
    const std::size_t processes = c.layout == "process" ? 6 : c.layout == "single" ? 0 : 3;
    EXPECT_EQ(pids.size(), processes);
    const RunResult r = run.distributed(plan, *deployment);
    EXPECT_EQ(r.status, RunStatus::completed) << r.error;
    EXPECT_EQ(r.trajectory_sha256, expected);
    EXPECT_EQ(r.steps, run.scenario.ticks);
    ASSERT_EQ(r.partitions.size(), 3u);
    EXPECT_EQ(r.partitions[0].stats.derivative_calls, run.scenario.partitions[0].steps);
    EXPECT_EQ(r.partitions[1].stats.derivative_calls, run.scenario.partitions[1].steps);
    // Every component reported its timing: the monitor, system-a, integrator-a, ...
    ASSERT_EQ(r.components.size(), 7u);
    EXPECT_EQ(r.components[0].name, "monitor");
    EXPECT_EQ(r.components[1].name, "system-a");
    EXPECT_EQ(r.components[6].name, "integrator-cd");
    for (const auto& component : r.components) {
      EXPECT_TRUE(component.reachable) << component.name;
      EXPECT_GT(component.totals.busy_s, 0.0) << component.name;
    }
  }
  expect_all_gone(pids);
}

INSTANTIATE_TEST_SUITE_P(Partitions, PartitionLayouts,
                         ::testing::Values(LayoutCase{"process", false},
                                           LayoutCase{"process", true},
                                           LayoutCase{"pendulum", false}, LayoutCase{"pair", true},
                                           LayoutCase{"single", false}, LayoutCase{"single", true}),
                         [](const auto& test) {
                           return test.param.layout +
                                  (test.param.speculate ? "_optimistic" : "_conservative");
                         });

class PartitionKill : public ::testing::TestWithParam<std::string> {};

// Tells the test how far the run has committed, and stops it if the test gives up waiting
// (so that a run which missed the kill ends instead of running to t_end).
class WatchedRun : public RunControl {
 public:
  void progress(std::uint64_t step, std::uint64_t /*total*/) override { step_ = step; }
  bool stop_requested() const override { return stop_; }
  std::uint64_t step() const { return step_; }
  void stop() { stop_ = true; }

 private:
  std::atomic<std::uint64_t> step_{0};
  std::atomic<bool> stop_{false};
};

TEST_P(PartitionKill, KilledIntegratorFailsTheRunNamingIt) {
  // Far longer than the test waits on any machine: the kill lands mid-run once the run
  // has committed its first thousand steps, not after a fixed sleep that a fast machine
  // outruns.
  PartitionRun run(1000.0, 2000);
  const PartitionedPlan plan = plan_partitions(run.scenario, {false, 0.0, 1000});
  std::vector<pid_t> pids;
  {
    auto deployment = run.launch(plan, GetParam());
    pids = component_pids();
    const auto victim = pid_of("integrator-b");
    ASSERT_TRUE(victim.has_value());
    WatchedRun watch;
    auto result =
        std::async(std::launch::async, [&] { return run.distributed(plan, *deployment, watch); });
    const auto started = std::chrono::steady_clock::now();
    while (watch.step() < 1000 && std::chrono::steady_clock::now() - started < 20s &&
           result.wait_for(1ms) != std::future_status::ready) {
    }
    ASSERT_EQ(kill(*victim, SIGKILL), 0);
    const auto killed_at = std::chrono::steady_clock::now();
    if (result.wait_for(10s) != std::future_status::ready) {
      watch.stop();
      FAIL() << "the run did not notice the kill";
    }
    const double noticed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
    const RunResult r = result.get();
    EXPECT_EQ(r.status, RunStatus::failed);
    EXPECT_EQ(r.exit_code, ExitCode::peer_failure);
    EXPECT_NE(r.error.find("integrator-b"), std::string::npos) << r.error;
    // The next heartbeat (every 0.5 s) finds the process gone.
    EXPECT_LT(noticed_s, 6.0);
    EXPECT_GT(r.steps, 0u);
    EXPECT_LT(r.steps, run.scenario.ticks);
  }
  expect_all_gone(pids);
}

INSTANTIATE_TEST_SUITE_P(Partitions, PartitionKill, ::testing::Values("process", "pendulum"));

// What a remote System is sent is checked before any model is built: the field is named.
TEST(PartitionRecipe, BadIndicesAreNamed) {
  CompositeRecipe recipe;
  const Parameters p = {{"pivot_x", 0}, {"length", 1}, {"mass", 1}, {"radius", 0.1}};
  recipe.members = {{"a", "pendulum", p, {}}, {"b", "pendulum", p, {}}};
  recipe.links = {{0, 0, 5, 0}};
  try {
    build_composite("system-x", recipe);
    FAIL() << "accepted a link to member 5";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.component(), "system-x");
    EXPECT_NE(e.reason().find("links[0].to"), std::string::npos) << e.reason();
  }
  recipe.links = {};
  recipe.constants = {{1, 0, 1.0}};  // the pendulum has no inputs
  try {
    build_composite("system-x", recipe);
    FAIL() << "accepted a constant for an input that does not exist";
  } catch (const ModelError& e) {
    EXPECT_NE(e.reason().find("constants[0].input"), std::string::npos) << e.reason();
  }
}

// ---- values that arrive over CORBA are checked, never trusted ----

TEST(PartitionWire, SystemChecksWhatArrives) {
  WireComponents w;
  const idl::DoubleSeq x2 = to_seq(std::vector<double>{0.1, 0.2});
  const idl::DoubleSeq none;
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { delete w.system->derivative(0, x2, none); }),
            "");
  const idl::DirectLinkSeq no_links;
  const idl::ConstantInputSeq no_constants;
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(WireComponents::pendulum_member("nope"), no_links,
                                            no_constants, idl::HeldInputSeq{});
            }).find("members[0]"),
            std::string::npos);
  const idl::DirectLinkSeq bad_link = to_idl(std::vector<DirectLink>{{0, 0, 0, 4}});
  EXPECT_NE(reason_of<idl::ModelFailure>([&] {
              w.system->configure_partition(WireComponents::pendulum_member(), bad_link,
                                            no_constants, idl::HeldInputSeq{});
            }).find("links[0].to_input"),
            std::string::npos);
  ASSERT_EQ(
      w.system->configure_partition(WireComponents::pendulum_member(), no_links, no_constants, idl::HeldInputSeq{}), 2u);

  const idl::DoubleSeq x3 = to_seq(std::vector<double>{0.1, 0.2, 0.3});
  const idl::DoubleSeq nan = to_seq(std::vector<double>{0.1, std::nan("")});
  const idl::DoubleSeq u1 = to_seq(std::vector<double>{1.0});
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { delete w.system->derivative(0, x3, none); }), "");
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { delete w.system->derivative(0, nan, none); }), "");
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { delete w.system->derivative(0, x2, u1); }), "");
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { delete w.system->on_crossing(0, 0, x3); }), "");
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { delete w.system->on_crossing(0, 0, x2); }), "");
  idl::DoubleSeq_var dx = w.system->derivative(0, x2, none);
  EXPECT_EQ(dx->length(), 2u);
  idl::DoubleSeq_var J = w.system->jacobian(0, x2, none);
  EXPECT_EQ(J->length(), 4u);
  idl::DoubleSeq_var y = w.system->output(0, x2);
  ASSERT_EQ(y->length(), 2u);
  EXPECT_EQ(y[0], 0.1);
}

TEST(PartitionWire, IntegratorChecksWhatArrives) {
  WireComponents w;
  w.configure_tank();
  idl::ChannelSampleSeq samples = to_idl(std::vector<ChannelSample>{{0, 0, 1.0}});
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { w.integrator->provide(samples); }), "");
  EXPECT_EQ(w.integrator->statistics().steps_computed, 0u);

  auto refused = [&](const idl::IntegratorSetup& setup) {
    return reason_of<idl::ModelFailure>([&] { w.integrator->set_up(setup); });
  };
  const IntegratorConfig good = w.tank_config();
  EXPECT_NE(refused(to_idl(good, idl::System::_nil())).find("sys"), std::string::npos);
  idl::IntegratorSetup setup = to_idl(good, w.system.in());
  setup.name = "someone-else";
  EXPECT_NE(refused(setup).find("name"), std::string::npos);
  setup = to_idl(good, w.system.in());
  setup.method = "leapfrog";
  EXPECT_NE(refused(setup).find("method"), std::string::npos);
  setup = to_idl(good, w.system.in());
  setup.blocks.length(1);
  setup.blocks[0].name = "a";
  setup.blocks[0].offset = 1;
  setup.blocks[0].size = 1;
  EXPECT_NE(refused(setup).find("blocks[0]"), std::string::npos);
  setup = to_idl(good, w.system.in());
  setup.channels[0].hold = 7;
  EXPECT_NE(refused(setup).find("hold"), std::string::npos);
  setup = to_idl(good, w.system.in());
  setup.tick = std::nan("");
  EXPECT_NE(refused(setup).find("tick"), std::string::npos);

  w.integrator->set_up(to_idl(good, w.system.in()));
  samples[0].channel = 3;
  EXPECT_NE(reason_of<idl::ProtocolViolation>([&] { w.integrator->provide(samples); }), "");
  samples[0].channel = 0;
  samples[0].value = std::nan("");
  EXPECT_NE(reason_of<idl::ModelFailure>([&] { w.integrator->provide(samples); }), "");
  EXPECT_NE(reason_of<idl::ProtocolViolation>(
                [&] { w.integrator->start(idl::StateSink::_nil(), 8, 4, ~0ULL); }),
            "");
}

}  // namespace
}  // namespace kausal::testing
