// kausal run / compare / analyze / models on partitioned models, with real component
// processes: every method and layout gives the sequential digest of a coupled model, the
// tolerance is reported, bad input exits 2, a killed partition exits 3 and keeps what was
// final.
#include <gtest/gtest.h>

#include <signal.h>
#include <cmath>

#include <thread>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

TEST(PartitionedCli, CoupledMultirateModelGivesTheSequentialDigestInEveryLayout) {
  TempDir dir;
  const std::string s = scenario("hydraulic-multirate.toml");
  const auto seq = run_summary({"run", s, "--out", (dir / "seq").string()}, dir.path());
  ASSERT_EQ(seq["partitions"].size(), 2u);
  EXPECT_EQ(seq["partitions"][0]["h"], 0.0001);
  EXPECT_EQ(seq["partitions"][1]["h"], 0.0003);
  for (const std::string layout : {"process", "pendulum", "single"}) {
    for (const std::string method : {"conservative", "optimistic"}) {
      const auto r = run_summary({"run", s, "--method", method, "--layout", layout, "--out",
                                  (dir / (method + "-" + layout)).string()},
                                 dir.path());
      EXPECT_EQ(r["status"], "completed") << method << " " << layout;
      EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << method << " " << layout;
      EXPECT_EQ(r["layout"], layout);
      // Every sample went from Integrator to Integrator (the direct data path): each way
      // one per 0.3 ms of the 0.6 s and the first, 24 bytes each, in one call or more.
      const std::uint64_t samples = 2 * (2000 + 1);
      EXPECT_EQ(r["direct_bytes"].get<std::uint64_t>(), 24 * samples) << method << " " << layout;
      EXPECT_GE(r["direct_calls"].get<std::uint64_t>(), 2u);
      EXPECT_LE(r["direct_calls"].get<std::uint64_t>(), samples);
      // The monitor, System and Integrator of each partition reported, busy while the run
      // went on.
      ASSERT_EQ(r["components"].size(), 5u);
      EXPECT_EQ(r["components"][0]["name"], "monitor");
      for (const auto& c : r["components"]) EXPECT_GT(c["busy_s"].get<double>(), 0) << c["name"];
    }
  }
  EXPECT_EQ(read_file(dir / "seq/trajectory.csv"),
            read_file(dir / "optimistic-process/trajectory.csv"));
}

TEST(PartitionedCli, OptimisticReportsItsToleranceAndStaysWithinItsBound) {
  TempDir dir;
  const std::string s = scenario("two-mass.toml");
  const auto seq = run_summary({"run", s, "--out", (dir / "seq").string()}, dir.path());
  const auto opt = run_summary({"run", s, "--method", "optimistic", "--tolerance", "1e-6",
                                "--layout", "pendulum", "--out", (dir / "opt").string()},
                               dir.path());
  EXPECT_EQ(opt["tolerance"], 1e-6);
  std::uint64_t rollbacks = 0, kept = 0;
  for (const auto& p : opt["partitions"]) {
    rollbacks += p["rollbacks"].get<std::uint64_t>();
    kept += p["accepted_predictions"].get<std::uint64_t>();
    EXPECT_LE(p["max_accepted_error"].get<double>(), 1e-6);
  }
  EXPECT_GT(kept, 0u);
  EXPECT_EQ(opt["rollbacks"], rollbacks);
  // Measured across processes: the Calc calls of rolled-back steps (RK4, no events: every
  // call beyond the sequential run's), the state lists' peak, the wait per Calc.
  EXPECT_EQ(opt["wasted_calc_calls"].get<std::uint64_t>(),
            opt["calc_calls"].get<std::uint64_t>() - seq["calc_calls"].get<std::uint64_t>());
  EXPECT_EQ(opt["wasted_calc_calls"].get<std::uint64_t>(),
            4 * opt["rolled_back_steps"].get<std::uint64_t>());
  EXPECT_GT(opt["state_list_peak"].get<std::uint64_t>(), 1u);
  EXPECT_GT(opt["calc_cost_us"].get<double>(), 0.0);
  for (const char* chain_only : {"collisions", "stale_batches", "batch_size", "rounds"})
    EXPECT_FALSE(opt.contains(chain_only)) << chain_only;
  // The sequential run is one thread, busy throughout: one busy span, not an empty strip.
  ASSERT_EQ(seq["components"].size(), 1u);
  EXPECT_EQ(seq["components"][0]["role"], "sequential");
  EXPECT_EQ(seq["components"][0]["trace_spans"], 1);
  EXPECT_GT(seq["calc_cost_us"].get<double>(), 0.0);
  // Positions within a micrometre of the sequential run (the in-process test derives the
  // bound; here the same holds over processes).
  std::ifstream a(dir / "seq/trajectory.csv"), b(dir / "opt/trajectory.csv");
  std::string la, lb;
  std::getline(a, la);
  std::getline(b, lb);
  EXPECT_EQ(la, lb);  // header
  double worst = 0;
  while (std::getline(a, la) && std::getline(b, lb)) {
    std::stringstream sa(la), sb(lb);
    std::string va, vb;
    while (std::getline(sa, va, ',') && std::getline(sb, vb, ','))
      worst = std::max(worst, std::abs(std::stod(va) - std::stod(vb)));
  }
  EXPECT_LT(worst, 1e-3);
}

