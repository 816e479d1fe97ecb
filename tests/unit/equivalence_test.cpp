// The central property (docs/model.md §2): every method gives the same committed trajectory.
// Here every method runs in one process against the sequential reference; the integration
// tests repeat the matrix with real processes.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kausal {
namespace {

// Every method and option of issue 3 on one scenario; returns the sequential result.
RunResult expect_all_methods_agree(const Scenario& s, const std::string& label) {
  const RunResult seq = testing::run_sequential(s);
  EXPECT_EQ(seq.status, RunStatus::completed) << label << ": " << seq.error;
  std::vector<std::pair<std::string, RunResult>> runs = {
      {"conservative step", testing::run_conservative_in_process(s, Guarantee::step)},
      {"conservative lookahead (checked)",
       testing::run_conservative_in_process(s, Guarantee::lookahead, true)},
      {"optimistic batch 1 window 1", testing::run_optimistic_in_process(s, {1, 1})},
      {"optimistic batch 7 window 40", testing::run_optimistic_in_process(s, {7, 40})},
      {"optimistic batch 64 window 512", testing::run_optimistic_in_process(s, {64, 512})},
      {"optimistic batch 500 window 100", testing::run_optimistic_in_process(s, {500, 100})},
  };
  for (const auto& [name, r] : runs) {
    EXPECT_EQ(r.status, seq.status) << label << " / " << name << ": " << r.error;
    EXPECT_EQ(r.steps, seq.steps) << label << " / " << name;
    EXPECT_EQ(r.collisions, seq.collisions) << label << " / " << name;
    EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << label << " / " << name;
  }
  return seq;
}

TEST(Equivalence, ThesisEveryMethodEqualsSequential) {
  const auto seq = expect_all_methods_agree(testing::shipped("thesis.toml"), "thesis");
  EXPECT_GE(seq.collisions, 10u);  // docs/benchmarks.md A: the run shows at least 10 collisions
}

TEST(Equivalence, CradleEveryMethodEqualsSequential) {
  const auto seq = expect_all_methods_agree(testing::shipped("cradle.toml"), "cradle");
  EXPECT_GE(seq.collisions, 4u);  // at least one full cascade through the row
}

// Sixteen random chains of 2 to 16 pendulums, four to a test so that ctest runs them side by
// side (under the sanitizers all sixteen take minutes).
constexpr unsigned kRandomSeeds = 16;
constexpr unsigned kSeedGroups = 4;
Scenario random_chain(unsigned seed) {
  return testing::random_scenario(seed, 2 + seed % 15, 2000);
}

class RandomEquivalence : public ::testing::TestWithParam<unsigned> {};

TEST_P(RandomEquivalence, EveryMethodEqualsSequential) {
  for (unsigned seed = GetParam(); seed <= kRandomSeeds; seed += kSeedGroups)
    expect_all_methods_agree(random_chain(seed), "seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Equivalence, RandomEquivalence, ::testing::Range(1u, kSeedGroups + 1));

TEST(Equivalence, RandomScenariosExerciseTheImpactCode) {
  unsigned with_collisions = 0;
  for (unsigned seed = 1; seed <= kRandomSeeds; ++seed)
    with_collisions += testing::run_sequential(random_chain(seed)).collisions > 0;
  EXPECT_GE(2 * with_collisions, kRandomSeeds);
}

TEST(Equivalence, ConservativeCalcCallsEqualSequential) {
  const Scenario s = testing::shipped("thesis.toml");
  const auto seq = testing::run_sequential(s);
  EXPECT_EQ(testing::run_conservative_in_process(s).calc_calls, seq.calc_calls);
  EXPECT_EQ(testing::run_conservative_in_process(s, Guarantee::lookahead).calc_calls,
            seq.calc_calls);
}

TEST(Equivalence, DigestChangesWithTheModel) {
  Scenario s = testing::shipped("thesis.toml");
  s.steps = 2000;
  const auto reference = testing::run_sequential(s);
  s.chain.pendulums[2].mass *= 1.0 + 1e-12;
  EXPECT_NE(testing::run_sequential(s).trajectory_sha256, reference.trajectory_sha256);
}

}  // namespace
}  // namespace kausal
