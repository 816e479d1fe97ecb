// The co-simulation master (monitor/sync/cosim_master.hpp) and the predictors of sample
// channels, on benchmark E (two-mass oscillator, exact solution) and D (hydraulic drive):
// against the exact or the monolithic CVODE answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/errors.hpp"
#include "reference/exact_linear_response.hpp"
#include "tests/unit/partitioned_runs.hpp"

namespace kausal {
namespace {

using testing::master;
using testing::Outcome;
using testing::times_of;
using testing::two_mass_matrix;
using testing::variant;

// Benchmark E under a master table given as text (replacing the shipped one's).
PartitionedScenario two_mass(const std::string& master_table, const std::string& run_extra = "",
                             const std::string& hold = "2") {
  const std::string shipped_master =
      "[master]\nstep = 0.01\nmin_step = 0.001\nmax_step = 0.05\nexchange = \"gauss-seidel\"\n"
      "iterations = 4\nerror_control = true\nrtol = 1e-3\natol = 1e-5\nsync_points = [2.5]\n";
  return variant("two-mass-master.toml", {{shipped_master, master_table},
                                          {"hold = 2\nchoose_order = true\nsmooth = true\n",
                                           "hold = " + hold + "\n" + run_extra}});
}

TEST(Master, GaussSeidelIsNoLessAccurateThanJacobiAtEqualStep) {
  for (const std::string step : {"0.002", "0.005", "0.01"})
    for (const std::string hold : {"0", "1"}) {
      const auto table = [&](const std::string& exchange) {
        return "[master]\nstep = " + step + "\nexchange = \"" + exchange + "\"\n";
      };
      const Outcome jacobi = master(two_mass(table("jacobi"), "", hold));
      const Outcome gauss_seidel = master(two_mass(table("gauss-seidel"), "", hold));
      ASSERT_EQ(jacobi.result.status, RunStatus::completed) << jacobi.result.error;
      ASSERT_EQ(gauss_seidel.result.status, RunStatus::completed) << gauss_seidel.result.error;
      EXPECT_LE(testing::two_mass_position_error(gauss_seidel),
                testing::two_mass_position_error(jacobi))
          << "step " << step << ", hold " << hold;
      EXPECT_EQ(jacobi.result.cosimulation->macro_steps,
                static_cast<std::uint64_t>(std::llround(5.0 / std::stod(step))));
    }
}

TEST(Master, ConcurrentJacobiGivesTheBitsOfTheSequentialMaster) {
  const PartitionedScenario s = two_mass("[master]\nstep = 0.01\n", "choose_order = true\n");
  const Outcome in_turn = master(s, false);
  const Outcome at_once = master(s, true);
  ASSERT_EQ(in_turn.result.status, RunStatus::completed) << in_turn.result.error;
  EXPECT_EQ(in_turn.result.trajectory_sha256, at_once.result.trajectory_sha256);
  EXPECT_EQ(in_turn.rows, at_once.rows);
}

TEST(Master, IterationConvergesToTheCoupledAnswerAndCostsPasses) {
  const std::string base = "[master]\nstep = 0.01\nexchange = \"jacobi\"\n";
  const Outcome once = master(two_mass(base, "", "0"));
  const Outcome iterated =
      master(two_mass(base + "iterations = 20\nrtol = 1e-9\natol = 1e-12\n", "", "0"));
  ASSERT_EQ(iterated.result.status, RunStatus::completed) << iterated.result.error;
  EXPECT_GT(iterated.result.cosimulation->extra_passes, 0u);
  EXPECT_GT(iterated.result.counters.rollbacks, 0u);
  // Converged Jacobi at 10 ms is far nearer the exact answer than one pass with held inputs.
  EXPECT_LT(testing::two_mass_position_error(iterated),
            testing::two_mass_position_error(once) / 10);
}

TEST(Master, AStepThatDoesNotConvergeIsHalvedAndNeverAcceptedSilently) {
  // Two passes cannot meet 1e-14: every step is halved down to the smallest, then the run fails.
  const Outcome o = master(
      two_mass("[master]\nstep = 0.008\nmin_step = 0.002\nexchange = \"jacobi\"\niterations = 2\n"
               "rtol = 1e-14\natol = 1e-16\n"));
  EXPECT_EQ(o.result.status, RunStatus::failed);
  EXPECT_NE(o.result.error.find("did not converge"), std::string::npos) << o.result.error;
  EXPECT_NE(o.result.error.find("0.002 s"), std::string::npos) << o.result.error;
  EXPECT_EQ(o.result.cosimulation->halvings, 2u);  // 8 ms -> 4 ms -> 2 ms
  EXPECT_EQ(o.result.cosimulation->macro_steps, 0u);
  EXPECT_EQ(o.rows.size(), 1u);  // only the start: nothing unconverged was recorded

  // With a tolerance it can meet after halving, it halves and completes.
  const Outcome halved = master(
      two_mass("[master]\nstep = 0.04\nmin_step = 0.001\nexchange = \"jacobi\"\niterations = 3\n"
               "rtol = 1e-5\natol = 1e-7\n"));
  ASSERT_EQ(halved.result.status, RunStatus::completed) << halved.result.error;
  EXPECT_GT(halved.result.cosimulation->halvings, 0u);
  EXPECT_LT(halved.result.cosimulation->max_step_s, 0.04);
}

TEST(Master, ErrorControlAdaptsTheStepAndRejectsStepsAboveTheTolerance) {
  const Outcome o = master(
      two_mass("[master]\nstep = 0.05\nmin_step = 0.001\nmax_step = 0.1\nerror_control = true\n"
               "rtol = 1e-3\natol = 1e-6\n"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  const CosimulationFigures& f = *o.result.cosimulation;
  EXPECT_GT(f.rejected_steps, 0u);  // 50 ms is far too long for this coupling at the start
  EXPECT_LT(f.min_step_s, f.max_step_s);
  EXPECT_GE(f.min_step_s, 0.001 - 1e-12);
  EXPECT_LE(f.max_step_s, 0.1 + 1e-12);
  // A tighter tolerance takes more, shorter steps and a smaller error.
  const Outcome tight = master(
      two_mass("[master]\nstep = 0.05\nmin_step = 0.001\nmax_step = 0.1\nerror_control = true\n"
               "rtol = 1e-5\natol = 1e-8\n"));
  ASSERT_EQ(tight.result.status, RunStatus::completed) << tight.result.error;
  EXPECT_GT(tight.result.cosimulation->macro_steps, f.macro_steps);
  EXPECT_LT(testing::two_mass_position_error(tight), testing::two_mass_position_error(o));
}

TEST(Master, SynchronisationPointsAreCommunicationPoints) {
  // 30 ms steps from 0 would pass 0.1 s; the point forces a step to end there.
  const Outcome o = master(two_mass("[master]\nstep = 0.03\nsync_points = [0.1, 0.35]\n"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  // 0..0.09 (3), 0.09..0.1, 0.1..0.34 (8), 0.34..0.35, then 0.35..5 in 155 steps of 30 ms.
  EXPECT_EQ(o.result.cosimulation->macro_steps, 3u + 1 + 8 + 1 + 155);
  EXPECT_NEAR(o.result.cosimulation->min_step_s, 0.01, 1e-12);
}

TEST(Master, HermiteSmoothingRemovesEveryInputJump) {
  const std::string table = "[master]\nstep = 0.01\n";
  const Outcome held = master(two_mass(table, "", "0"));
  const Outcome smooth = master(two_mass(table, "smooth = true\n", "0"));
  const Outcome chosen = master(two_mass(table, "smooth = true\nchoose_order = true\n", "2"));
  ASSERT_EQ(smooth.result.status, RunStatus::completed) << smooth.result.error;
  EXPECT_GT(held.result.cosimulation->input_discontinuities, 400u * 4);
  EXPECT_EQ(smooth.result.cosimulation->input_discontinuities, 0u);
  EXPECT_EQ(chosen.result.cosimulation->input_discontinuities, 0u);
  EXPECT_GT(smooth.result.cosimulation->predictions_of_order[3], 0u);  // the cubic blends
}

TEST(Master, AReceiverThatAcceptsOrderOneGetsAffineInputs) {
  PartitionedScenario s = two_mass("[master]\nstep = 0.01\n", "smooth = true\n", "2");
  for (auto& c : s.couplings) c.accepts = 1;
  const Outcome o = master(s);
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  const auto& orders = o.result.cosimulation->predictions_of_order;
  EXPECT_EQ(orders[2] + orders[3], 0u);
  EXPECT_GT(orders[1], 0u);
}

TEST(Master, TheOrderChosenPerCouplingFollowsTheSignal) {
  const std::string table = "[master]\nstep = 0.01\n";
  const Outcome fixed0 = master(two_mass(table, "", "0"));
  const Outcome chosen = master(two_mass(table, "choose_order = true\n", "2"));
  ASSERT_EQ(chosen.result.status, RunStatus::completed) << chosen.result.error;
  // The oscillation is smooth: extrapolating beats holding, so orders above 0 are chosen.
  const auto& orders = chosen.result.cosimulation->predictions_of_order;
  EXPECT_GT(orders[1] + orders[2], orders[0]);
  EXPECT_LT(testing::two_mass_position_error(chosen), testing::two_mass_position_error(fixed0));
}

TEST(Master, MasterScenarioMistakesNameTheLine) {
  auto message = [](const std::string& table) {
    try {
      two_mass(table);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string off_grid = message("[master]\nstep = 0.0015\n");
  EXPECT_NE(
      off_grid.find("two-mass-master.toml:10: master.step must be a whole multiple of 0.001 s"),
      std::string::npos)
      << off_grid;
  EXPECT_NE(message("[master]\nstep = 0.01\nexchange = \"gauss\"\n").find("master.exchange"),
            std::string::npos);
  EXPECT_NE(message("[master]\nstep = 0.01\nmax_step = 0.005\n").find("master.step must lie"),
            std::string::npos);
  EXPECT_NE(message("[master]\nstep = 0.01\nsafety = 1.5\n").find("master.safety"),
            std::string::npos);
  EXPECT_NE(message("[master]\nstep = 0.01\nsync_points = [1.0, 0.5]\n").find("ascending"),
            std::string::npos);
  EXPECT_NE(message("[master]\nstep = 0.01\nstpe = 1\n").find("unknown key 'master.stpe'"),
            std::string::npos);
  EXPECT_NE(message("[master]\nmin_step = 0.01\n").find("missing field master.step"),
            std::string::npos);
}

// ---- sample channels with predictors, under the optimistic method ----

// Optimistic at a tolerance: how many rollbacks each predictor causes.
RunResult optimistic(const std::string& hold, const std::string& extra) {
  PartitionedScenario s = variant("two-mass.toml", {{"hold = 1\n", "hold = " + hold + "\n" + extra},
                                                    {"t_end = 5.0", "t_end = 2.0"}});
  PartitionedMode mode;
  mode.speculate = true;
  // 0.3 mm: order 0 misses it at almost every sample, order 2 almost never
  mode.tolerance = 3e-4;
  return testing::distributed(s, mode).result;
}

// The share of the predictions the real samples refuted. (Not the rollbacks: how many
// predictions a run makes depends on how far its partitions got ahead of each other's
// samples, which is timing; how good each one is does not.)
double refuted_share(const RunResult& r) {
  double made = 0, kept = 0;
  for (const PartitionSummary& p : r.partitions) {
    made += static_cast<double>(p.stats.predictions);
    kept += static_cast<double>(p.stats.accepted_predictions);
  }
  EXPECT_GT(made, 0) << "no predictions: nothing to compare";
  return made > 0 ? (made - kept) / made : 0;
}

TEST(SamplePredictors, RefutationsFallAsTheOrderRisesOnASmoothSignal) {
  const RunResult r0 = optimistic("0", ""), r1 = optimistic("1", ""), r2 = optimistic("2", "");
  const RunResult chosen = optimistic("2", "choose_order = true\n");
  for (const RunResult* r : {&r0, &r1, &r2, &chosen})
    ASSERT_EQ(r->status, RunStatus::completed) << r->error;
  // (About 0.91, 0.4 and 0.002 of them when this was written.)
  const double s0 = refuted_share(r0), s1 = refuted_share(r1), s2 = refuted_share(r2);
  EXPECT_GT(s0, s1);
  EXPECT_GT(s1, s2);
  EXPECT_LT(refuted_share(chosen), s0);
}

TEST(SamplePredictors, EveryMethodGivesOneDigestWithAChosenOrderAndSmoothing) {
  const PartitionedScenario s =
      variant("two-mass.toml", {{"hold = 1\n",
                                 "hold = 2\nchoose_order = true\nsmooth = true\n"
                                 "calibration = \"least-squares\"\n"},
                                {"t_end = 5.0", "t_end = 1.0"}});
  const Outcome seq = testing::sequential(s);
  PartitionedMode optimistic;
  optimistic.speculate = true;
  const Outcome opt = testing::distributed(s, optimistic);
  const Outcome cons = testing::distributed(s, {});
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  EXPECT_EQ(seq.result.trajectory_sha256, opt.result.trajectory_sha256);
  EXPECT_EQ(seq.result.trajectory_sha256, cons.result.trajectory_sha256);
  // and it is a different coupling from the plain hold
  EXPECT_NE(seq.result.trajectory_sha256,
            testing::sequential(variant("two-mass.toml", {{"t_end = 5.0", "t_end = 1.0"}}))
                .result.trajectory_sha256);
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// The steps of a component whose work was rolled back (its trace's rollback spans), as times.
std::vector<double> rolled_back_times(const RunResult& r, const std::string& component, double h) {
  std::set<std::uint64_t> steps;
  for (const ComponentReport& c : r.components)
    if (c.name == component)
      for (const ActivitySpan& s : c.spans)
        if (s.kind == ActivityKind::rollback && s.tag.step != ActivityTrace::untagged)
          steps.insert(s.tag.step);
  std::vector<double> times;
  for (std::uint64_t step : steps) times.push_back(static_cast<double>(step) * h);
  return times;
}

TEST(SamplePredictors, RollbacksClusterWhereTheInputJumps) {
  // Benchmark D with its setpoint as a step at 50 ms: the drive's command to the valve jumps
  // there and is smooth elsewhere. The valve predicts the command (order chosen up to 2). The
  // drive is made slow (artificial work per Calc, about 3 ms), so that the valve always runs
  // ahead on predictions, whatever the machine's timing: in a Debug ASan build under a full
  // load a fifth of that left the valve no faster than the drive, and so without rollbacks.
  const PartitionedScenario s = testing::variant(
      "hydraulic-multirate.toml",
      {{"hold = 0", "hold = 2\nchoose_order = true"},
       {"t_end = 0.6", "t_end = 0.15"},
       {"model = \"load\"\n",
        "model = \"load\"\nparameters = { ref_ramp = 0.0, calc_work = 1000000 }\n"}});
  PartitionedMode mode;
  mode.speculate = true;
  mode.tolerance = 1e-3;
  const RunResult r = testing::distributed(s, mode).result;
  ASSERT_EQ(r.status, RunStatus::completed) << r.error;
  const std::vector<double> times = rolled_back_times(r, "integrator-valve", 1e-4);
  ASSERT_FALSE(times.empty());
  // Within 5 ms after the jump (a fifteenth of the run) against the rest.
  const auto near = static_cast<double>(
      std::count_if(times.begin(), times.end(), [](double t) { return t >= 0.05 && t <= 0.055; }));
  const double far = static_cast<double>(times.size()) - near;
  std::printf("rolled-back valve steps: %zu, %.0f within 5 ms after the jump\n", times.size(),
              near);
  EXPECT_GT(near / 0.005, 10 * far / 0.145);  // ten times as dense near the jump
}

}  // namespace
}  // namespace kausal
