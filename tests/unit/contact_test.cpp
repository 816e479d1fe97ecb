// All-pairs contacts (docs/model.md §2): bobs never pass through each other, whichever pair meets,
// and the broad phase of the sweep never misses a contact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "system/impact_sweep.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

struct OverlapReport {
  double worst_excess = 0;  // max over steps and pairs of overlap − allowed penetration
  std::uint64_t non_neighbour_impacts = 0;
  std::uint64_t impacts = 0;
};

double bob_speed(const PendulumParams& p, const PendulumState& x) {
  return std::abs(p.length * x[1]);
}

// Runs the scenario sequentially and checks every pair of bobs at every step: the overlap
// r_i + r_j − d may not exceed what one step can bring, (|v_i| + |v_j|)·h with each bob's
// highest speed so far (with room for the curved paths). An impact stops the bobs where the
// step left them, so a penetration may persist for a while, but never grows past that.
OverlapReport check_overlaps(const Scenario& s) {
  SequentialStepper stepper(s);
  ImpactSweep sweep(s.chain);
  const auto& p = s.chain.pendulums;
  std::vector<PendulumState> x = s.initial;
  std::vector<double> fastest(p.size(), 0.0);
  OverlapReport report;
  for (std::uint64_t m = 0; m < s.steps; ++m) {
    for (std::size_t i = 0; i < p.size(); ++i)
      fastest[i] = std::max(fastest[i], bob_speed(p[i], x[i]));
    stepper.step_all(m, x);
    report.impacts += sweep.resolve(x, m + 1, [&](const BobPair& pair, const Impact& impact) {
      if (pair.j > pair.i + 1) ++report.non_neighbour_impacts;
      apply_pendulum_impulse(p[pair.i], impact.left_impulse, x[pair.i].data());
      apply_pendulum_impulse(p[pair.j], impact.right_impulse, x[pair.j].data());
    });
    for (std::size_t i = 0; i < p.size(); ++i)
      for (std::size_t j = i + 1; j < p.size(); ++j) {
        const double overlap =
            p[i].radius + p[j].radius - bob_distance(p[i], p[j], x[i].data(), x[j].data());
        const double reach = (fastest[i] + fastest[j]) * s.h;
        const double allowed = 1.5 * reach + 1e-9;
        if (overlap - allowed > report.worst_excess) {
          report.worst_excess = overlap - allowed;
          if (std::getenv("KAUSAL_DEBUG_OVERLAP"))
            std::printf("step %llu pair (%zu,%zu) overlap %g allowed %g phi %g %g w %g %g\n",
                        (unsigned long long)m + 1, i, j, overlap, allowed, x[i][0], x[j][0],
                        x[i][1], x[j][1]);
        }
      }
  }
  return report;
}

TEST(AllPairs, NoBobsPassThroughEachOtherOnShippedScenarios) {
  for (const char* name : {"thesis.toml", "cradle.toml", "heterogeneous.toml", "large.toml"}) {
    Scenario s = testing::shipped(name);
    s.steps = std::min<std::uint64_t>(s.steps, 8000);
    const OverlapReport r = check_overlaps(s);
    EXPECT_LE(r.worst_excess, 0.0)
        << name << ": bobs overlap by " << r.worst_excess << " m more than one step's penetration";
    EXPECT_GT(r.impacts, 0u) << name;
  }
}

TEST(AllPairs, ThesisNonNeighboursMeet) {
  // With neighbour pairs only, bobs 3 and 5 overlapped by 0.208 m at t = 3.52 s here.
  const OverlapReport r = check_overlaps(testing::shipped("thesis.toml"));
  EXPECT_LE(r.worst_excess, 0.0);
  EXPECT_GT(r.non_neighbour_impacts, 0u);
}

TEST(AllPairs, RandomRowsWhereNonNeighboursMeet) {
  std::uint64_t non_neighbour = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    const Scenario s = testing::crossing_scenario(seed, 4 + seed % 9, 3000);
    const OverlapReport r = check_overlaps(s);
    EXPECT_LE(r.worst_excess, 0.0) << s.name;
    non_neighbour += r.non_neighbour_impacts;
  }
  EXPECT_GT(non_neighbour, 50u);  // the generator must make non-neighbours meet
}

