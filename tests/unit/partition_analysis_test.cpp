#include "monitor/analysis/partition_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "monitor/analysis/load_balance.hpp"
#include "monitor/analysis/modal_split.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"

namespace kausal {
namespace {

const Matrix b_matrix{{-40, 20}, {10, -50010}};

std::vector<PartitionStepping> euler_steps(std::initializer_list<double> h) {
  std::vector<PartitionStepping> out;
  for (double step : h) out.push_back({OdeMethod::euler, step});
  return out;
}

TEST(PartitionAnalysis, OneChamberPerPartitionOfB) {
  const auto report =
      analyze_partitions(b_matrix, {{"p1", 0, 1}, {"p2", 1, 1}}, euler_steps({0.01, 0.01}));
  ASSERT_EQ(report.partitions.size(), 2u);
  const auto& p1 = report.partitions[0];
  const auto& p2 = report.partitions[1];
  EXPECT_EQ(p1.stiffness, 1.0);
  EXPECT_EQ(p2.stiffness, 1.0);
  EXPECT_NEAR(p1.coupling_ratio, 0.5, 1e-15);
  EXPECT_NEAR(p2.coupling_ratio, 10.0 / 50010, 1e-15);
  EXPECT_NEAR(p2.coupling_ratio, 0.0002, 1e-6);
  EXPECT_NEAR(p1.h_max, 2.0 / 40, 1e-12);
  EXPECT_FALSE(p1.h_exceeds_limit);
  EXPECT_TRUE(p2.h_exceeds_limit);  // 10 ms against 2/50010
  EXPECT_FALSE(report.any_warning());
}

// A partition stepped by an exponential method is told how its A_D is summed: kausal's fixed
// series after its halvings, and what Clemens' unscaled series would take (docs/benchmarks.md C).
TEST(PartitionAnalysis, AnExponentialPartitionIsToldHowItsSeriesIsSummed) {
  const auto report = analyze_partitions(b_matrix, {{"p1", 0, 1}, {"p2", 1, 1}},
                                         {{OdeMethod::pdre0, 0.01}, {OdeMethod::pdre1, 0.01}});
  const auto& p1 = report.partitions[0];
  const auto& p2 = report.partitions[1];
  EXPECT_EQ(p1.halvings, 0);   // 40 · 0.01 = 0.4
  EXPECT_EQ(p2.halvings, 10);  // 500.1 → 0.49
  ASSERT_EQ(p2.unscaled_terms.size(), 3u);
  ASSERT_TRUE(p1.unscaled_terms[2] && p2.unscaled_terms[2]);
  EXPECT_LT(p1.unscaled_terms[2]->error, 1e-12);
  EXPECT_GT(p2.unscaled_terms[2]->error, 1.0);
  const std::string text = format_partition_report(report);
  EXPECT_NE(text.find("note: partition p2: A_D = h·φ1(hA) in 14 terms after 10 halvings of h "
                      "(33 matrix products); Clemens' unscaled series to ε = 0.0001, 1e-08, "
                      "1e-12 takes "),
            std::string::npos)
      << text;
  EXPECT_FALSE(
      analyze_partitions(b_matrix, {{"p1", 0, 2}}, euler_steps({1e-5})).partitions[0].halvings);
}

TEST(PartitionAnalysis, WholeSystemOfB) {
  const auto report = analyze_partitions(b_matrix, {{"chambers", 0, 2}}, euler_steps({1e-5}));
  const auto& all = report.partitions.front();
  EXPECT_NEAR(all.stiffness, 1250, 1);
  EXPECT_NEAR(all.h_max, 2.0 / 50010, 1e-9);
  EXPECT_EQ(all.coupling_ratio, 0.0);  // nothing outside
  EXPECT_FALSE(all.h_exceeds_limit);
  EXPECT_EQ(all.undamped, 0u);
}

TEST(PartitionAnalysis, StrongCouplingWarns) {
  // Each state driven by the other three times as strongly as it decays.
  const Matrix J{{-1, 3}, {3, -1}};
  const auto report = analyze_partitions(J, {{"a", 0, 1}, {"b", 1, 1}}, {});
  EXPECT_NEAR(report.partitions[0].coupling_ratio, 3, 1e-15);
  EXPECT_TRUE(report.partitions[0].warning);
  EXPECT_TRUE(report.any_warning());
  const auto text = format_partition_report(report);
  EXPECT_NE(text.find("warning: partition a: coupling ratio 3 >= 1"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: partition b:"), std::string::npos) << text;
}

TEST(PartitionAnalysis, SingularBlockAndUndampedModes) {
  // A frictionless oscillator (purely imaginary pair) driven by a pure integrator.
  const Matrix J{{0, 1, 0}, {-4, 0, 1}, {0, 0, 0}};
  const auto report =
      analyze_partitions(J, {{"osc", 0, 2}, {"int", 2, 1}}, euler_steps({0.1, 0.1}));
  const auto& osc = report.partitions[0];
  const auto& integ = report.partitions[1];
  EXPECT_EQ(osc.undamped, 2u);
  EXPECT_EQ(osc.zero_real_parts, 2u);
  EXPECT_EQ(osc.h_max, 0.0);  // Euler grows an undamped oscillation at any h
  EXPECT_EQ(osc.unstable, 0u);
  EXPECT_NEAR(osc.coupling_ratio, 0.25, 1e-15);  // A_ii⁻¹ [0; 1] = [−0.25; 0]
  EXPECT_EQ(integ.coupling_ratio, 0.0);          // singular, but nothing drives it
  EXPECT_EQ(integ.undamped, 0u);                 // a zero eigenvalue is neutral
  const Matrix K{{0, 1}, {0, -1}};               // singular block, driven: κ infinite
  const auto driven = analyze_partitions(K, {{"z", 0, 1}, {"w", 1, 1}}, {});
  EXPECT_TRUE(std::isinf(driven.partitions[0].coupling_ratio));
  EXPECT_TRUE(driven.partitions[0].warning);
}

TEST(PartitionAnalysis, TableIsAligned) {
  const auto text = format_partition_report(
      analyze_partitions(b_matrix, {{"p1", 0, 1}, {"p2", 1, 1}}, euler_steps({0.01, 0.01})));
  const auto first_line = text.substr(0, text.find('\n'));
  EXPECT_EQ(first_line.find("partition"), 0u);
  const auto kappa = first_line.find("kappa");
  ASSERT_NE(kappa, std::string::npos);
  const auto second = text.substr(text.find('\n') + 1);
  EXPECT_EQ(second.find("0.5"), kappa) << text;
  EXPECT_NE(text.find("note: partition p2: h = 0.01 exceeds the euler stability limit"),
            std::string::npos)
      << text;
}

TEST(PartitionAnalysis, RejectsBadArguments) {
  EXPECT_THROW(analyze_partitions(Matrix::Zero(2, 3), {{"a", 0, 1}}, {}), std::invalid_argument);
  EXPECT_THROW(analyze_partitions(b_matrix, {{"a", 1, 2}}, {}), std::invalid_argument);
  EXPECT_THROW(analyze_partitions(b_matrix, {{"a", 0, 1}}, euler_steps({0.1, 0.2})),
               std::invalid_argument);
}

// An unstable eigenvalue is printed with its sign and counted; it sets no step limit (no
// step makes a growing mode decay).
TEST(PartitionAnalysis, EigenvaluesKeepTheirSignAndGrowingOnesAreMarked) {
  const Matrix J{{0.5, 0}, {0, -2}};
  const auto report = analyze_partitions(J, {{"up", 0, 1}, {"down", 1, 1}},
                                         {{OdeMethod::euler, 0.1}, {OdeMethod::euler, 0.1}});
  const auto& up = report.partitions[0];
  EXPECT_EQ(up.min_re, 0.5);
  EXPECT_EQ(up.max_re, 0.5);
  EXPECT_EQ(up.unstable, 1u);
  EXPECT_TRUE(std::isinf(up.h_max));
  EXPECT_FALSE(up.h_exceeds_limit);
  EXPECT_EQ(report.partitions[1].unstable, 0u);
  EXPECT_NEAR(report.partitions[1].h_max, 1.0, 1e-12);
  const auto text = format_partition_report(report);
  EXPECT_NE(text.find("+0.5"), std::string::npos) << text;
  EXPECT_EQ(text.find("-0.5"), std::string::npos) << text;
  EXPECT_NE(text.find("note: partition up: 1 unstable eigenvalue(s), Re > 0 (largest Re +0.5)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("partition up: h"), std::string::npos) << text;  // no step limit
  EXPECT_NE(text.find("-2"), std::string::npos) << text;
}

// The stability regions along the real and the imaginary axis, against their known edges.
TEST(PartitionAnalysis, EachMethodHasItsOwnStabilityLimit) {
  const std::complex<double> decay(-1, 0), oscillation(0, 1);
  EXPECT_NEAR(stable_step_limit(OdeMethod::euler, decay), 2.0, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk3, decay), 2.512745, 1e-6);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, decay), 2.785294, 1e-6);
  EXPECT_NEAR(stable_step_limit(OdeMethod::ab3, decay), 6.0 / 11, 1e-6);
  EXPECT_EQ(stable_step_limit(OdeMethod::euler, oscillation), 0.0);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk3, oscillation), std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, oscillation), 2 * std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(stable_step_limit(OdeMethod::ab3, oscillation), 0.7236, 1e-3);
  // The Adams families' intervals on the negative real axis: AB1..AB4 2, 1, 6/11, 3/10;
  // AM3 6 and AM4 3 (AM1, AM2 A-stable); ABM1 in PECE mode is 1 + z + z², stable to z = −1.
  EXPECT_NEAR(stable_step_limit(OdeMethod::ab1, decay), 2.0, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::ab2, decay), 1.0, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::ab4, decay), 0.3, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::am3, decay), 6.0, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::am4, decay), 3.0, 1e-9);
  EXPECT_NEAR(stable_step_limit(OdeMethod::abm1, decay), 1.0, 1e-9);
  EXPECT_EQ(stable_step_limit(OdeMethod::am1, decay), std::numeric_limits<double>::infinity());
  EXPECT_EQ(stable_step_limit(OdeMethod::am2, oscillation),
            std::numeric_limits<double>::infinity());
  // AB2, AM3 and AM4 grow every undamped oscillation, if only by (hω)^(p+1) a step.
  for (const OdeMethod m : {OdeMethod::ab2, OdeMethod::am3, OdeMethod::am4})
    EXPECT_EQ(stable_step_limit(m, oscillation), 0.0) << ode_method_name(m);
  // Published edges for RK4 and Euler off the axes and at other scales: λ = −4 gives
  // 0.6963, λ = −3 + 3i gives 0.6374, λ = iω gives 2√2/ω; Euler 2/|λ| on the real axis.
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, {-4, 0}), 0.6963, 1e-4);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, {-3, 3}), 0.6374, 1e-4);
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, {0, 50}), 2 * std::sqrt(2.0) / 50, 1e-8);
  EXPECT_NEAR(stable_step_limit(OdeMethod::euler, {-4, 0}), 0.5, 1e-9);
  // The limit scales with 1/|λ|: h·λ is what the region constrains.
  EXPECT_NEAR(stable_step_limit(OdeMethod::rk4, 300.0 * decay), 2.785294 / 300, 1e-8);
  for (const OdeMethod m : {OdeMethod::backward_euler, OdeMethod::dre0, OdeMethod::pdre0})
    EXPECT_TRUE(std::isinf(stable_step_limit(m, -1e6 * decay))) << ode_method_name(m);
}