// --rollback-check on a partitioned model, over processes: every step of every partition is
// taken twice, the second time from what its state list restored (the multistep memory
// included: AB4's three derivatives in one partition, the P(EC)²E pair of order 3 in the
// other); the digest stays the sequential one and the f evaluations double.
TEST(PartitionedCli, TheRollbackCheckRestepsEveryPartitionFromItsStateList) {
  TempDir dir;
  std::string text = read_file(scenario("two-mass.toml"));
  for (const std::string method : {"\"ab4\"", "\"abm3-pec2e\""})
    text.replace(text.find("\"rk4\""), 5, method);
  const fs::path file = dir / "adams.toml";
  std::ofstream(file) << text;
  const auto seq = run_summary({"run", file.string(), "--out", (dir / "seq").string()}, dir.path());
  auto calls = [](const nlohmann::json& r) {
    std::uint64_t n = 0;
    for (const auto& p : r["partitions"]) n += p["derivative_calls"].get<std::uint64_t>();
    return n;
  };
  const auto plain = run_summary(
      {"run", file.string(), "--method", "conservative", "--out", (dir / "plain").string()},
      dir.path());
  for (const std::string method : {"conservative", "optimistic"}) {
    const auto r = run_summary({"run", file.string(), "--method", method, "--rollback-check",
                                "--out", (dir / method).string()},
                               dir.path());
    EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << method;
    if (method == "conservative") {
      EXPECT_EQ(calls(r), 2 * calls(plain));
    }
  }
  KausalProcess sequential({"run", file.string(), "--rollback-check"}, dir.path());
  EXPECT_EQ(sequential.wait(30s), 2);
}

TEST(PartitionedCli, TheScenarioNamesTheMethodUnlessTheCommandLineDoes) {
  TempDir dir;
  const auto s = scenario_variant("orifices-pdre0.toml", dir.path(),
                                  {{"hold = 0", "hold = 0\nmethod = \"conservative\""}});
  EXPECT_EQ(run_summary({"run", s.string(), "--out", (dir / "a").string()}, dir.path())["method"],
            "conservative");
  EXPECT_EQ(
      run_summary({"run", s.string(), "--method", "sequential", "--out", (dir / "b").string()},
                  dir.path())["method"],
      "sequential");
}

TEST(PartitionedCli, CompareRunsTheThreeMethodsAndWritesTheReport) {
  TempDir dir;
  std::string err;
  KausalProcess p({"compare", scenario("orifices-pdre0.toml"), "--layout", "pendulum", "--out",
                   (dir / "cmp").string()},
                  dir.path());
  ASSERT_EQ(p.wait(100s), 0) << p.err();
  for (const std::string m : {"sequential", "conservative", "optimistic"})
    EXPECT_EQ(read_json(dir / "cmp" / m / "summary.json")["status"], "completed") << m;
  EXPECT_NE(p.out().find("optimistic"), std::string::npos) << p.out();
  EXPECT_TRUE(fs::exists(dir / "cmp/report.html"));
  // Every chart drawn: the utilisation timelines need no pendulums.
  EXPECT_EQ(p.err().find("report:"), std::string::npos) << p.err();
  for (const std::string m : {"sequential", "conservative", "optimistic"})
    EXPECT_TRUE(fs::exists(dir / "cmp" / ("timeline-" + m + ".png"))) << m;
}

