// Measurements of the co-simulation master (docs/performance.md, "Issue 16"): each feature
// alone and combined, on benchmark E (two-mass oscillator, against its exact solution) and
// benchmark D (hydraulic drive, against the monolithic CVODE answer). A table, not a test:
//   build/bin/unit_tests --gtest_also_run_disabled_tests --gtest_filter='*CosimTable*'
// Clemens' configuration of benchmark D is a real test.
#include <gtest/gtest.h>

#include <cstdio>

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

}  // namespace
}  // namespace kausal