// An RK4 partition is judged by RK4's region, not Euler's: h = 8 ms on λ = −300 is beyond
// Euler's 6.7 ms and within RK4's 9.3 ms.
TEST(PartitionAnalysis, APartitionIsJudgedByItsOwnIntegrator) {
  const Matrix J{{-300}};
  const auto rk4 = analyze_partitions(J, {{"p", 0, 1}}, {{OdeMethod::rk4, 0.008}});
  EXPECT_NEAR(rk4.partitions[0].h_max, 2.785294 / 300, 1e-8);
  EXPECT_FALSE(rk4.partitions[0].h_exceeds_limit);
  const auto text = format_partition_report(rk4);
  EXPECT_EQ(text.find("exceeds"), std::string::npos) << text;
  EXPECT_NE(text.find("rk4"), std::string::npos) << text;
  const auto euler = analyze_partitions(J, {{"p", 0, 1}}, {{OdeMethod::euler, 0.008}});
  EXPECT_NE(format_partition_report(euler).find("exceeds the euler stability limit 0.006667"),
            std::string::npos)
      << format_partition_report(euler);
  const auto implicit = analyze_partitions(J, {{"p", 0, 1}}, {{OdeMethod::backward_euler, 1.0}});
  EXPECT_NE(format_partition_report(implicit).find("none (implicit)"), std::string::npos);
  EXPECT_FALSE(implicit.partitions[0].h_exceeds_limit);
}