TEST(PartitionedCli, AnalyzePrintsEveryPartitionAndWarnsOnStrongCoupling) {
  TempDir dir;
  KausalProcess p({"analyze", scenario("turbogenerator.toml")}, dir.path());
  ASSERT_EQ(p.wait(30s), 0) << p.err();
  const std::string out = p.out();
  EXPECT_NE(out.find("machine"), std::string::npos) << out;
  EXPECT_NE(out.find("turbine"), std::string::npos) << out;
  EXPECT_NE(out.find("warning: partition machine: coupling ratio"), std::string::npos) << out;
  // The load of each partition (measured: what it says depends on the host, not its shape).
  EXPECT_NE(out.find("load: each partition's step alone on one CPU"), std::string::npos) << out;
  EXPECT_NE(out.find("\nmachine "), std::string::npos) << out;
  EXPECT_NE(out.find("\nturbine "), std::string::npos) << out;
  EXPECT_NE(out.find("advice: side by side the partitions can go at most"), std::string::npos)
      << out;
  KausalProcess weak({"analyze", scenario("orifices-pdre0.toml")}, dir.path());
  ASSERT_EQ(weak.wait(30s), 0);
  EXPECT_EQ(weak.out().find("warning"), std::string::npos) << weak.out();  // κ = 0.5, 0.0002
  // Later in the run: the tanks, stiff while empty, are gentle when half full.
  // (one process at a time)
  KausalProcess empty({"analyze", scenario("two-tanks.toml")}, dir.path());
  ASSERT_EQ(empty.wait(30s), 0);
  EXPECT_NE(empty.out().find("exceeds the rk4 stability limit"), std::string::npos) << empty.out();
  KausalProcess filled({"analyze", scenario("two-tanks.toml"), "--at", "300"}, dir.path());
  ASSERT_EQ(filled.wait(30s), 0) << filled.err();
  EXPECT_EQ(filled.out().find("exceeds"), std::string::npos) << filled.out();
  EXPECT_NE(filled.out().find("at t = 300"), std::string::npos) << filled.out();
  KausalProcess off_grid({"analyze", scenario("two-tanks.toml"), "--at", "300.5"}, dir.path());
  EXPECT_EQ(off_grid.wait(30s), 2);
  // Along the run: the one row over the limit is the first (t = 0), and the samples fall
  // from 3.23 (upper, 1 s against 0.3095 s) below 0.02.
  KausalProcess along({"analyze", scenario("two-tanks.toml"), "--along"}, dir.path());
  ASSERT_EQ(along.wait(30s), 0) << along.err();
  EXPECT_NE(along.out().find("upper      rk4         1    0.309474          0       1"),
            std::string::npos)
      << along.out();
  EXPECT_NE(along.out().find("0    3.23"), std::string::npos) << along.out();
  EXPECT_NE(along.out().find("600  0.0176"), std::string::npos) << along.out();
  KausalProcess both({"analyze", scenario("two-tanks.toml"), "--along", "--at", "300"}, dir.path());
  EXPECT_EQ(both.wait(30s), 2);
  // RK4 partitions are judged by RK4's stability region: two-mass's undamped oscillations
  // would break Euler at any step, RK4 is stable at its 1 ms.
  KausalProcess rk4({"analyze", scenario("two-mass.toml")}, dir.path());
  ASSERT_EQ(rk4.wait(30s), 0) << rk4.err();
  EXPECT_NE(rk4.out().find("rk4"), std::string::npos) << rk4.out();
  EXPECT_EQ(rk4.out().find("exceeds"), std::string::npos) << rk4.out();
  EXPECT_EQ(rk4.out().find("Euler"), std::string::npos) << rk4.out();
  KausalProcess chain({"analyze", scenario("thesis.toml")}, dir.path());
  EXPECT_EQ(chain.wait(30s), 2);
}

