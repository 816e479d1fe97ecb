// Measurements of the co-simulation master (docs/performance.md, "Issue 16"): each feature
// alone and combined, on benchmark E (two-mass oscillator, against its exact solution) and
// benchmark D (hydraulic drive, against the monolithic CVODE answer). A table, not a test:
//   build/bin/unit_tests --gtest_also_run_disabled_tests --gtest_filter='*CosimTable*'
// Clemens' configuration of benchmark D is a real test.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <limits>

#include "monitor/analysis/global_error.hpp"
#include "monitor/core/linear_surrogate.hpp"
#include "reference/exact_linear_response.hpp"
#include "tests/unit/partitioned_runs.hpp"

namespace kausal {
namespace {

using testing::master;
using testing::monolithic_reference;
using testing::Outcome;
using testing::shipped_text;
using testing::times_of;
using testing::two_mass_matrix;
using testing::worst_relative_error;

struct Feature {
  const char* name;
  std::string run;     // [run] lines: the predictor
  std::string master;  // [master] lines besides the step
};

const std::vector<Feature> kFeatures = {
    {"baseline (hold 0, Jacobi, fixed)", "hold = 0\n", "exchange = \"jacobi\"\n"},
    {"order chosen (up to 2)", "hold = 2\nchoose_order = true\n", "exchange = \"jacobi\"\n"},
    {"Hermite smoothing", "hold = 0\nsmooth = true\n", "exchange = \"jacobi\"\n"},
    {"Gauss-Seidel", "hold = 0\n", "exchange = \"gauss-seidel\"\n"},
    {"iterated (rtol 1e-6)", "hold = 0\n",
     "exchange = \"jacobi\"\niterations = 10\nrtol = 1e-6\natol = 1e-9\n"},
    {"error control (rtol 1e-4)", "hold = 0\n",
     "exchange = \"jacobi\"\nerror_control = true\nrtol = 1e-4\natol = 1e-7\nmax_step = 0.05\n"},
    {"combined", "hold = 2\nchoose_order = true\nsmooth = true\n",
     "exchange = \"gauss-seidel\"\niterations = 10\nerror_control = true\nrtol = 1e-4\n"
     "atol = 1e-7\nmax_step = 0.05\n"},
};

// A shipped scenario with its [run] hold line replaced and a [master] table added.
PartitionedScenario with_master(const std::string& file, const std::string& hold_line,
                                const Feature& f, const std::string& step,
                                const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = shipped_text(file);
  for (const auto& [from, to] : edits) text.replace(text.find(from), from.size(), to);
  text.replace(text.find(hold_line), hold_line.size(), f.run);
  const auto first_subsystem = text.find("[[subsystem]]");
  text.insert(first_subsystem, "[master]\nstep = " + step + "\n" + f.master + "\n");
  return parse_partitioned_scenario(text, file);
}

// Global error: the largest deviation of a position, relative to its range.
double two_mass_error(const Outcome& o) {
  const auto exact = testing::two_mass_exact(o);
  return std::max(worst_relative_error(o, exact, 0), worst_relative_error(o, exact, 2));
}

double hydraulic_error(const PartitionedScenario& s, const Outcome& o) {
  const auto ref = monolithic_reference(s, times_of(o));
  return std::max(worst_relative_error(o, ref, 4), worst_relative_error(o, ref, 2));
}

void print_row(const char* model, const Feature& f, const std::string& step, const Outcome& o,
               double error) {
  const RunResult& r = o.result;
  if (!r.completed()) {
    std::printf("| %s | %s | %s | failed: %s |\n", model, f.name, step.c_str(), r.error.c_str());
    return;
  }
  const CosimulationFigures& c = *r.cosimulation;
  std::printf("| %s | %s | %s | %llu | %llu | %llu | %llu | %.3f | %.2e |\n", model, f.name,
              step.c_str(), static_cast<unsigned long long>(c.messages),
              static_cast<unsigned long long>(r.counters.rollbacks),
              static_cast<unsigned long long>(c.input_discontinuities),
              static_cast<unsigned long long>(c.macro_steps), r.wall_s, error);
}

template <typename Make, typename Error>
void table(const char* model, Make make, Error error, const std::vector<std::string>& steps) {
  std::printf(
      "\n| model | feature | step s | messages | rollbacks | input jumps | macro steps | "
      "wall s | global error |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const Feature& f : kFeatures) {
    std::string largest = "none";
    for (const std::string& step : steps) {
      const PartitionedScenario s = make(f, step);
      const Outcome o = master(s);
      const double e = o.result.completed() ? error(s, o) : INFINITY;
      if (step == "0.01") print_row(model, f, step, o, e);
      if (e <= 1e-3) largest = step;
    }
    std::printf("| %s | %s | largest step with error <= 1e-3: %s |\n", model, f.name,
                largest.c_str());
  }
}

TEST(DISABLED_CosimTable, TwoMassAndHydraulic) {
  table(
      "two-mass",
      [](const Feature& f, const std::string& step) {
        return with_master("two-mass.toml", "hold = 1\n", f, step, {});
      },
      [](const PartitionedScenario&, const Outcome& o) { return two_mass_error(o); },
      {"0.001", "0.002", "0.005", "0.01", "0.02", "0.05"});
  // The hydraulic drive with both parts on RK4 at 0.1 ms: the coupling's error dominates.
  table(
      "hydraulic",
      [](const Feature& f, const std::string& step) {
        return with_master(
            "hydraulic-multirate.toml", "hold = 0\n", f, step,
            {{"integrator = \"euler\"\nh = 0.0001", "integrator = \"rk4\"\nh = 0.0001"},
             {"integrator = \"euler\"\nh = 0.0003", "integrator = \"rk4\"\nh = 0.0001"},
             {"output_interval = 0.003", "output_interval = 0.01"}});
      },
      [](const PartitionedScenario& s, const Outcome& o) { return hydraulic_error(s, o); },
      {"0.0005", "0.001", "0.002", "0.005", "0.01", "0.02"});
}

// Clemens' configuration behind benchmark D's figure on the shipped stand-in that has the
// drive slowed 50 times (the same configuration on hydraulic-multirate's drive is in
// docs/performance.md: 52 % off, since pDRE0 holds the valve's command over 10 ms).
TEST(BenchmarkD, ClemensConfigurationRk3AndPdre0At10msIsWithinOnePercent) {
  const PartitionedScenario s = testing::variant("hydraulic-clemens.toml");
  ASSERT_EQ(s.partitions[0].method, OdeMethod::pdre0);
  ASSERT_EQ(s.partitions[1].method, OdeMethod::rk3);
  ASSERT_DOUBLE_EQ(s.partitions[0].h, 0.01);
  ASSERT_DOUBLE_EQ(s.partitions[1].h, 0.01);
  const Outcome o = testing::sequential(s);
  ASSERT_TRUE(o.result.completed()) << o.result.error;
  const auto ref = monolithic_reference(s, times_of(o));
  // Every state within 1 % but the valve's spool velocity (state 1): a transient of the fast
  // part that lives for a fraction of a millisecond, which no 10 ms step resolves (its
  // error, relative to its small range, is 68 % when this was written); the spool itself is
  // within 0.3 %.
  for (std::size_t state : {0, 2, 3, 4, 5, 6})  // spool | p1, p2, position, velocity, integral
    EXPECT_LT(worst_relative_error(o, ref, state), 0.01) << "state " << state;
}

// Clemens' figure is per subsystem, each simulated alone (its inputs exact); his drive's
// coupled error is another matter. On benchmark D's real drive (hydraulic-multirate's, not
// slowed) in his configuration (valve pDRE0, drive RK3, both at 10 ms) every drive state alone
// is within 2 %, coupled its pressures are off by about half. With both parts integrated
// almost exactly (RK4 at 0.1 ms: alone within 1e-5) and their outputs exchanged every 10 ms
// by the master, the pressures are still off by about half; exchanged every 0.1 ms, within
// 1e-3: the 10 ms exchange of a fast closed loop is the cause, not pDRE0's hold.
double alone_error(ReferenceAnswer& reference, const std::string& state) {
  for (const auto& partition : reference.alone_errors())
    for (const auto& [name, error] : partition)
      if (name == state) return error;
  throw std::logic_error("no state " + state);
}

TEST(BenchmarkD, EachPartAloneIsWithinItsErrorTheTenMillisecondExchangeIsNot) {
  const auto drive_p1 = [](const Outcome& o, const PartitionedScenario& s) {
    return worst_relative_error(o, monolithic_reference(s, times_of(o)), 2);  // drive.p1
  };
  const PartitionedScenario clemens =
      testing::variant("hydraulic-multirate.toml",
                       {{"integrator = \"euler\"\nh = 0.0001", "integrator = \"pdre0\"\nh = 0.01"},
                        {"integrator = \"euler\"\nh = 0.0003", "integrator = \"rk3\"\nh = 0.01"},
                        {"hold = 0", "hold = 1"},
                        {"output_interval = 0.003", "output_interval = 0.01"}});
  ReferenceAnswer reference(clemens);
  for (const char* state :
       {"drive.p1", "drive.p2", "drive.position", "drive.velocity", "drive.integral"})
    EXPECT_LT(alone_error(reference, state), 0.02) << state;
  EXPECT_GT(drive_p1(testing::sequential(clemens), clemens), 0.3);

  const auto exact_parts = [](const std::string& exchange) {
    return testing::variant(
        "hydraulic-multirate.toml",
        {{"integrator = \"euler\"\nh = 0.0001", "integrator = \"rk4\"\nh = 0.0001"},
         {"integrator = \"euler\"\nh = 0.0003", "integrator = \"rk4\"\nh = 0.0001"},
         {"hold = 0", "hold = 1"},
         {"[[subsystem]]",
          "[master]\nstep = " + exchange + "\nexchange = \"jacobi\"\n\n[[subsystem]]"}});
  };
  const PartitionedScenario every_10ms = exact_parts("0.01");
  ReferenceAnswer exact(every_10ms);
  for (const auto& partition : exact.alone_errors())
    for (const auto& [state, error] : partition) EXPECT_LT(error, 1e-5) << state;
  EXPECT_GT(drive_p1(master(every_10ms), every_10ms), 0.3);
  const PartitionedScenario every_step = exact_parts("0.0001");
  EXPECT_LT(drive_p1(master(every_step), every_step), 1e-3);
}

// Benchmark E under the master with mass 2 a model-exchange FMU that cannot save its state
// (scenarios/two-mass-surrogate.toml; tests/fmus/oscillator_mass.c has the native model's
// equations). Without a surrogate it can only be run with iterations = 0, and its steps are
// kept whatever their error; with one, mass 1 iterates and steps are rejected against the
// surrogate, mass 2 steps once per macro step and is never rolled back, and the error against
// the exact solution is the restorable run's (two-mass-master.toml), not ten times it.
PartitionedScenario two_mass_with_a_stateless_fmu(
    std::vector<std::pair<std::string, std::string>> edits) {
  edits.emplace_back("../build/fmus", KAUSAL_TEST_FMU_DIR);
  return testing::variant("two-mass-surrogate.toml", edits);
}

TEST(Surrogates, AStatelessFmuIsIteratedThroughItsSurrogateToTheRestorableRunsError) {
  const double restorable = two_mass_error(master(testing::variant("two-mass-master.toml")));
  const PartitionedScenario once = two_mass_with_a_stateless_fmu(
      {{"iterations = 4", "iterations = 0"}, {"surrogate = true", ""}});
  const Outcome o_once = master(once);
  ASSERT_TRUE(o_once.result.completed()) << o_once.result.error;
  const PartitionedScenario s = two_mass_with_a_stateless_fmu({});
  const Outcome o = master(s);
  ASSERT_TRUE(o.result.completed()) << o.result.error;
  const CosimulationFigures& f = *o.result.cosimulation;
  EXPECT_EQ(f.surrogates, 1u);
  EXPECT_GT(f.rejected_steps, 0u);                                // judged on the surrogate
  EXPECT_GT(o.result.partitions[0].stats.rollbacks, 0u);          // mass 1 repeats steps
  EXPECT_EQ(o.result.partitions[1].stats.rollbacks, 0u);          // the FMU never
  EXPECT_EQ(o.result.partitions[1].stats.steps_computed, 5000u);  // each step once
  EXPECT_LT(f.surrogate_misses, f.macro_steps / 100);
  const double with_surrogate = two_mass_error(o), without = two_mass_error(o_once);
  std::printf(
      "global error: restorable %.3g, stateless kept %.3g (%llu macro steps, %llu above "
      "the tolerance), stateless with its surrogate %.3g\n",
      restorable, without, static_cast<unsigned long long>(o_once.result.cosimulation->macro_steps),
      static_cast<unsigned long long>(o_once.result.cosimulation->above_tolerance), with_surrogate);
  EXPECT_LT(with_surrogate, without / 5) << with_surrogate << " against " << without;
  EXPECT_LT(with_surrogate, 1.5 * restorable) << with_surrogate << " against " << restorable;
  // Jacobi too, and the same bits with the partitions stepped at once.
  const PartitionedScenario jacobi =
      two_mass_with_a_stateless_fmu({{"exchange = \"gauss-seidel\"", "exchange = \"jacobi\""}});
  const Outcome in_turn = master(jacobi), at_once = master(jacobi, true);
  ASSERT_TRUE(in_turn.result.completed()) << in_turn.result.error;
  EXPECT_EQ(at_once.result.trajectory_sha256, in_turn.result.trajectory_sha256);
  EXPECT_LT(two_mass_error(in_turn), without / 5);
}

// What a call refused with (empty if it did not).
std::string refusal_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

TEST(Surrogates, AreRefusedWhereNothingNeedsThem) {
  const std::string message = refusal_of([] {
    const PartitionedScenario s = testing::variant(
        "two-mass-master.toml", {{"iterations = 4", "iterations = 4\nsurrogate = true"}});
    plan_partitions(s, {});
  });
  EXPECT_NE(message.find("surrogate = true, but every partition can repeat a step"),
            std::string::npos)
      << message;
  EXPECT_NE(refusal_of([] {
              testing::variant("two-mass-master.toml",
                               {{"iterations = 4", "iterations = 4\nsurrogate_window = 4"}});
            }).find("master.surrogate_window"),
            std::string::npos);
  EXPECT_NE(refusal_of([] {
              testing::variant("two-mass-master.toml",
                               {{"iterations = 4", "surrogate = true\nsurrogate_window = 0"}});
            }).find("must be 1 to 100"),
            std::string::npos);
}

// The fit: the gains of a linear map are found from as many independent samples as inputs;
// a direction the samples never moved in keeps a gain of 0, and sizes that do not fit or
// values that are not finite change nothing.
TEST(Surrogates, TheFitFindsALinearMapAndNothingItWasNotShown) {
  LinearSurrogate s(2, 1, 4);
  EXPECT_EQ(s.correction(std::vector<double>{1, 1}), std::vector<double>{0});
  s.learn(std::vector<double>{1, 0}, std::vector<double>{3});
  // Only the first input moved: the second's gain stays 0.
  EXPECT_NEAR(s.gains()[0], 3, 1e-5);
  EXPECT_EQ(s.gains()[1], 0);
  s.learn(std::vector<double>{0.5, 2}, std::vector<double>{1.5 - 4});
  EXPECT_NEAR(s.gains()[0], 3, 1e-5);
  EXPECT_NEAR(s.gains()[1], -2, 1e-5);
  EXPECT_NEAR(s.correction(std::vector<double>{1, 1})[0], 1, 1e-5);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.learn(std::vector<double>{nan, 1}, std::vector<double>{7});
  EXPECT_EQ(s.samples(), 2u);
  EXPECT_THROW(s.learn(std::vector<double>{1}, std::vector<double>{1}), std::invalid_argument);
  EXPECT_THROW(LinearSurrogate(1, 1, 0), std::invalid_argument);
  // The window: after 4 more samples of another map, the first is forgotten.
  for (int k = 0; k < 4; ++k)
    s.learn(std::vector<double>{1.0 + k, 1.0 - k}, std::vector<double>{(1.0 + k) - (1.0 - k)});
  EXPECT_EQ(s.samples(), 4u);
  EXPECT_NEAR(s.gains()[0], 1, 1e-5);
  EXPECT_NEAR(s.gains()[1], -1, 1e-5);
}

}  // namespace
}  // namespace kausal
