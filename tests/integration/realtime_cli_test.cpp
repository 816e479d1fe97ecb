// Paced runs with real processes: kausal run --realtime and --external-clock, kausal tick
// over the Clock interface, the figures in summary.json, and the options refused.
#include <gtest/gtest.h>
#include <sched.h>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

std::string thesis_for(const fs::path& dir, const std::string& duration) {
  return scenario_variant("thesis.toml", dir, {{"duration = 20.0", "duration = " + duration}})
      .string();
}

// Waits for the run to serve its clock (OUT/clock.ior).
bool clock_served(const fs::path& out, KausalProcess& run) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline && !fs::exists(out / "clock.ior")) {
    if (run.wait(0ms)) return false;
    std::this_thread::sleep_for(20ms);
  }
  return fs::exists(out / "clock.ior");
}

// 10^5 ticks through `kausal tick` release exactly 10^5 steps of a run in component
// processes: the unpaced digest (none skipped, none repeated) and every tick counted.
TEST(RealtimeCli, TicksFromKausalTickReleaseExactlyOneStepEach) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "100.0");  // 10^5 steps
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const fs::path out = dir / "ticked";
  KausalProcess run(
      {"run", thesis, "--method", "conservative", "--guarantee", "lookahead", "--layout", "single",
       "--external-clock", "--trace", "off", "--out", out.string()},
      dir.path());
  ASSERT_TRUE(clock_served(out, run)) << run.err();
  ASSERT_EQ(run_kausal({"tick", out.string(), "--count", "60000"}, dir.path(), &err, 120s), 0)
      << err;
  // The rest until the last step (--all), in a second tick process.
  KausalProcess rest({"tick", out.string(), "--all"}, dir.path());
  ASSERT_EQ(rest.wait(120s), 0) << rest.err();
  EXPECT_NE(rest.out().find("100000 ticks"), std::string::npos) << rest.out();
  ASSERT_EQ(run.wait(120s), 0) << run.err();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["steps"], 100000);
  EXPECT_EQ(summary["trajectory_sha256"],
            read_json(dir / "free/summary.json")["trajectory_sha256"]);
  EXPECT_EQ(summary["realtime"]["clock"], "external");
  EXPECT_EQ(summary["realtime"]["ticks"], 100000);
  EXPECT_EQ(summary["realtime"]["step_s"]["count"], 100000);
  EXPECT_FALSE(fs::exists(out / "clock.ior"));  // withdrawn with the run
  // A tick for a run that has ended: a clear error, no crash.
  EXPECT_EQ(run_kausal({"tick", out.string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("clock.ior"), std::string::npos) << err;
}

// Paced by the wall clock in component processes: the unpaced digest, no sooner than the
// clock allows, the figures in summary.json, and delays counted as overruns.
TEST(RealtimeCli, WallClockPacingKeepsTheDigestAndCountsDelayedSteps) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "0.3");  // 300 steps
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const auto free = read_json(dir / "free/summary.json");
  for (const std::string method : {"conservative", "optimistic"}) {
    const fs::path out = dir / method;
    // 300 steps of 1 ms at factor 0.5: 0.6 s; delays of 3 ms (1.5 periods) at two steps.
    ASSERT_EQ(run_kausal({"run", thesis, "--method", method, "--layout", "pendulum", "--realtime",
                          "0.5", "--skip-feasibility-check", "--delay", "100:0.003", "--delay",
                          "200:0.003", "--out", out.string()},
                         dir.path(), &err),
              0)
        << err;
    const auto summary = read_json(out / "summary.json");
    EXPECT_EQ(summary["trajectory_sha256"], free["trajectory_sha256"]) << method;
    EXPECT_GE(summary["wall_s"].get<double>(), 0.299 * 2) << method;
    const auto& rt = summary["realtime"];
    EXPECT_EQ(rt["clock"], "wall") << method;
    EXPECT_EQ(rt["factor"], 0.5) << method;
    EXPECT_EQ(rt["step_s"]["count"], 300) << method;
    // The two delayed steps at least (a loaded machine may add more).
    EXPECT_GE(rt["overruns"].get<int>(), 2) << method;
    EXPECT_GE(rt["lateness_s"]["max"].get<double>(), 0.0009) << method;
    EXPECT_FALSE(rt["components"].empty()) << method;
  }
}

// SCHED_FIFO can be had here (root or CAP_SYS_NICE): tried on this process and undone.
bool fifo_allowed() {
  sched_param p{};
  p.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO, &p) != 0) return false;
  p.sched_priority = 0;
  sched_setscheduler(0, SCHED_OTHER, &p);
  return true;
}

// --rt-priority: the component processes the monitor starts run under SCHED_FIFO at that
// priority while the run lasts, the summary says so, and the digest is the unpaced one.
TEST(RealtimeCli, RtPriorityRunsTheComponentsUnderSchedFifo) {
  if (!fifo_allowed()) GTEST_SKIP() << "SCHED_FIFO needs root or CAP_SYS_NICE";
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "1.0");  // 1,000 steps: 1 s at factor 1
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const fs::path out = dir / "fifo";
  KausalProcess run({"run", thesis, "--method", "optimistic", "--layout", "pendulum",
                     "--realtime", "1", "--skip-feasibility-check", "--rt-priority", "7",
                     "--out", out.string()},
                    dir.path());
  const auto integrator = run.component_pid("integrator-2", 20s);
  ASSERT_TRUE(integrator) << run.err();
  sched_param param{};
  const int policy = sched_getscheduler(*integrator);
  ASSERT_EQ(sched_getparam(*integrator, &param), 0);
  ASSERT_EQ(run.wait(60s), 0) << run.err();
  EXPECT_EQ(policy, SCHED_FIFO);
  EXPECT_EQ(param.sched_priority, 7);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["realtime"]["rt_priority"], 7);
  EXPECT_EQ(summary["trajectory_sha256"], read_json(dir / "free/summary.json")["trajectory_sha256"]);
  EXPECT_NE(run.out().find("SCHED_FIFO 7"), std::string::npos) << run.out();
}

TEST(RealtimeCli, PacingOptionsThatDoNotFitAreRefused) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "0.1");
  std::string err;
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--realtime", "1", "--external-clock"}, "exclude each other"},
           {{"--release", "spin"}, "paced runs"},
           {{"--delay", "5:0.1"}, "paced runs"},
           {{"--realtime", "1", "--delay", "five:0.1"}, "STEP:SECONDS"},
           {{"--realtime", "-1"}, "--realtime"},
           {{"--realtime", "nan"}, "--realtime"},
           {{"--rt-priority", "5"}, "paced runs"},
           {{"--realtime", "1", "--rt-priority", "0"}, "--rt-priority"},
           {{"--realtime", "1", "--rt-priority", "100"}, "--rt-priority"}}) {
    std::vector<std::string> command{"run", thesis, "--out", (dir / "refused").string()};
    command.insert(command.end(), args.begin(), args.end());
    EXPECT_EQ(run_kausal(command, dir.path(), &err), 2) << args.front();
    EXPECT_NE(err.find(says), std::string::npos) << args.front() << ": " << err;
  }
  EXPECT_EQ(run_kausal({"tick", (dir / "nothing").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("clock.ior"), std::string::npos) << err;
}

}  // namespace
}  // namespace kausal::testing