// --modes: benchmark D's drive (hydraulic-clemens, 7 states) in real modal form, cut into its
// slow drive and its fast valve between |lambda| 1.41 and 1440 /s; the groups need fewer
// operations per simulated second than the model as it is. A K the model cannot take is exit 2
// before anything is printed.
TEST(PartitionedCli, AnalyzeModesSplitsTheModelByFrequencyAndCountsItsCost) {
  TempDir dir;
  KausalProcess p({"analyze", scenario("hydraulic-clemens.toml"), "--modes", "2"}, dir.path());
  ASSERT_EQ(p.wait(30s), 0) << p.err();
  const std::string out = p.out();
  EXPECT_NE(out.find("modes: the Jacobian in real modal form"), std::string::npos) << out;
  EXPECT_NE(out.find("1 oscillating pair, 5 real modes"), std::string::npos) << out;
  EXPECT_NE(out.find("group 1       4       5"), std::string::npos) << out;
  EXPECT_NE(out.find("group 2       2       2"), std::string::npos) << out;
  EXPECT_NE(out.find("the groups need 6.09× fewer operations"), std::string::npos) << out;
  EXPECT_NE(out.find("fit: a step took about"), std::string::npos) << out;
  KausalProcess too_many({"analyze", scenario("two-tanks.toml"), "--modes", "3"}, dir.path());
  EXPECT_EQ(too_many.wait(30s), 2);
  EXPECT_EQ(too_many.out(), "");
  EXPECT_NE(too_many.err().find("the model has 2 modes"), std::string::npos) << too_many.err();
  KausalProcess along({"analyze", scenario("two-tanks.toml"), "--modes", "1", "--along"},
                      dir.path());
  EXPECT_EQ(along.wait(30s), 2);
}

// Over a working range: the upper tank's levels 0.1 .. 2 m in 4 points, the lower tank empty.
// The upper tank's eigenvalue is -a g / (A sqrt(2 g h)), fastest at the lowest level: Euler's
// limit there is 2 / |lambda|, RK4 stays within it at h = 1 everywhere; the lower tank, empty,
// exceeds its RK4 limit at h = 0.5 at every point. Bad ranges are exit 2.
TEST(PartitionedCli, AnalyzeOverAWorkingRangeGivesEachIntegratorsSmallestLimit) {
  TempDir dir;
  KausalProcess p({"analyze", scenario("two-tanks.toml"), "--range", "upper.level=0.1:2:4"},
                  dir.path());
  ASSERT_EQ(p.wait(30s), 0) << p.err();
  const std::string out = p.out();
  EXPECT_NE(out.find("over a working range: 4 points (upper.level 0.1 .. 2 in 4;"),
            std::string::npos)
      << out;
  const double g = 9.81, lambda = 0.01 * g / std::sqrt(2 * g * 0.1);
  const std::size_t euler = out.find("\neuler ");
  ASSERT_NE(euler, std::string::npos) << out;
  EXPECT_NEAR(std::stod(out.substr(euler + 7)), 2 / lambda, 1e-3) << out;
  EXPECT_NE(out.find("upper.level = 0.1 "), std::string::npos) << out;
  const std::size_t upper = out.find("\nupper "), lower = out.find("\nlower ");
  ASSERT_NE(upper, std::string::npos);
  ASSERT_NE(lower, std::string::npos);
  EXPECT_NE(out.substr(upper, out.find('\n', upper + 1) - upper).find("0 of 4"), std::string::npos)
      << out;
  EXPECT_NE(out.substr(lower, out.find('\n', lower + 1) - lower).find("4 of 4"), std::string::npos)
      << out;
  for (const std::string bad : {"upper.x=1:2", "upper.level=2:1", "upper.level=1:2:0", "level"}) {
    KausalProcess refused({"analyze", scenario("two-tanks.toml"), "--range", bad}, dir.path());
    EXPECT_EQ(refused.wait(30s), 2) << bad;
    EXPECT_NE(refused.err().find("--range"), std::string::npos) << refused.err();
  }
}

