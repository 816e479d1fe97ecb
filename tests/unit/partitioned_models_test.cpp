// The benchmark models B–E run end to end through scenarios, partitions, couplings and the
// drivers, against answers that do not come from the code under test: the exact step
// response table of docs/benchmarks.md, matrix exponentials, and SUNDIALS CVODE on the coupled
// model.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <unsupported/Eigen/MatrixFunctions>

#include "common/errors.hpp"
#include "reference/cvode_reference.hpp"
#include "reference/exact_linear_response.hpp"
#include "tests/unit/partitioned_runs.hpp"

namespace kausal {
namespace {

using testing::distributed;
using testing::monolithic_reference;
using testing::Outcome;
using testing::sequential;
using testing::times_of;
using testing::two_mass_matrix;
using testing::variant;
using testing::worst_relative_error;

// ---- B: three orifices ----

struct TableRow {
  double t, p1, p2;
};
// docs/benchmarks.md B, exact step response (printed digits).
const TableRow kTableB[] = {{0.001, 1.960532, 0.00038434},  {0.010, 16.484304, 0.00329084},
                            {0.025, 31.607347, 0.00631726}, {0.050, 43.236204, 0.00864443},
                            {0.100, 49.088759, 0.00981564}, {0.200, 49.988211, 0.00999564},
                            {0.300, 50.004692, 0.00999894}};

// 1e-6 relative, but never tighter than half a unit of the last printed digit.
void expect_matches_table(double got, double printed, double last_digit) {
  EXPECT_NEAR(got, printed, std::max(1e-6 * std::abs(printed), 0.5 * last_digit));
}

void check_against_table_b(const Outcome& o) {
  int checked = 0;
  for (const auto& row : kTableB) {
    for (const auto& r : o.rows) {
      if (std::abs(r[0] - row.t) > 1e-9) continue;
      expect_matches_table(r[1], row.p1, 1e-6);
      expect_matches_table(r[2], row.p2, 1e-8);
      ++checked;
    }
  }
  EXPECT_GE(checked, 5);
}

TEST(BenchmarkB, Dre0MatchesTheExactStepResponseAtOneAndTenMilliseconds) {
  const Outcome fine = sequential(variant("orifices-dre0.toml"));
  ASSERT_EQ(fine.result.status, RunStatus::completed) << fine.result.error;
  check_against_table_b(fine);
  const Outcome coarse = sequential(
      variant("orifices-dre0.toml",
              {{"h = 0.001", "h = 0.01"}, {"output_interval = 0.001", "output_interval = 0.01"}}));
  ASSERT_EQ(coarse.result.status, RunStatus::completed) << coarse.result.error;
  check_against_table_b(coarse);
}

PartitionedScenario orifices_euler(const std::string& h, const std::string& t_end) {
  return variant("orifices-dre0.toml", {{"t_end = 0.3", "t_end = " + t_end},
                                        {"output_interval = 0.001", "output_interval = " + h},
                                        {"integrator = \"dre0\"", "integrator = \"euler\""},
                                        {"h = 0.001", "h = " + h}});
}

TEST(BenchmarkB, EulerIsStableBelowTwoOverFiftyThousandTenAndNotAbove) {
  // 2 / 50010 = 3.9992e-5 s. Whole numbers of steps: 7700 × 3.9e-5, 7325 × 4.1e-5.
  const Outcome stable = sequential(orifices_euler("3.9e-5", "0.3003"));
  ASSERT_EQ(stable.result.status, RunStatus::completed) << stable.result.error;
  EXPECT_NEAR(stable.rows.back()[1], 50.0047, 1e-3);
  EXPECT_NEAR(stable.rows.back()[2], 0.0099989, 1e-6);
  const Outcome unstable = sequential(orifices_euler("4.1e-5", "0.300325"));
  // The fast mode's factor |1 − 50010 h| = 1.05 per step: 1.05^7325 overflows.
  const bool blew_up =
      unstable.result.status == RunStatus::failed || std::abs(unstable.rows.back()[2]) > 1e6;
  EXPECT_TRUE(blew_up) << unstable.result.status;
}

TEST(BenchmarkB, Pdre0OneEquationPerPartitionIsStableWithAOneStepLagOnP2) {
  const Outcome o = sequential(variant("orifices-pdre0.toml"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  EXPECT_NEAR(o.rows.back()[1], 50.005, 0.01);
  // Chamber 2 relaxes within a step (e^{−50010·0.01} = 0) to the quasi-static value of the
  // p1 it held: p2 at step i+1 is 10·p1(step i)/50010 — the lag of the coupling.
  for (std::size_t i = 1; i < o.rows.size(); ++i)
    EXPECT_NEAR(o.rows[i][2], 10 * o.rows[i - 1][1] / 50010, 1e-12) << "row " << i;
  // The same lag is its error against the exact answer: larger than DRE0's, visible.
  const double exact_p2 = 0.00329084;  // table, t = 10 ms
  EXPECT_GT(std::abs(o.rows[1][2] - exact_p2), 1e-4);
}

// ---- C: turbogenerator ----

// Machine and turbine as two partitions, or (one_partition) as one.
PartitionedScenario turbogenerator(const std::string& method, const std::string& h,
                                   const std::string& t_end = "3.0", bool one_partition = false) {
  const std::string own = one_partition ? "" : "integrator = \"" + method + "\"\nh = " + h + "\n";
  std::vector<std::pair<std::string, std::string>> edits = {
      {"t_end = 3.0", "t_end = " + t_end},
      {"output_interval = 0.06", "output_interval = 0.3"},
      {"integrator = \"pdre0\"\nh = 0.06\n", own},
      {"integrator = \"pdre0\"\nh = 0.06\n", own}};
  if (one_partition)
    edits.push_back({"[[coupling]]",
                     "[[partition]]\nname = \"all\"\nsubsystems = [\"machine\", "
                     "\"turbine\"]\nintegrator = \"" +
                         method + "\"\nh = " + h + "\n\n[[coupling]]"});
  return variant("turbogenerator.toml", edits);
}

TEST(BenchmarkC, EulerIsFineAtTenMillisecondsAndUnstableAtThirty) {
  // One partition (monolithic Euler, as in Clemens' table); 15 s so that the instability
  // at 30 ms has time to grow (its factor per step is 1.012).
  const Outcome ten = sequential(turbogenerator("euler", "0.01", "15.0", true));
  const Outcome thirty = sequential(turbogenerator("euler", "0.03", "15.0", true));
  ASSERT_EQ(ten.result.status, RunStatus::completed) << ten.result.error;
  // Over the scenario's 3 s (the load change), ω within 5 % of its range of CVODE's.
  const Outcome first = sequential(turbogenerator("euler", "0.01", "3.0", true));
  const auto ref =
      monolithic_reference(turbogenerator("euler", "0.01", "3.0", true), times_of(first));
  EXPECT_LT(worst_relative_error(first, ref, 1), 0.05);
  double late_ten = 0, late_thirty = 0;
  for (std::size_t i = ten.rows.size() / 2; i < ten.rows.size(); ++i)
    late_ten = std::max(late_ten, std::abs(ten.rows[i][2]));
  for (std::size_t i = thirty.rows.size() / 2; i < thirty.rows.size(); ++i)
    late_thirty = std::max(late_thirty, std::abs(thirty.rows[i][2]));
  EXPECT_LT(late_ten, 0.05);
  EXPECT_TRUE(thirty.result.status == RunStatus::failed || late_thirty > 10 * late_ten + 0.5)
      << late_thirty;
}

TEST(BenchmarkC, Dre0AndPdre0AreStableAtSixtyMillisecondsAndDre0IsCloser) {
  const Outcome dre0 = sequential(turbogenerator("dre0", "0.06", "3.0", true));
  const Outcome pdre0 = sequential(turbogenerator("pdre0", "0.06", "3.0", false));
  ASSERT_EQ(dre0.result.status, RunStatus::completed) << dre0.result.error;
  ASSERT_EQ(pdre0.result.status, RunStatus::completed) << pdre0.result.error;
  const auto ref =
      monolithic_reference(turbogenerator("dre0", "0.06", "3.0", true), times_of(dre0));
  double dre0_error = 0, pdre0_error = 0;
  for (std::size_t state = 0; state < 5; ++state) {
    dre0_error = std::max(dre0_error, worst_relative_error(dre0, ref, state));
    pdre0_error = std::max(pdre0_error, worst_relative_error(pdre0, ref, state));
  }
  EXPECT_LT(pdre0_error, 0.5);  // stable: bounded, the right shape
  EXPECT_LT(dre0_error, pdre0_error);
}

// Conservative and optimistic, both with the rollback check, give the sequential run's digest.
void expect_conservative_and_optimistic_give(const PartitionedScenario& s, const Outcome& seq) {
  for (const bool speculate : {false, true}) {
    PartitionedMode mode;
    mode.speculate = speculate;
    mode.rollback_check = true;
    EXPECT_EQ(distributed(s, mode).result.trajectory_sha256, seq.result.trajectory_sha256)
        << (speculate ? "optimistic" : "conservative");
  }
}

// DRE1 beside DRE0 (docs/model.md §4): the load change is a ramp, which DRE1 follows and
// DRE0 holds over each step, and pDRE1's ramp also carries each partition's view of the
// other's change across the step: both closer to the reference at 60 ms than their DRE0
// counterparts. pDRE1's memory goes into the state lists: the distributed runs give its bits.
TEST(BenchmarkC, Dre1AndPdre1AreCloserThanDre0AndPdre0AtSixtyMilliseconds) {
  const auto worst = [](const Outcome& o, const std::vector<Vector>& ref) {
    double e = 0;
    for (std::size_t state = 0; state < 5; ++state)
      e = std::max(e, worst_relative_error(o, ref, state));
    return e;
  };
  const Outcome dre0 = sequential(turbogenerator("dre0", "0.06", "3.0", true));
  const Outcome dre1 = sequential(turbogenerator("dre1", "0.06", "3.0", true));
  const Outcome pdre0 = sequential(turbogenerator("pdre0", "0.06", "3.0", false));
  const PartitionedScenario split = turbogenerator("pdre1", "0.06", "3.0", false);
  const Outcome pdre1 = sequential(split);
  for (const Outcome* o : {&dre0, &dre1, &pdre0, &pdre1})
    ASSERT_EQ(o->result.status, RunStatus::completed) << o->result.error;
  const auto ref =
      monolithic_reference(turbogenerator("dre0", "0.06", "3.0", true), times_of(dre0));
  EXPECT_LT(worst(dre1, ref), worst(dre0, ref));
  EXPECT_LT(worst(pdre1, ref), worst(pdre0, ref));
  expect_conservative_and_optimistic_give(split, pdre1);
}

// The hardware-in-the-loop texts' eigenvalue jump (−5 → −1000 /s at t = 1 s) at the 10 ms
// the hardware keeps: a partition on RK4 blows up after the jump, one on the combined solver
// switches to backward Euler there and decays as the model does, under every method with one
// digest (the choice is a function of the state, so rollbacks repeat it).
TEST(HardwareInTheLoop, TheCombinedSolverKeepsTheEigenvalueJumpStable) {
  const auto jump = [](const std::string& integrator) {
    return parse_partitioned_scenario(
        "[run]\nt_end = 2.0\noutput_interval = 0.5\n[[subsystem]]\nname = \"lag\"\n"
        "model = \"eigenvalue_jump\"\ninputs = { u = 0 }\nintegrator = \"" +
            integrator + "\"\nh = 0.01\n",
        "jump.toml");
  };
  const Outcome rk4 = sequential(jump("rk4"));
  const bool blew_up =
      rk4.result.status == RunStatus::failed || std::abs(rk4.rows.back()[1]) > 1e10;
  EXPECT_TRUE(blew_up) << rk4.result.status;
  // The combined solver and the sub-steps within the frame (rk4-substeps) both keep it.
  for (const char* integrator : {"combined", "rk4-substeps"}) {
    const PartitionedScenario s = jump(integrator);
    const Outcome kept = sequential(s);
    ASSERT_EQ(kept.result.status, RunStatus::completed) << integrator << kept.result.error;
    EXPECT_NEAR(kept.rows[2][1], std::exp(-5.0), 1e-8) << integrator;  // t = 1: RK4's steps
    EXPECT_LT(std::abs(kept.rows.back()[1]), 1e-60) << integrator;
    expect_conservative_and_optimistic_give(s, kept);
  }
}

// ---- D: fast/slow hydraulic drive ----

TEST(BenchmarkD, MultirateRatioThreeOnTwoPartitionsIsWithinOnePercent) {
  const PartitionedScenario s = variant("hydraulic-multirate.toml");
  ASSERT_EQ(s.partitions[0].ticks_per_step * 3, s.partitions[1].ticks_per_step);
  const Outcome o = distributed(s, {});
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  const auto ref = monolithic_reference(s, times_of(o));
  // states: valve spool, spool velocity | p1, p2, position, velocity, integral
  EXPECT_LT(worst_relative_error(o, ref, 4), 0.01);  // piston position
  EXPECT_LT(worst_relative_error(o, ref, 2), 0.01);  // chamber pressure
  EXPECT_EQ(o.result.trajectory_sha256, sequential(s).result.trajectory_sha256);
}

// ---- E: two-mass oscillator ----

double coupling_error(int hold, const std::string& h) {
  const PartitionedScenario s =
      variant("two-mass.toml", {{"hold = 1", "hold = " + std::to_string(hold)},
                                {"h = 0.001", "h = " + h},
                                {"h = 0.001", "h = " + h},
                                {"output_interval = 0.01", "output_interval = 0.02"}});
  const Outcome o = sequential(s);
  if (o.result.status != RunStatus::completed) return INFINITY;
  return testing::two_mass_position_error(o);
}

TEST(BenchmarkE, HigherHoldOrderGivesASmallerCouplingError) {
  for (const std::string h : {"0.001", "0.002", "0.004"}) {
    const double e0 = coupling_error(0, h), e1 = coupling_error(1, h), e2 = coupling_error(2, h);
    EXPECT_GT(e0, e1) << "h = " << h;
    EXPECT_GT(e1, e2) << "h = " << h;
    EXPECT_GT(e2, 0.0);
  }
  // and a shorter communication step helps every order
  EXPECT_LT(coupling_error(0, "0.001"), coupling_error(0, "0.004"));
  EXPECT_LT(coupling_error(2, "0.001"), coupling_error(2, "0.004"));
}

// ---- the worked example of docs/adding-a-model.md ----

TEST(WorkedExample, TwoTanksSettleAtTorricellisLevelsAndFollowCvode) {
  const PartitionedScenario s = variant("two-tanks.toml");
  const Outcome o = sequential(s);
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  // Steady state: outflow = inflow = 0.02 m³/s, so h = (q / (a √(2g)))².
  auto level = [](double q, double a) { return std::pow(q / (a * std::sqrt(2 * 9.81)), 2); };
  EXPECT_NEAR(o.rows.back()[1], level(0.02, 0.01), 1e-6);
  EXPECT_NEAR(o.rows.back()[2], level(0.02, 0.015), 1e-6);
  const auto ref = monolithic_reference(s, times_of(o));
  EXPECT_LT(worst_relative_error(o, ref, 0), 0.01);
  EXPECT_LT(worst_relative_error(o, ref, 1), 0.01);
}

// ---- a discrete component among continuous ones ----

TEST(DiscreteController, HoldsTheLowerTankAtEachSetpointUnderEveryMethod) {
  const PartitionedScenario s = variant("tank-control.toml");
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  // Rows: t, upper.level, lower.level, controller.integral, controller.command.
  auto row_at = [&](const Outcome& o, double t) {
    for (const auto& row : o.rows)
      if (std::abs(row[0] - t) < 1e-9) return row;
    ADD_FAILURE() << "no row at t = " << t;
    return std::vector<double>(5, 0.0);
  };
  // Settled before the setpoint step (0.15 m) and at the end (0.25 m): the integral is then
  // the inflow that holds the level, Torricelli's outflow of the lower tank.
  auto outflow = [](double level) { return 0.015 * std::sqrt(2 * 9.81 * level); };
  EXPECT_NEAR(row_at(seq, 590)[2], 0.15, 2e-3);
  EXPECT_NEAR(seq.rows.back()[2], 0.25, 1e-3);
  EXPECT_NEAR(seq.rows.back()[3], outflow(0.25), 1e-3);
  // The controller really acts: without it (inflow 0) the tanks stay empty.
  EXPECT_GT(row_at(seq, 100)[1], 0.05);
  // The discrete partition is rolled back like any other, and the result is the same.
  const Outcome opt = distributed(s, {true, 0, 16});
  ASSERT_EQ(opt.result.status, RunStatus::completed) << opt.result.error;
  EXPECT_EQ(opt.result.trajectory_sha256, seq.result.trajectory_sha256);
  std::uint64_t rollbacks = 0;
  for (const auto& p : opt.result.partitions) rollbacks += p.stats.rollbacks;
  EXPECT_GT(rollbacks, 0U);
}

// ---- every method on every shipped partitioned scenario ----

TEST(PartitionedMethods, SequentialConservativeAndOptimisticGiveOneDigestAtToleranceZero) {
  for (const std::string name :
       {"orifices-dre0.toml", "orifices-pdre0.toml", "turbogenerator.toml",
        "hydraulic-multirate.toml", "two-mass.toml", "two-tanks.toml", "tank-control.toml"}) {
    const PartitionedScenario s = variant(name);
    const Outcome seq = sequential(s);
    ASSERT_EQ(seq.result.status, RunStatus::completed) << name << ": " << seq.result.error;
    const Outcome cons = distributed(s, {false, 0, 1000});
    const Outcome opt = distributed(s, {true, 0, 16});
    EXPECT_EQ(cons.result.trajectory_sha256, seq.result.trajectory_sha256) << name;
    EXPECT_EQ(opt.result.trajectory_sha256, seq.result.trajectory_sha256) << name;
    EXPECT_EQ(opt.rows, seq.rows) << name;
  }
}

// ∫ ‖e^{At} b‖∞ dt over [0, T] for every input column b: the most a bounded input error of
// size 1 on each input can move the state of a stable linear system (the L1 norm of its
// impulse response), by the trapezoidal rule on a fine grid.
double impulse_response_gain(const Matrix& A, const Matrix& B, double T) {
  const double dt = 1e-3;
  const Matrix step = (A * dt).exp();
  Matrix response = B;  // e^{At} B at t = 0
  double gain = 0;
  for (double t = 0; t < T; t += dt) {
    const Matrix next = step * response;
    for (Eigen::Index c = 0; c < B.cols(); ++c)
      gain +=
          0.5 * dt * (response.col(c).cwiseAbs().maxCoeff() + next.col(c).cwiseAbs().maxCoeff());
    response = next;
  }
  return gain;
}

TEST(PartitionedMethods, AToleranceBoundsTheDifferenceToSequential) {
  const PartitionedScenario s = variant("two-mass.toml", {{"t_end = 5.0", "t_end = 2.0"}});
  const Outcome seq = sequential(s);
  // Inputs x_other, v_other of each mass enter its acceleration as kc·x_o + dc·v_o.
  Matrix B = Matrix::Zero(4, 4);
  B(1, 0) = 100;  // mass1 ← x2
  B(1, 1) = 1;    // mass1 ← v2
  B(3, 2) = 100;  // mass2 ← x1
  B(3, 3) = 1;    // mass2 ← v1
  const double gain = impulse_response_gain(two_mass_matrix(), B, 2.0);
  for (const double tolerance : {1e-3, 1e-5}) {
    const Outcome opt = distributed(s, {true, tolerance, 64});
    ASSERT_EQ(opt.result.status, RunStatus::completed) << opt.result.error;
    double kept = 0, accepted = 0;
    for (const auto& p : opt.result.partitions) {
      kept = std::max(kept, p.stats.max_accepted_error);
      accepted += static_cast<double>(p.stats.accepted_predictions);
    }
    EXPECT_LE(kept, tolerance);
    EXPECT_GT(accepted, 0);
    double worst = 0;
    for (std::size_t i = 0; i < seq.rows.size(); ++i)
      for (std::size_t k = 1; k < seq.rows[i].size(); ++k)
        worst = std::max(worst, std::abs(opt.rows[i][k] - seq.rows[i][k]));
    // Every kept input is within the tolerance of the real one, so the state moves at most
    // by the impulse-response gain times it (10 % for the integrator's own rounding).
    EXPECT_LE(worst, 1.1 * gain * tolerance) << "tolerance " << tolerance;
  }
}

// ---- scenario checks ----

TEST(PartitionedScenario, MistakesNameTheFileLineAndField) {
  auto message = [](const std::string& name, const std::string& from, const std::string& to) {
    try {
      variant(name, {{from, to}});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("two-mass.toml", "oscillator_mass", "oscilator_mass")
                .find("unknown model 'oscilator_mass'"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "k = 10.0", "kk = 10.0").find("unknown parameter 'kk'"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "from = \"mass1.x\"", "from = \"mass1.y\"")
                .find("has no output 'y'"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "to = \"mass2.x_other\"", "to = \"mass2.v_other\"")
                .find("driven twice"),
            std::string::npos);
  // Newton's settings: only for an implicit integrator, each within its range.
  const std::string implicit = "integrator = \"backward_euler\"\n";
  EXPECT_NE(message("two-mass.toml", "integrator = \"rk4\"",
                    "integrator = \"rk4\"\nnewton_iterations = 3")
                .find("newton_iterations applies to the implicit integrators"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "integrator = \"rk4\"\n", implicit + "newton_iterations = 0\n")
                .find("subsystem[1].newton_iterations must be 1 to 1000"),
            std::string::npos);
  EXPECT_NE(
      message("two-mass.toml", "integrator = \"rk4\"\n", implicit + "newton_tolerance = 2.0\n")
          .find("newton_tolerance must lie between 0 and 1"),
      std::string::npos);
  EXPECT_NE(
      message("two-mass.toml", "integrator = \"rk4\"\n", implicit + "newton_at_limit = \"hope\"\n")
          .find("newton_at_limit must be \"fail\" or \"accept\""),
      std::string::npos);
  EXPECT_EQ(message("two-mass.toml", "integrator = \"rk4\"\n",
                    implicit + "newton_iterations = 3\nnewton_at_limit = \"accept\"\n"),
            "accepted");
  EXPECT_NE(message("two-mass.toml", "integrator = \"rk4\"", "integrator = \"rk5\"")
                .find("unknown integrator 'rk5'"),
            std::string::npos);
  EXPECT_NE(
      message("hydraulic-multirate.toml", "h = 0.0003", "h = 0.00025").find("not a whole multiple"),
      std::string::npos);
  EXPECT_NE(message("orifices-pdre0.toml", "inputs = { p_up = 100.0 }", "").find("not connected"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "hold = 1", "hold = 3").find("must be 0, 1 or 2"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "t_end = 5.0", "t_end = 5.0005").find("whole number of steps"),
            std::string::npos);
  EXPECT_NE(message("two-mass.toml", "[run]", "[run]\nspeed = 1").find("two-mass.toml:"),
            std::string::npos);
  // A model that steps itself (the sampled controller) needs the "co-simulation" integrator,
  // and that integrator steps nothing else.
  EXPECT_NE(message("tank-control.toml", "integrator = \"co-simulation\"", "integrator = \"rk4\"")
                .find("subsystem 'controller' steps itself: set integrator = \"co-simulation\""),
            std::string::npos);
  EXPECT_NE(message("tank-control.toml", "integrator = \"rk4\"", "integrator = \"co-simulation\"")
                .find("partition 'upper': integrator \"co-simulation\" steps a model that steps "
                      "itself"),
            std::string::npos);
}

}  // namespace
}  // namespace kausal