// The broad phase against brute force: every pair that the exact test finds in contact is a
// candidate, candidates come in lexicographic order, and pairs out of reach never touch.
TEST(BroadPhase, NeverMissesAContactAndKeepsTheOrder) {
  std::mt19937_64 rng(7);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  std::uint64_t contacts = 0, candidates = 0, pairs = 0;
  for (int trial = 0; trial < 400; ++trial) {
    ChainSpec chain;
    const std::size_t n = 2 + trial % 30;
    double x = 0;
    for (std::size_t i = 0; i < n; ++i) {
      chain.pendulums.push_back({x, u(0.1, 1.5), 1.0, u(0.02, 0.2), 0.0, 9.81});
      x += u(0.01, 0.4);
    }
    ImpactSweep sweep(chain);
    const std::vector<BobPair> reachable = pairs_within_reach(chain);
    ASSERT_TRUE(std::is_sorted(reachable.begin(), reachable.end()));
    // Several steps of the same sweep object: the kept order must not matter.
    for (int frame = 0; frame < 6; ++frame) {
      std::vector<PendulumState> states(n);
      for (auto& s : states) s = {frame == 5 ? u(-40, 40) : u(-3.5, 3.5), 0};
      const auto found = sweep.candidates(states);
      ASSERT_TRUE(std::is_sorted(found.begin(), found.end()));
      candidates += found.size();
      const auto& p = chain.pendulums;
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j) {
          ++pairs;
          if (bob_distance(p[i], p[j], states[i].data(), states[j].data()) >
              p[i].radius + p[j].radius)
            continue;
          ++contacts;
          const BobPair pair{i, j};
          ASSERT_TRUE(std::binary_search(found.begin(), found.end(), pair))
              << "trial " << trial << ": contact (" << i << ", " << j << ") missed";
          ASSERT_TRUE(std::binary_search(reachable.begin(), reachable.end(), pair));
        }
    }
  }
  EXPECT_GT(contacts, 500u);
  EXPECT_LT(candidates, pairs / 4);  // it does prune
}

TEST(BroadPhase, NonFiniteAnglesGiveNoImpact) {
  ChainSpec chain{{{0.0, 1, 1, 0.05, 0, 9.81}, {0.1, 1, 1, 0.05, 0, 9.81}}, 1.0, 10};
  ImpactSweep sweep(chain);
  std::vector<PendulumState> x = {{std::nan(""), 1}, {0, 0}};
  EXPECT_EQ(sweep.resolve(x, 1, [](const BobPair&, const Impact&) { FAIL(); }), 0u);
}

// Every method gives one digest on rows where non-neighbours meet.
TEST(AllPairs, EveryMethodAgreesWhereNonNeighboursMeet) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const Scenario s = testing::crossing_scenario(seed, 5 + seed, 1500);
    const RunResult seq = testing::run_sequential(s);
    ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
    EXPECT_GT(seq.collisions, 0u) << s.name;
    const std::vector<std::pair<std::string, RunResult>> runs = {
        {"conservative step", testing::run_conservative_in_process(s, Guarantee::step)},
        {"conservative lookahead (checked)",
         testing::run_conservative_in_process(s, Guarantee::lookahead, true)},
        {"optimistic batch 7 window 40", testing::run_optimistic_in_process(s, {7, 40})},
        {"optimistic batch 64 window 512", testing::run_optimistic_in_process(s, {64, 512})},
    };
    for (const auto& [name, r] : runs) {
      EXPECT_EQ(r.status, RunStatus::completed) << s.name << " / " << name << ": " << r.error;
      EXPECT_EQ(r.collisions, seq.collisions) << s.name << " / " << name;
      EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << s.name << " / " << name;
    }
  }
}

}  // namespace
}  // namespace kausal