TEST(PartitionedCli, ModelsListsAndDescribes) {
  TempDir dir;
  KausalProcess all({"models"}, dir.path());
  ASSERT_EQ(all.wait(30s), 0);
  for (const std::string m : {"orifice_chamber", "synchronous_machine", "turbine", "actuator",
                              "load", "oscillator_mass", "water_tank", "pendulum"})
    EXPECT_NE(all.out().find(m), std::string::npos) << m;
  KausalProcess one({"models", "oscillator_mass"}, dir.path());
  ASSERT_EQ(one.wait(30s), 0);
  EXPECT_NE(one.out().find("inputs   x_other, v_other"), std::string::npos) << one.out();
  KausalProcess unknown({"models", "nope"}, dir.path());
  EXPECT_EQ(unknown.wait(30s), 2);
  // Every integrator a scenario may name, with its stability limits: each row is
  // "name order kind calls keeps decay oscillation".
  KausalProcess integrators({"models", "--integrators"}, dir.path());
  ASSERT_EQ(integrators.wait(30s), 0) << integrators.err();
  for (const std::string row : {"ab4             4", "am3             3", "abm4-pec3e      4"})
    EXPECT_NE(integrators.out().find(row), std::string::npos) << row << "\n" << integrators.out();
  EXPECT_NE(integrators.out().find("0.5455           0.7236"), std::string::npos)  // ab3
      << integrators.out();
  KausalProcess both({"models", "--integrators", "oscillator_mass"}, dir.path());
  EXPECT_EQ(both.wait(30s), 2);
}

// A step beyond a partition's stability limit at the start: an unpaced run warns, naming the
// partition, its h and the limit, and goes on (its values grow: that is what it was told).
// Newton's settings reach the Integrator processes: a cap of 2 iterations fails the run
// naming the partition; with newton_at_limit = "accept" the run completes and counts the steps
// that took the capped iterate, conservative in processes with the sequential digest.
TEST(PartitionedCli, NewtonsCapFailsTheRunOrIsAcceptedAndCounted) {
  TempDir dir;
  const std::string capped = "integrator = \"backward_euler\"\nnewton_iterations = 2\n";
  const auto failing = scenario_variant("two-tanks.toml", dir.path(),
                                        {{"integrator = \"rk4\"\nh = 1.0", capped + "h = 1.0"},
                                         {"integrator = \"rk4\"\nh = 0.5", capped + "h = 0.5"}});
  KausalProcess fails({"run", failing.string(), "--out", (dir / "fails").string()}, dir.path());
  EXPECT_EQ(fails.wait(30s), 1);
  EXPECT_NE(fails.err().find("Newton did not converge in 2 iterations"), std::string::npos)
      << fails.err();
  const std::string accepting = capped + "newton_at_limit = \"accept\"\n";
  TempDir other;
  const auto file = scenario_variant("two-tanks.toml", other.path(),
                                     {{"integrator = \"rk4\"\nh = 1.0", accepting + "h = 1.0"},
                                      {"integrator = \"rk4\"\nh = 0.5", accepting + "h = 0.5"}});
  const auto seq = run_summary({"run", file.string(), "--out", (dir / "seq").string()}, dir.path());
  const auto con = run_summary(
      {"run", file.string(), "--method", "conservative", "--out", (dir / "con").string()},
      dir.path());
  EXPECT_EQ(con["trajectory_sha256"], seq["trajectory_sha256"]);
  for (const auto& p : con["partitions"]) {
    EXPECT_EQ(p["integrator"], "backward_euler");
    EXPECT_GT(p["newton_limit_steps"].get<std::uint64_t>(), 0u) << p.dump();
  }
}

TEST(PartitionedCli, AnUnstableStepIsWarnedAboutAndTheRunGoesOn) {
  TempDir dir;
  const auto big = scenario_variant("two-mass.toml", dir.path(),
                                    {{"h = 0.001\n\n[[coupling]]", "h = 0.1\n\n[[coupling]]"},
                                     {"t_end = 5.0", "t_end = 1.0"},
                                     {"output_interval = 0.01", "output_interval = 0.1"}});
  KausalProcess p({"run", big.string(), "--out", (dir / "big").string()}, dir.path());
  EXPECT_EQ(p.wait(30s), 0) << p.err();
  EXPECT_NE(p.err().find("warning: mass2: h = 0.1 s exceeds the rk4 stability limit 0.0869"),
            std::string::npos)
      << p.err();
  EXPECT_EQ(p.err().find("mass1"), std::string::npos) << p.err();  // stable at its 1 ms
  KausalProcess fine({"run", scenario("two-mass.toml"), "--out", (dir / "fine").string()},
                     dir.path());
  EXPECT_EQ(fine.wait(30s), 0) << fine.err();
  EXPECT_EQ(fine.err().find("warning"), std::string::npos) << fine.err();
}

