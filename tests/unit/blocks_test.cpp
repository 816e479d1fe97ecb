// Blocks of pendulums (--layout blocks:K): each block settles the contacts inside it, the
// monitor those that cross a boundary, and the run is the sequential one bit for bit, for
// every K (integrator/pendulum_block.hpp says why).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "monitor/sync/block_balance.hpp"
#include "monitor/sync/block_horizon.hpp"
#include "monitor/sync/injections.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

void expect_same_run(const RunResult& seq, const RunResult& r, const std::string& label) {
  EXPECT_EQ(r.status, RunStatus::completed) << label << ": " << r.error;
  EXPECT_EQ(r.steps, seq.steps) << label;
  EXPECT_EQ(r.collisions, seq.collisions) << label;
  EXPECT_EQ(r.calc_calls, seq.calc_calls) << label;
  EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << label;
}

// Optimistic blocks commit the sequential run; every Calc beyond the sequential run's is one
// they counted as thrown away. Returns the blocks rolled back.
std::uint64_t expect_optimistic_run(const RunResult& seq, const RunResult& r,
                                    const std::string& label) {
  EXPECT_EQ(r.status, RunStatus::completed) << label << ": " << r.error;
  EXPECT_EQ(r.steps, seq.steps) << label;
  EXPECT_EQ(r.collisions, seq.collisions) << label;
  EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << label;
  EXPECT_EQ(r.calc_calls, seq.calc_calls + r.counters.wasted_calc_calls) << label;
  EXPECT_LE(r.counters.rollbacks, r.counters.rolled_back_steps) << label;
  return r.counters.rollbacks;
}

struct Agreement {
  std::uint64_t collisions = 0;
  std::uint64_t rollbacks = 0;         // of the optimistic blocks
  std::uint64_t lookahead_rounds = 0;  // of the lookahead blocks
  std::uint64_t lookahead_steps = 0;
};

// Conservative blocks with a lookahead per boundary commit the sequential run and never
// throw a step away. Returns the rounds (grants and steps granted by themselves).
std::uint64_t expect_lookahead_run(const RunResult& seq, const RunResult& r,
                                   const std::string& label) {
  expect_same_run(seq, r, label);
  EXPECT_EQ(r.counters.rollbacks, 0u) << label;
  EXPECT_EQ(r.counters.wasted_calc_calls, 0u) << label;
  EXPECT_LE(r.counters.rounds, r.steps) << label;
  return r.counters.rounds;
}

// Two blocks, uneven blocks, more blocks than CPUs, and one block per pendulum; conservative
// step by step and with a lookahead per boundary, and optimistic with a window of 16 steps
// (and of one).
Agreement expect_every_block_count_agrees(const Scenario& s, const std::string& label) {
  const RunResult seq = testing::run_sequential(s);
  EXPECT_EQ(seq.status, RunStatus::completed) << label << ": " << seq.error;
  Agreement a{seq.collisions, 0};
  std::set<std::size_t> counts{2, 3, 5, s.pendulums()};
  for (const std::size_t k : counts) {
    if (k < 2 || k > s.pendulums()) continue;
    const std::string blocks = label + " blocks:" + std::to_string(k);
    expect_same_run(seq, testing::run_blocks_in_process(s, k), blocks);
    // A window of one step is lock-step (and slow: a wake-up per step and block), so it
    // runs with two blocks only; and a thread per block runs with up to 16 blocks here.
    if (k > 16) continue;
    a.lookahead_rounds +=
        expect_lookahead_run(seq,
                             testing::run_blocks_in_process(s, k, SyncMethod::conservative, 10'000,
                                                            Guarantee::lookahead),
                             blocks + " lookahead");
    a.lookahead_steps += seq.steps;
    for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{16}})
      if (window > 1 || k == 2)
        a.rollbacks += expect_optimistic_run(
            seq, testing::run_blocks_in_process(s, k, SyncMethod::optimistic, window),
            blocks + " optimistic, window " + std::to_string(window));
  }
  return a;
}