// The advice follows from the loads: b carries 40,000 of 52,500 µs per simulated second
// (76.2 %: the bound 1.31×) and has two subsystems to split; c and a together are no more
// than b; a's and c's steps are cheaper than a call between processes, b's is not.
TEST(LoadBalance, TheAdviceFollowsFromTheLoads) {
  const std::string report = format_load_report(
      {{"a", {"a"}, 1e-3, 10}, {"b", {"x", "y"}, 1e-3, 40}, {"c", {"c"}, 2e-3, 5}}, 25);
  for (const std::string line :
       {"partition  step µs  steps/s  work µs/s   share",
        "b               40     1000      40000  76.2 %",
        "advice: side by side the partitions can go at most 1.31× as fast as one CPU doing all "
        "their work: b carries 76.2 %",
        "advice: split b (76.2 % of the work): its subsystems x, y can be partitions of their own",
        "advice: merge a and c: together 23.8 % of the work, no more than b's",
        "advice: a step of a, c costs less than a call between processes (about 25 µs)"})
    EXPECT_NE(report.find(line), std::string::npos) << line << "\n" << report;
  // Two even partitions, each step dearer than a call: the bound, nothing else.
  const std::string even = format_load_report({{"p", {"p"}, 1e-3, 50}, {"q", {"q"}, 1e-3, 50}});
  EXPECT_NE(even.find("at most 2× as fast"), std::string::npos) << even;
  EXPECT_EQ(even.find("split"), std::string::npos) << even;
  EXPECT_EQ(even.find("merge"), std::string::npos) << even;
  EXPECT_EQ(even.find("costs less than a call"), std::string::npos) << even;
  // One subsystem carrying most: a longer step or a cheaper integrator, not a split.
  EXPECT_NE(format_load_report({{"p", {"p"}, 1e-3, 90}, {"q", {"q"}, 1e-3, 30}})
                .find("advice: p (75 % of the work) is one subsystem"),
            std::string::npos);
}