// integrator = "auto" over processes: the stiff chamber steps with backward Euler, the slow
// one with RK4, the summary says why, and a conservative run gives the sequential digest.
TEST(PartitionedCli, AutoChoosesEachPartitionsIntegratorAndSaysWhy) {
  TempDir dir;
  const auto file = scenario_variant(
      "orifices-pdre0.toml", dir.path(),
      {{"p_up = 100.0 }\nintegrator = \"pdre0\"", "p_up = 100.0 }\nintegrator = \"auto\""},
       {"p_down = 0.0 }\nintegrator = \"pdre0\"", "p_down = 0.0 }\nintegrator = \"auto\""}});
  const auto seq = run_summary({"run", file.string(), "--out", (dir / "seq").string()}, dir.path());
  const auto con = run_summary(
      {"run", file.string(), "--method", "conservative", "--out", (dir / "con").string()},
      dir.path());
  ASSERT_EQ(seq["partitions"].size(), 2u) << seq.dump();
  EXPECT_EQ(seq["partitions"][0]["integrator"], "rk4");
  EXPECT_EQ(seq["partitions"][1]["integrator"], "backward_euler");
  EXPECT_NE(seq["partitions"][1]["integrator_choice"].get<std::string>().find("decay"),
            std::string::npos);
  EXPECT_EQ(con["trajectory_sha256"], seq["trajectory_sha256"]);
}

TEST(PartitionedCli, MistakesExitTwoNamingWhatIsWrong) {
  TempDir dir;
  const auto bad = scenario_variant("two-mass.toml", dir.path(),
                                    {{"kc = 100.0, dc = 1.0, x0", "kc = -100.0, dc = 1.0, x0"}});
  KausalProcess p({"run", bad.string(), "--out", (dir / "x").string()}, dir.path());
  EXPECT_EQ(p.wait(30s), 2);
  EXPECT_NE(p.err().find("parameter 'kc'"), std::string::npos) << p.err();
  EXPECT_NE(p.err().find("mass1"), std::string::npos) << p.err();
  KausalProcess tol({"run", scenario("two-mass.toml"), "--tolerance", "1e-3"}, dir.path());
  EXPECT_EQ(tol.wait(30s), 2);  // --tolerance without --method optimistic
  KausalProcess chain({"run", scenario("thesis.toml"), "--tolerance", "1e-3"}, dir.path());
  EXPECT_EQ(chain.wait(30s), 2);  // no tolerance for pendulum chains
  KausalProcess lookahead(
      {"run", scenario("two-mass.toml"), "--method", "conservative", "--guarantee", "lookahead"},
      dir.path());
  EXPECT_EQ(lookahead.wait(30s), 2);
}

TEST(PartitionedCli, AKilledPartitionEndsTheRunWithExitThreeAndKeepsWhatWasFinal) {
  TempDir dir;
  // Long enough to be killed mid-run: the turbogenerator for 600 s at 1 ms, conservative.
  const auto long_run = scenario_variant(
      "turbogenerator.toml", dir.path(),
      {{"t_end = 3.0", "t_end = 600.0"}, {"output_interval = 0.06", "output_interval = 0.06"}});
  std::string text = read_file(long_run);
  for (std::size_t at; (at = text.find("h = 0.06")) != std::string::npos;)
    text.replace(at, 8, "h = 0.001");
  std::ofstream(long_run) << text;
  const fs::path out = dir / "run";
  KausalProcess run({"run", long_run.string(), "--method", "conservative", "--call-timeout", "1000",
                     "--out", out.string()},
                    dir.path());
  const auto victim = run.component_pid("integrator-turbine");
  ASSERT_TRUE(victim);
  std::this_thread::sleep_for(1500ms);
  const auto children = children_of(run.pid());
  ASSERT_EQ(kill(*victim, SIGKILL), 0);
  const auto code = run.wait(15s);
  ASSERT_TRUE(code) << "no end within 15 s of the kill";
  EXPECT_EQ(*code, 3) << run.err();
  EXPECT_NE(run.err().find("integrator-turbine"), std::string::npos) << run.err();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_GT(summary["steps"].get<std::uint64_t>(), 0u);
  EXPECT_GT(read_file(out / "trajectory.csv").size(), 100u);  // what was final is on disk
  for (const auto& [pid, cmd] : children) EXPECT_NE(kill(pid, 0), 0) << cmd << " still running";
}

}  // namespace
}  // namespace kausal::testing