TEST(Blocks, ShippedChainsGiveTheSequentialRunForEveryBlockCount) {
  std::uint64_t rounds = 0, steps = 0;
  for (const char* name :
       {"thesis.toml", "cradle.toml", "heterogeneous.toml", "tutorial.toml", "large.toml"}) {
    Scenario s = testing::shipped(name);
    s.steps = std::min<std::uint64_t>(s.steps, 4000);  // every one has impacts by then
    const Agreement a = expect_every_block_count_agrees(s, name);
    EXPECT_GT(a.collisions, 0u) << name;
    rounds += a.lookahead_rounds;
    steps += a.lookahead_steps;
  }
  // The lookahead per boundary grants stretches of steps, not step after step.
  EXPECT_LT(rounds, steps / 2);
}

TEST(Blocks, RandomChainsGiveTheSequentialRunForEveryBlockCount) {
  std::uint64_t collisions = 0, rollbacks = 0, chains = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    for (const Scenario& s : {testing::random_scenario(seed, 3 + seed, 1200),
                              testing::crossing_scenario(seed, 4 + seed, 1200)}) {
      const Agreement a =
          expect_every_block_count_agrees(s, s.name + " seed " + std::to_string(seed));
      collisions += a.collisions;
      rollbacks += a.rollbacks;
      ++chains;
    }
  }
  // The generators must exercise contacts, across boundaries too (24 chains: over 50), and
  // optimistic blocks must have rolled back for them.
  EXPECT_GE(collisions, 2 * chains);
  EXPECT_GE(rollbacks, chains);
}

// Forty bobs touching at rest: every step one cluster spans the whole chain, across every
// boundary, so the monitor settles all of it.
TEST(Blocks, AClusterAcrossEveryBoundaryIsSettledWhole) {
  Scenario s = testing::shipped("cradle.toml");
  const PendulumParams p = s.chain.pendulums.front();
  s.chain.pendulums.clear();
  s.initial.clear();
  for (int i = 0; i < 40; ++i) {
    PendulumParams q = p;
    q.pivot_x = i * 2 * p.radius;
    s.chain.pendulums.push_back(q);
    s.initial.push_back({i == 0 ? -0.6 : 0.0, 0.0});
  }
  s.steps = 1500;
  const Agreement a = expect_every_block_count_agrees(s, "forty touching");
  EXPECT_GT(a.collisions, 40u);
  EXPECT_GT(a.rollbacks, 40u);
}

// Two Newton's cradles out of each other's reach, one per block: no contact can cross the
// boundary, so optimistic blocks never roll back and do the sequential run's work exactly.
TEST(Blocks, OptimisticBlocksOutOfReachOfEachOtherNeverRollBack) {
  Scenario s = testing::shipped("cradle.toml");
  const PendulumParams p = s.chain.pendulums.front();
  s.chain.pendulums.clear();
  s.initial.clear();
  const double d = 2 * p.radius, apart = 2 * (p.length + p.radius) + d;
  for (const double x : {0.0, d, 2 * d, apart + 2 * d, apart + 3 * d, apart + 4 * d}) {
    PendulumParams q = p;
    q.pivot_x = x;
    s.chain.pendulums.push_back(q);
    s.initial.push_back({x == 0.0 || x == apart + 2 * d ? -0.5 : 0.0, 0.0});
  }
  s.steps = 3000;
  const RunResult seq = testing::run_sequential(s);
  ASSERT_GT(seq.collisions, 4u);
  for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{64}}) {
    const RunResult r = testing::run_blocks_in_process(s, 2, SyncMethod::optimistic, window);
    EXPECT_EQ(expect_optimistic_run(seq, r, "window " + std::to_string(window)), 0u);
    EXPECT_EQ(r.counters.rolled_back_steps, 0u);
    EXPECT_EQ(r.calc_calls, seq.calc_calls);
    EXPECT_GE(r.state_list_peak, 1u);
    EXPECT_LE(r.state_list_peak, window);
  }
}

// The thesis chain, 3000 steps, with two pushes (one on the last pendulum), run by `stepper`.
RunResult run_pushed(const Scenario& s, ChainStepper& stepper, SyncMethod method) {
  Injections injections({1, 0, s.steps}, nullptr, {},
                        {{InjectionKind::push, 700, "2", 0.02},
                         {InjectionKind::push, 1900, std::to_string(s.pendulums()), -0.03}});
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  DriveOptions options;
  options.injections = &injections;
  return drive_chain(s, method, stepper, {&recorder}, control, options);
}