// Measured on a shipped model: every partition is timed, each step costs something.
TEST(LoadBalance, EveryPartitionOfAScenarioIsTimed) {
  const PartitionedScenario s =
      load_partitioned_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-mass.toml");
  const auto loads = measure_loads(s, std::chrono::milliseconds(5));
  ASSERT_EQ(loads.size(), s.partitions.size());
  for (std::size_t p = 0; p < loads.size(); ++p) {
    EXPECT_EQ(loads[p].name, s.partitions[p].name);
    EXPECT_EQ(loads[p].h, s.partitions[p].h);
    EXPECT_GT(loads[p].step_us, 0) << loads[p].name;
    EXPECT_TRUE(std::isfinite(loads[p].work())) << loads[p].name;
  }
}

// ---- Modal decoupling (monitor/analysis/modal_split.hpp) ----

// A model with known modes, -1, -2 ± 50i and -100, mixed by a basis that is not orthogonal:
// the split finds them, brings A to their real blocks, and cuts at the largest ratio of
// neighbouring |λ| (1 → 50: the slow mode alone, then the pair with -100).
TEST(ModalSplit, FindsTheModesAndGroupsThemByFrequency) {
  Matrix blocks = Matrix::Zero(4, 4);
  blocks(0, 0) = -100;
  blocks.block(1, 1, 2, 2) << -2, 50, -50, -2;
  blocks(3, 3) = -1;
  Matrix mix{{1, 0.5, 0, 0.2}, {0, 1, 0.3, 0}, {0.1, 0, 1, 0.4}, {0, 0.2, 0, 1}};
  const Matrix A = mix * blocks * mix.inverse();
  const ModalSplit split = split_modes(A, 2, OdeMethod::rk4);
  ASSERT_EQ(split.modes.size(), 3u);
  EXPECT_NEAR(split.modes[0].lambda.real(), -1, 1e-9);
  EXPECT_NEAR(split.modes[1].lambda.real(), -2, 1e-9);
  EXPECT_NEAR(split.modes[1].lambda.imag(), 50, 1e-9);
  EXPECT_EQ(split.modes[1].states, 2u);
  EXPECT_NEAR(split.modes[2].lambda.real(), -100, 1e-9);
  // T⁻¹ A T is the modes' real blocks, in their order.
  const Matrix modal = split.basis.inverse() * A * split.basis;
  Matrix expected = Matrix::Zero(4, 4);
  expected(0, 0) = -1;
  expected.block(1, 1, 2, 2) << -2, 50, -50, -2;
  expected(3, 3) = -100;
  EXPECT_LT((modal - expected).cwiseAbs().maxCoeff(), 1e-9) << modal;
  EXPECT_GT(split.condition, 1.0);
  ASSERT_EQ(split.groups.size(), 2u);
  EXPECT_EQ(split.groups[0].modes, std::vector<std::size_t>({0}));
  EXPECT_EQ(split.groups[1].modes, std::vector<std::size_t>({1, 2}));
  EXPECT_EQ(split.groups[1].states, 3u);
  // Each part at its own limit: the slow mode's, the fastest of the others', and the whole
  // at the smallest.
  // (The eigenvalues are computed: within 1e-9 of the exact limits.)
  EXPECT_NEAR(split.groups[0].h, stable_step_limit(OdeMethod::rk4, {-1, 0}), 1e-9);
  const double fast = std::min(stable_step_limit(OdeMethod::rk4, {-2, 50}),
                               stable_step_limit(OdeMethod::rk4, {-100, 0}));
  EXPECT_NEAR(split.groups[1].h, fast, 1e-9 * fast);
  EXPECT_NEAR(split.whole.h, fast, 1e-9 * fast);
  // Counted operations: the pair's block has 4 entries (rows of 2), -100 one; RK4's four
  // stages of 2k - 1 per row and 13 per state.
  EXPECT_EQ(split.groups[0].flops_per_step, 4 * 1 + 13 * 1);
  EXPECT_EQ(split.groups[1].flops_per_step, 4 * (3 + 3 + 1) + 13 * 3);
  EXPECT_LT(split.groups[0].flops_per_second() + split.groups[1].flops_per_second(),
            split.whole.flops_per_second());
  // One group is the model in modal form: the same step as the whole.
  const ModalSplit one = split_modes(A, 1, OdeMethod::euler);
  ASSERT_EQ(one.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(one.groups[0].h, one.whole.h);
}

TEST(ModalSplit, CountsEachMethodsOperationsAndRefusesWhatItCannotSplit) {
  // The two-mass oscillator's rows have 1, 4, 1 and 4 entries: f costs 16.
  const std::vector<std::size_t> rows = {1, 4, 1, 4};
  EXPECT_EQ(flops_per_step(OdeMethod::euler, rows), 16 + 2 * 4);
  EXPECT_EQ(flops_per_step(OdeMethod::rk3, rows), 3 * 16 + 11 * 4);
  EXPECT_EQ(flops_per_step(OdeMethod::rk4, rows), 4 * 16 + 13 * 4);
  EXPECT_THROW(flops_per_step(OdeMethod::backward_euler, rows), std::invalid_argument);
  const Matrix A{{-1, 0}, {0, -3}};
  EXPECT_THROW(split_modes(A, 0, OdeMethod::rk4), std::invalid_argument);
  EXPECT_THROW(split_modes(A, 3, OdeMethod::rk4), std::invalid_argument);
  EXPECT_THROW(split_modes(Matrix(2, 3), 1, OdeMethod::rk4), std::invalid_argument);
  Matrix nan = A;
  nan(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(split_modes(nan, 1, OdeMethod::rk4), std::invalid_argument);
  // A zero eigenvalue (a conserved quantity) limits no step: its group costs nothing per
  // simulated second.
  const ModalSplit split = split_modes(Matrix{{0, 0}, {0, -3}}, 2, OdeMethod::rk4);
  EXPECT_TRUE(std::isinf(split.groups[0].h));
  EXPECT_EQ(split.groups[0].flops_per_second(), 0);
  // Measured: every part with a finite step gets a time, and the table says what it costs.
  ModalSplit measured = split_modes(A, 2, OdeMethod::rk4);
  measure_modal_split(A, measured, std::chrono::milliseconds(5));
  EXPECT_GT(measured.whole.step_us, 0);
  EXPECT_GT(measured.groups[1].step_us, 0);
  const std::string table = format_modal_split(measured, 0.01);
  EXPECT_NE(table.find("group 2"), std::string::npos) << table;
  EXPECT_NE(table.find("fewer operations per simulated second"), std::string::npos) << table;
}

}  // namespace
}  // namespace kausal
