// integrator = "auto" (monitor/run/feasibility.hpp): each partition's integrator chosen from
// its eigenvalues and its h, and why. The expectations come from the closed-form limits:
// RK4 keeps h·|λ| <= 2.785 on the real axis and 2.828 on the imaginary one.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "monitor/run/feasibility.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/sync/partitioned_plan.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

using testing::TempDir;

// A shipped scenario with every integrator "auto" and the edits given.
PartitionedScenario automatic(const TempDir& dir, const std::string& shipped,
                              const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  std::string text = testing::slurp(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + shipped);
  for (std::size_t at = text.find("integrator = \""); at != std::string::npos;
       at = text.find("integrator = \"", at + 1))
    text.replace(at, text.find('"', at + 14) + 1 - at, "integrator = \"auto\"");
  for (const auto& [from, to] : edits) text.replace(text.find(from), from.size(), to);
  const auto file = dir / shipped;
  std::ofstream(file) << text;
  return load_partitioned_scenario(file);
}

// Clemens' orifices: chamber 1 is slow (λ ≈ −40), chamber 2 stiff (λ ≈ −50,010): at 10 ms the
// first steps explicitly, the second implicitly — a combined explicit/implicit model.
TEST(IntegratorChoice, AStiffPartitionGoesImplicitAndASlowOneStaysExplicit) {
  TempDir dir;
  PartitionedScenario s = automatic(dir, "orifices-pdre0.toml");
  ASSERT_EQ(s.partitions.size(), 2u);
  choose_integrators(s);
  EXPECT_EQ(s.partitions[0].method, OdeMethod::rk4) << s.partitions[0].chosen_because;
  EXPECT_EQ(s.partitions[1].method, OdeMethod::backward_euler) << s.partitions[1].chosen_because;
  EXPECT_NE(s.partitions[1].chosen_because.find("rk4 would need h <= 5.569e-05 s"),
            std::string::npos)
      << s.partitions[1].chosen_because;
  EXPECT_NE(s.partitions[1].chosen_because.find("decay"), std::string::npos);
}

// The two masses: at 1 ms RK4 keeps both; at 0.1 s mass2's oscillation (ω ≈ 32.6/s: RK4
// needs h <= 0.0869 s) goes to the trapezoidal rule, mass1's (ω ≈ 10.5/s) stays with RK4.
TEST(IntegratorChoice, AnOscillationBeyondRk4GoesToTheTrapezoidalRule) {
  TempDir dir;
  PartitionedScenario fine = automatic(dir, "two-mass.toml");
  choose_integrators(fine);
  for (const auto& p : fine.partitions) EXPECT_EQ(p.method, OdeMethod::rk4) << p.chosen_because;
  TempDir coarse_dir;
  PartitionedScenario coarse = automatic(coarse_dir, "two-mass.toml",
                                         {{"h = 0.001", "h = 0.1"},
                                          {"h = 0.001", "h = 0.1"},
                                          {"output_interval = 0.01", "output_interval = 0.1"}});
  choose_integrators(coarse);
  EXPECT_EQ(coarse.partitions[0].method, OdeMethod::rk4) << coarse.partitions[0].chosen_because;
  EXPECT_EQ(coarse.partitions[1].method, OdeMethod::am2) << coarse.partitions[1].chosen_because;
  EXPECT_NE(coarse.partitions[1].chosen_because.find("oscillate"), std::string::npos);
}

// Named integrators are left alone and say nothing; an "auto" never chosen is never run.
TEST(IntegratorChoice, NamedIntegratorsStayAndAnUnchosenOneIsNotRun) {
  PartitionedScenario named =
      load_partitioned_scenario(std::string(KAUSAL_SOURCE_DIR) + "/scenarios/two-mass.toml");
  choose_integrators(named);
  for (const auto& p : named.partitions) {
    EXPECT_EQ(p.method, OdeMethod::rk4);
    EXPECT_TRUE(p.chosen_because.empty());
  }
  TempDir dir;
  const PartitionedScenario unchosen = automatic(dir, "two-mass.toml");
  EXPECT_THROW(plan_partitions(unchosen, {}), std::logic_error);
}

}  // namespace
}  // namespace kausal