Scenario pushed_chain() {
  Scenario s = testing::shipped("thesis.toml");
  s.steps = 3000;
  return s;
}

// A push voids what its block ran ahead from the state before it: the run is still the
// sequential run with the same push.
TEST(Blocks, OptimisticBlocksRunAgainFromAPush) {
  const Scenario s = pushed_chain();
  SequentialStepper sequential(s);
  const RunResult seq = run_pushed(s, sequential, SyncMethod::sequential);
  ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
  EXPECT_NE(seq.trajectory_sha256, testing::run_sequential(s).trajectory_sha256);
  RunAheadBlockStepper blocks(s, {3, {}, 256});
  const RunResult r = run_pushed(s, blocks, SyncMethod::optimistic);
  expect_optimistic_run(seq, r, "pushed");
  EXPECT_GT(r.counters.rolled_back_steps, 0u);
}

// --rollback-check in blocks: every step of every block is taken, restored and taken again,
// step by step with edges, running ahead and after a push's rollbacks alike; the run is the
// same, with twice the Calc calls.
TEST(Blocks, TheRollbackCheckTakesEveryStepTwiceToTheSameBits) {
  const Scenario s = pushed_chain();
  SequentialStepper sequential(s);
  const RunResult seq = run_pushed(s, sequential, SyncMethod::sequential);
  ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
  ASSERT_GT(seq.collisions, 0u);
  BlockStepper checked(s, {3, {}, nullptr, true});
  const RunResult r = run_pushed(s, checked, SyncMethod::conservative);
  EXPECT_EQ(r.status, RunStatus::completed) << r.error;
  EXPECT_EQ(r.collisions, seq.collisions);
  EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256);
  EXPECT_EQ(r.calc_calls, 2 * seq.calc_calls);  // step by step, nothing thrown away
  for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic}) {
    RunAheadBlockStepper ahead(s, {3, {}, 64, method, nullptr, true});
    const RunResult a = run_pushed(s, ahead, method);
    EXPECT_EQ(a.status, RunStatus::completed) << a.error;
    EXPECT_EQ(a.trajectory_sha256, seq.trajectory_sha256) << to_string(method);
    EXPECT_GE(a.calc_calls, 2 * seq.calc_calls) << to_string(method);
  }
}

// A push voids every grant too (it adds energy): nothing is rolled back, nothing wrong
// computed.
TEST(Blocks, LookaheadBlocksRunAgainFromAPushWithoutRollingBack) {
  const Scenario s = pushed_chain();
  SequentialStepper sequential(s);
  const RunResult seq = run_pushed(s, sequential, SyncMethod::sequential);
  ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
  RunAheadBlockStepper blocks(
      s, {3, {}, 256, SyncMethod::conservative, testing::every_stretch_on_threads(s)});
  const RunResult r = run_pushed(s, blocks, SyncMethod::conservative);
  EXPECT_EQ(r.status, RunStatus::completed) << r.error;
  EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256);
  EXPECT_EQ(r.collisions, seq.collisions);
  EXPECT_EQ(r.counters.rollbacks, 0u);
  EXPECT_EQ(r.counters.rolled_back_steps, 0u);
  // What a push voided is counted as thrown away, nothing else.
  EXPECT_EQ(r.calc_calls, seq.calc_calls + r.counters.wasted_calc_calls);
}

