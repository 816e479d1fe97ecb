// The central property (design.md §2): every method gives the same committed trajectory.
// Here the conservative algorithm runs in one process against the sequential reference; the
// integration tests repeat this with real processes.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kausal {
namespace {

TEST(Equivalence, ThesisConservativeInProcessEqualsSequential) {
  const Scenario s = testing::shipped("thesis.toml");
  const auto seq = testing::run_sequential(s);
  const auto con = testing::run_conservative_in_process(s);
  ASSERT_EQ(seq.status, "completed") << seq.error;
  ASSERT_EQ(con.status, "completed") << con.error;
  EXPECT_GE(seq.collisions, 10u);  // models.md A: the run shows at least 10 collisions
  EXPECT_EQ(con.collisions, seq.collisions);
  EXPECT_EQ(con.calc_calls, seq.calc_calls);
  EXPECT_EQ(con.trajectory_sha256, seq.trajectory_sha256);
}

TEST(Equivalence, CradleConservativeInProcessEqualsSequential) {
  const Scenario s = testing::shipped("cradle.toml");
  const auto seq = testing::run_sequential(s);
  const auto con = testing::run_conservative_in_process(s);
  ASSERT_EQ(seq.status, "completed") << seq.error;
  EXPECT_GE(seq.collisions, 4u);  // at least one full cascade through the row
  EXPECT_EQ(con.collisions, seq.collisions);
  EXPECT_EQ(con.trajectory_sha256, seq.trajectory_sha256);
}

TEST(Equivalence, RandomScenariosConservativeInProcessEqualsSequential) {
  int with_collisions = 0;
  for (unsigned seed = 1; seed <= 24; ++seed) {
    const std::size_t n = 2 + seed % 15;  // 2 .. 16
    const Scenario s = testing::random_scenario(seed, n, 3000);
    const auto seq = testing::run_sequential(s);
    const auto con = testing::run_conservative_in_process(s);
    EXPECT_EQ(con.status, seq.status) << "seed " << seed;
    EXPECT_EQ(con.steps, seq.steps) << "seed " << seed;
    EXPECT_EQ(con.collisions, seq.collisions) << "seed " << seed;
    EXPECT_EQ(con.trajectory_sha256, seq.trajectory_sha256) << "seed " << seed;
    with_collisions += seq.collisions > 0;
  }
  EXPECT_GE(with_collisions, 12);  // the generator must exercise the impact code
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