// The lookahead per boundary along real trajectories (the sequential run is every method's):
// granted at every step m, block a's H_a steps must hold no contact of a pair across one of
// its boundaries, and the block's kinetic norm must stay within the grant's bound, whatever
// happened inside the block (docs/lookahead.md Part IV).
void expect_sound_grants(const Scenario& s, std::size_t count, std::uint64_t& granted,
                         std::uint64_t& impacts) {
  SequentialStepper stepper(s);
  ImpactSweep sweep(s.chain);
  std::vector<std::vector<PendulumState>> trajectory{s.initial};
  std::vector<PendulumState> states = s.initial;
  for (std::uint64_t m = 0; m < s.steps; ++m) {
    impacts += step_chain(stepper, sweep, m, states);
    trajectory.push_back(states);
  }
  const ChainBlocks blocks(s, count);
  const BlockHorizon horizon(s.chain, s.method, s.h, blocks);
  const std::string label = s.name + " blocks:" + std::to_string(count);
  for (std::uint64_t m = 0; m < s.steps; m += 3) {
    BlockHorizon::Grant g =
        horizon.grant(m, trajectory[m], std::min<std::uint64_t>(10'000, s.steps - m));
    for (std::size_t a = 0; a < count; ++a) {
      granted += g.steps[a];
      const std::size_t first = blocks.first(a), last = blocks.last(a);
      for (std::uint64_t step = m + 1; step <= m + g.steps[a]; ++step) {
        const auto& x = trajectory[step];
        ASSERT_NO_THROW(horizon.check_kinetic(
            g, a, step, horizon.kinetic_norm(a, std::span(x).subspan(first, last - first))))
            << label << " grant at " << m;
        for (const BobPair& p : blocks.cross_pairs) {
          if (blocks.block_of(p.i) != a && blocks.block_of(p.j) != a) continue;
          const PendulumParams& pi = s.chain.pendulums[p.i];
          const PendulumParams& pj = s.chain.pendulums[p.j];
          ASSERT_GT(bob_distance(pi, pj, x[p.i].data(), x[p.j].data()), pi.radius + pj.radius)
              << label << ": pair (" << p.i << ", " << p.j << ") in contact at step " << step
              << ", inside block " << a + 1 << "'s grant of " << g.steps[a] << " at " << m;
        }
      }
    }
  }
}

TEST(BlockHorizon, NoContactAcrossABoundaryWithinAnyGrant) {
  std::uint64_t granted = 0, impacts = 0;
  for (const char* name : {"thesis.toml", "cradle.toml", "heterogeneous.toml", "large.toml"}) {
    Scenario s = testing::shipped(name);
    s.steps = std::min<std::uint64_t>(s.steps, 3000);
    for (const std::size_t k : {2u, 3u}) expect_sound_grants(s, k, granted, impacts);
  }
  for (unsigned seed = 1; seed <= 12; ++seed)
    for (const Scenario& s : {testing::random_scenario(seed, 3 + seed, 1200),
                              testing::crossing_scenario(seed, 4 + seed, 1200)})
      expect_sound_grants(s, 2, granted, impacts);
  // Trajectories with impacts, and grants that give something.
  EXPECT_GT(impacts, 100u);
  EXPECT_GT(granted, 10'000u);
}

TEST(BlockHorizon, BobsAtRestFarFromTheBoundaryGetLongGrantsAndNeighboursOneMore) {
  // Eight pendulums at rest 0.3 m apart (0.1 m gaps), three blocks; the middle boundary's
  // pair is pushed together, so block 2 gets less than the others, and no block more than
  // its neighbour plus one.
  Scenario s = testing::shipped("large.toml");
  s.chain.pendulums.resize(9);
  s.initial.assign(9, PendulumState{0, 0});
  for (std::size_t i = 0; i < 9; ++i) {
    s.chain.pendulums[i].pivot_x = 0.3 * static_cast<double>(i);
    s.chain.pendulums[i].radius = 0.1;
    s.chain.pendulums[i].length = 1;
  }
  const ChainBlocks blocks(s, 3);  // pendulums 0-2, 3-5, 6-8
  const BlockHorizon horizon(s.chain, s.method, s.h, blocks);
  const BlockHorizon::Grant rest = horizon.grant(0, s.initial, 10'000);
  for (const std::uint64_t steps : rest.steps) EXPECT_GT(steps, 20u);
  s.initial[5] = {0.05, 0};  // pendulum 6 (block 2) leans towards pendulum 7 (block 3)
  const BlockHorizon::Grant close = horizon.grant(0, s.initial, 10'000);
  EXPECT_LT(close.steps[1], rest.steps[1]);
  for (std::size_t k = 0; k + 1 < 3; ++k) {
    EXPECT_LE(close.steps[k], close.steps[k + 1] + 1);
    EXPECT_LE(close.steps[k + 1], close.steps[k] + 1);
  }
  // Touching across a boundary: nothing granted there.
  s.initial[5] = {std::asin(0.12), 0};  // the bob 0.12 m to the right: in contact
  const BlockHorizon::Grant touching = horizon.grant(0, s.initial, 10'000);
  EXPECT_EQ(touching.steps[1], 0u);
  EXPECT_EQ(touching.steps[2], 0u);
  EXPECT_LE(touching.steps[0], 1u);
}

TEST(BlockHorizon, AKineticNormAboveTheBoundStopsTheRunNamingTheBlock) {
  const Scenario s = testing::shipped("thesis.toml");
  const ChainBlocks blocks(s, 2);
  const BlockHorizon horizon(s.chain, s.method, s.h, blocks);
  BlockHorizon::Grant g = horizon.grant(0, s.initial, 100);
  ASSERT_GT(g.steps[0], 1u);
  EXPECT_NO_THROW(horizon.check_kinetic(g, 0, 1, 0.0));
  try {
    horizon.check_kinetic(g, 0, 2, 1e6);
    FAIL() << "a norm far above the bound must stop the run";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("block-1 at step 2"), std::string::npos) << e.what();
  }
  // Past the grant it is not the grant's business.
  EXPECT_NO_THROW(horizon.check_kinetic(g, 0, g.steps[0] + 1, 1e6));
}

// A block that cannot settle its contacts (one sweep allowed, so any impact fails) fails the
// run at the step the sequential run fails, with the same error, whether the block found it
// running ahead or the monitor did.
TEST(Blocks, RunningAheadBlocksFailWhereTheSequentialRunFails) {
  for (const bool apart : {false, true}) {
    Scenario s = testing::shipped("cradle.toml");
    const PendulumParams p = s.chain.pendulums.front();
    s.chain.pendulums.clear();
    s.initial.clear();
    // Touching bobs (one cluster across every boundary), or pairs out of each other's
    // reach (each pair's impact inside one block).
    const double d = 2 * p.radius, gap = apart ? 2 * (p.length + p.radius) + d : d;
    for (int i = 0; i < 8; ++i) {
      PendulumParams q = p;
      q.pivot_x = (i / 2) * (d + gap) + (i % 2) * d;
      s.chain.pendulums.push_back(q);
      s.initial.push_back({i % 2 == 0 ? -0.4 : 0.0, 0.0});
    }
    s.chain.max_sweeps = 1;
    s.steps = 2000;
    const RunResult seq = testing::run_sequential(s);
    ASSERT_EQ(seq.status, RunStatus::failed) << apart;
    for (const std::size_t k : {2u, 4u})
      for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{16}}) {
        const RunResult r = testing::run_blocks_in_process(s, k, SyncMethod::optimistic, window);
        EXPECT_EQ(r.status, RunStatus::failed) << apart << k << window;
        EXPECT_EQ(r.steps, seq.steps) << apart << k << window;
        EXPECT_EQ(r.error, seq.error) << apart << k << window;
        EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << apart << k << window;
      }
    // Conservative with a lookahead: whether the failing step was granted to a block's thread
    // (apart) or stepped as step by step (touching), the same failure at the same step.
    for (const std::size_t k : {2u, 4u}) {
      const RunResult r =
          testing::run_blocks_in_process(s, k, SyncMethod::conservative, 16, Guarantee::lookahead);
      EXPECT_EQ(r.status, RunStatus::failed) << apart << k;
      EXPECT_EQ(r.steps, seq.steps) << apart << k;
      EXPECT_EQ(r.error, seq.error) << apart << k;
      EXPECT_EQ(r.trajectory_sha256, seq.trajectory_sha256) << apart << k;
    }
  }
}

// What the live view is told of optimistic blocks: every committed step, a horizon (GVT) per
// step, each pendulum's block at or past it, and each pendulum of a block rolled back.
TEST(Blocks, OptimisticBlocksTellTheLiveViewTheirHorizonAndRollbacks) {
  struct Notes final : RunObserver {
    void committed(std::uint64_t step, std::span<const double> values) override {
      steps.push_back(step);
      EXPECT_EQ(values.size(), 2 * pendulums);
    }
    void horizon(std::uint64_t h, std::span<const std::uint64_t> reached) override {
      horizons.push_back(h);
      EXPECT_EQ(reached.size(), pendulums);
      for (const std::uint64_t r : reached) EXPECT_GE(r, h);
    }
    void rolled_back(std::size_t i, std::uint64_t) override {
      EXPECT_LT(i, pendulums);
      ++rollbacks;
    }
    void monitor_trace(const ActivityTrace*) override {}
    std::size_t pendulums = 0;
    std::vector<std::uint64_t> steps, horizons;
    std::uint64_t rollbacks = 0;
  };
  const Scenario s = testing::crossing_scenario(3, 9, 1200);
  Notes notes;
  notes.pendulums = s.pendulums();
  RunAheadBlockStepper stepper(s, {3, {}, 32});
  TrajectoryRecorder recorder({}, s.pendulums(), s.output_every, s.steps, s.t0(), s.h);
  RunControl control;
  DriveOptions options;
  options.observer = &notes;
  const RunResult r =
      drive_chain(s, SyncMethod::optimistic, stepper, {&recorder}, control, options);
  ASSERT_EQ(r.status, RunStatus::completed) << r.error;
  ASSERT_EQ(notes.steps.size(), s.steps + 1);
  for (std::uint64_t m = 0; m <= s.steps; ++m) EXPECT_EQ(notes.steps[m], m);
  ASSERT_EQ(notes.horizons.size(), s.steps);
  for (std::uint64_t m = 0; m < s.steps; ++m) EXPECT_EQ(notes.horizons[m], m + 1);
  ASSERT_GT(r.counters.rollbacks, 0u);
  // Three pendulums per block: each block rolled back tells it for each of them.
  EXPECT_GE(notes.rollbacks, 3 * r.counters.rollbacks);
}

TEST(Blocks, OptimisticBlocksRunAheadWithinAMemoryBudget) {
  EXPECT_EQ(block_window(128, 1000), 128u);
  EXPECT_EQ(block_window(128, 100'000), kBlockStateBudget / 100'000);
  EXPECT_EQ(block_window(128, 1'000'000), 4u);
  EXPECT_EQ(block_window(7, 20'000'000), 1u);
}

// A block leaves exactly the clusters that hold an edge bob, and resolves the others.
TEST(Blocks, ABlockLeavesTheClustersThatHoldAnEdgeBob) {
  // Pendulums 0 and 1 touch and approach; 2 hangs apart; 3 and 4 touch and approach.
  Scenario s = testing::shipped("cradle.toml");
  const PendulumParams p = s.chain.pendulums.front();
  s.chain.pendulums.clear();
  const double d = 2 * p.radius;
  for (const double x : {0.0, d, 3 * d, 5 * d, 6 * d}) {
    PendulumParams q = p;
    q.pivot_x = x;
    s.chain.pendulums.push_back(q);
  }
  const std::vector<PendulumState> start{{0, 1}, {0, -1}, {0, 0}, {0, 1}, {0, -1}};
  auto stepped = [&](std::span<const std::uint32_t> edge, std::vector<std::uint32_t>& left) {
    PendulumBlock block(s.chain, OdeMethod::euler, 0, 1e-6, 0, 5);
    std::vector<PendulumState> x = start;
    const std::uint64_t impacts = block.step(0, x, edge, left);
    return std::pair(impacts, x);
  };
  std::vector<std::uint32_t> left;
  const std::vector<std::uint32_t> edge_apart{2};
  const auto [impacts, x] = stepped(edge_apart, left);
  EXPECT_EQ(impacts, 2u);  // (0, 1) and (3, 4)
  EXPECT_EQ(left, std::vector<std::uint32_t>{2});
  EXPECT_LT(x[0][1], 0);  // they bounced
  EXPECT_GT(x[4][1], 0);

  left.clear();
  const std::vector<std::uint32_t> edge_in_pair{4};
  const auto [impacts_left, x_left] = stepped(edge_in_pair, left);
  EXPECT_EQ(impacts_left, 1u);  // only (0, 1)
  EXPECT_EQ(left, (std::vector<std::uint32_t>{3, 4}));
  EXPECT_GT(x_left[3][1], 0);  // as stepped: still approaching
  EXPECT_LT(x_left[4][1], 0);

  // The monitor's sweep of what was left gives the bits of the whole sweep.
  ImpactSweep sweep(s.chain);
  std::vector<PendulumState> left_swept = x_left;
  sweep.resolve_among(left_swept, 1, left, [&](const BobPair& pair, const Impact& impact) {
    apply_pendulum_impulse(s.chain.pendulums[pair.i], impact.left_impulse,
                           left_swept[pair.i].data());
    apply_pendulum_impulse(s.chain.pendulums[pair.j], impact.right_impulse,
                           left_swept[pair.j].data());
  });
  EXPECT_EQ(left_swept, x);
}

TEST(Blocks, ABlockCountThatDoesNotFitTheChainIsRefused) {
  const Scenario s = testing::shipped("thesis.toml");
  EXPECT_THROW(BlockStepper(s, {s.pendulums() + 1, {}}), InputError);
  EXPECT_THROW(BlockStepper(s, {0, {}}), InputError);
  EXPECT_NO_THROW(BlockStepper(s, {s.pendulums(), {}}));
}

TEST(Blocks, BlocksSplitTheChainEvenlyAndInOrder) {
  for (const std::size_t n : {1u, 2u, 7u, 1000u, 999'999u})
    for (const std::size_t k : {1u, 2u, 3u, 8u}) {
      if (k > n) continue;
      EXPECT_EQ(block_start(0, k, n), 0u);
      EXPECT_EQ(block_start(k, k, n), n);
      for (std::size_t b = 0; b < k; ++b) {
        const std::size_t size = block_start(b + 1, k, n) - block_start(b, k, n);
        EXPECT_GE(size, n / k) << n << " " << k;
        EXPECT_LE(size, n / k + 1) << n << " " << k;
      }
    }
}

TEST(Blocks, WeightedBlocksSplitTheChainInProportionEachAtLeastOnePendulum) {
  EXPECT_EQ(block_starts(2, 1000, std::vector<double>{0.75, 0.25}),
            (std::vector<std::size_t>{0, 750, 1000}));
  EXPECT_EQ(block_starts(3, 7, {}), (std::vector<std::size_t>{0, 2, 4, 7}));  // block_start's
  // A weight too small for one pendulum still gets one, and so does every block after it.
  EXPECT_EQ(block_starts(3, 3, std::vector<double>{1e-9, 1e-9, 1}),
            (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(block_starts(3, 4, std::vector<double>{1, 1e-9, 1e-9}),
            (std::vector<std::size_t>{0, 2, 3, 4}));
}

TEST(Blocks, BalancedWeightsGiveEveryLaneTheSameWorkWithTheHashingOnTheLast) {
  for (const double share : {0.0, 0.1, 0.48, 0.9})
    for (const std::size_t lanes : {2u, 3u})
      for (const std::size_t blocks : {lanes, 2 * lanes, 2 * lanes + 1}) {
        const std::vector<double> w = balanced_block_weights(blocks, lanes, share);
        ASSERT_EQ(w.size(), blocks);
        std::vector<double> load(lanes, 0.0);
        for (std::size_t k = 0; k < blocks; ++k) load[k % lanes] += w[k];
        EXPECT_NEAR(std::accumulate(load.begin(), load.end(), 0.0), 1.0, 1e-12);
        const double floor = 0.1 / static_cast<double>(lanes);
        if ((1 + share) / static_cast<double>(lanes) - share < floor) {
          EXPECT_NEAR(load.back(), floor, 1e-12) << share << " " << blocks;  // (below)
          continue;
        }
        load.back() += share;
        for (const double l : load) EXPECT_NEAR(l, load.front(), 1e-12) << share << " " << blocks;
      }
  // Hashing that would take a whole lane's share leaves that lane a tenth of an equal one,
  // and the others share the rest.
  const std::vector<double> w = balanced_block_weights(2, 2, 5.0);
  EXPECT_NEAR(w[1], 0.05, 1e-12);
  EXPECT_NEAR(w[0], 0.95, 1e-12);
  EXPECT_EQ(balanced_block_weights(3, 1, 0.5), std::vector<double>(3, 1.0 / 3));
}

// What the run does with pinned blocks (monitor/sync/block_balance.hpp): unequal blocks, the
// same bits, under every way of running them.
TEST(Blocks, UnequalBlocksGiveTheSequentialRun) {
  for (const char* name : {"thesis.toml", "cradle.toml", "large.toml"}) {
    Scenario s = testing::shipped(name);
    s.steps = std::min<std::uint64_t>(s.steps, 4000);
    const RunResult seq = testing::run_sequential(s);
    ASSERT_GT(seq.collisions, 0u) << name;
    for (const std::vector<double>& weights :
         {std::vector<double>{0.8, 0.2}, std::vector<double>{0.15, 0.25, 0.6}}) {
      const std::size_t k = weights.size();
      const std::string label = std::string(name) + " " + std::to_string(k) + " unequal blocks";
      expect_same_run(seq,
                      testing::run_blocks_in_process(s, k, SyncMethod::conservative, 128,
                                                     Guarantee::step, weights),
                      label);
      expect_lookahead_run(seq,
                           testing::run_blocks_in_process(s, k, SyncMethod::conservative, 10'000,
                                                          Guarantee::lookahead, weights),
                           label + " lookahead");
      expect_optimistic_run(seq,
                            testing::run_blocks_in_process(s, k, SyncMethod::optimistic, 16,
                                                           Guarantee::step, weights),
                            label + " optimistic");
    }
  }
}

TEST(Blocks, TheDigestsShareOfAStepIsMeasuredAndPositive) {
  // Euler hashes 16 bytes per pendulum-step against about 25 ns of stepping, RK4 makes four
  // Calcs a step: the share is positive, and RK4's (about 0.2 here) below Euler's (about 0.5).
  // Each figure is the fastest of six rounds, so that a busy machine does not swap them.
  Scenario s = testing::shipped("large.toml");
  s.method = OdeMethod::euler;
  const double euler = digest_share(s);
  s.method = OdeMethod::rk4;
  const double rk4 = digest_share(s);
  EXPECT_GT(euler, 0);
  EXPECT_GT(rk4, 0);
  EXPECT_LT(rk4, euler);
}

TEST(Blocks, TheLayoutIsSpelledBlocksColonK) {
  std::uint32_t k = 0;
  EXPECT_EQ(parse_layout("blocks:2", &k), Layout::blocks);
  EXPECT_EQ(k, 2u);
  EXPECT_EQ(parse_layout("blocks:1024", &k), Layout::blocks);
  EXPECT_EQ(k, 1024u);
  for (const char* bad : {"blocks", "blocks:", "blocks:1", "blocks:0", "blocks:1025", "blocks:x",
                          "blocks:2x", "blocks:-2", "blocks: 2", "blocks:99999999999"})
    EXPECT_THROW(parse_layout(bad, &k), InputError) << bad;
  EXPECT_EQ(to_string(Layout::blocks), "blocks");
  EXPECT_EQ(to_string(ComponentRole::block), "block");
}

// candidates_among is candidates() restricted to the members, whatever the angles.
TEST(ImpactSweep, CandidatesAmongMembersAreTheWholeSweepsPairsOfThem) {
  std::mt19937_64 rng(7);
  const Scenario s = testing::crossing_scenario(3, 40, 10);
  ImpactSweep whole(s.chain), among(s.chain);
  for (int round = 0; round < 200; ++round) {
    std::vector<PendulumState> x = s.initial;
    for (auto& state : x) state[0] = std::uniform_real_distribution<>(-1.5, 1.5)(rng);
    std::vector<std::uint32_t> members;
    for (std::uint32_t i = 0; i < x.size(); ++i)
      if (rng() % 3 != 0) members.push_back(i);
    std::vector<BobPair> expected;
    for (const BobPair& p : whole.candidates(x))
      if (std::binary_search(members.begin(), members.end(), p.i) &&
          std::binary_search(members.begin(), members.end(), p.j))
        expected.push_back(p);
    const auto got = among.candidates_among(x, members);
    EXPECT_EQ(std::vector<BobPair>(got.begin(), got.end()), expected) << round;
  }
}

}  // namespace
}  // namespace kausal
