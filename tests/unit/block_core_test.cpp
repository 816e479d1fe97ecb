// The Block component without transport (integrator/block_core.hpp): what a kausal-block
// process computes for the monitor, and what it refuses.
#include "integrator/block_core.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>

#include "common/request_limits.hpp"
#include "monitor/sync/block_port.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

bool same_bits(std::span<const PendulumState> a, std::span<const PendulumState> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// A block in a process keeps its states between calls and is sent only what the monitor
// changed: step by step (with edges) and running ahead (several steps a call), it computes
// the bits of a PendulumBlock that is handed every state each step.
TEST(BlockCore, ComputesWhatAPendulumBlockComputesFromTheChangesAlone) {
  for (const unsigned seed : {3u, 8u}) {
    // The first pendulum swings in: a row of contacts runs through the block.
    const Scenario s = testing::random_scenario(seed, 9, 2000);
    const std::size_t first = 0, last = 7, n = last - first;
    BlockCore core("block-1");
    core.set_up(block_spec(s, first, last));
    PendulumBlock reference(s.chain, s.method, s.t0(), s.h, first, last);
    std::vector<PendulumState> mine(s.initial.begin() + first, s.initial.begin() + last);
    std::mt19937 random(seed);
    const std::vector<std::uint32_t> edge_here{5, 6}, edge_chain{5, 6};  // its right end
    std::uint64_t m = 0, impacts_seen = 0, left_seen = 0;
    BlockRequest r{m, true, {}, mine, edge_here, 1};
    while (m < 2000) {
      // Step by step, with the clusters at the left end left.
      std::vector<std::uint32_t> left;
      const std::uint64_t impacts = reference.step_own(m, mine, edge_chain, left);
      const BlockReply reply = core.advance(r);
      ASSERT_EQ(reply.impacts, std::vector<std::uint64_t>{impacts}) << seed << " step " << m;
      ASSERT_TRUE(same_bits(reply.states, mine)) << seed << " step " << m;
      for (auto& i : left) i -= first;
      EXPECT_EQ(reply.left, left);
      impacts_seen += impacts;
      left_seen += left.size();
      ++m;
      // The monitor kicks one pendulum now and then: only that state goes.
      r = {m, false, {}, {}, edge_here, 1};
      if (random() % 3 == 0) {
        const std::uint32_t i = random() % n;
        mine[i][1] += 0.25;
        r.changed = {i};
        r.states = {mine[i]};
      }
      // Now and then a stretch run ahead, every contact settled inside: asked for 5 steps, a
      // block answers with those it has computed (at least one) and computes on.
      if (random() % 4 == 0) {
        r.edge.clear();
        const std::uint64_t end = m + 5;
        while (m < end) {
          r.steps = end - m;
          r.limit = end;
          const BlockReply ahead = core.advance(r);
          ASSERT_GE(ahead.impacts.size(), 1u);
          ASSERT_LE(ahead.impacts.size(), r.steps);
          std::vector<std::uint32_t> none;
          for (std::uint64_t k = 0; k < ahead.impacts.size(); ++k) {
            EXPECT_EQ(ahead.impacts[k], reference.step_own(m + k, mine, {}, none));
            ASSERT_TRUE(same_bits(std::span(ahead.states).subspan(k * n, n), mine))
                << seed << " step " << m + k;
          }
          EXPECT_TRUE(none.empty());
          m += ahead.impacts.size();
          r = {m, false, {}, {}, {}, 1};
        }
        r = {m, false, {}, {}, edge_here, 1};
      }
    }
    EXPECT_GT(impacts_seen, 0u) << seed;  // the comparison covers impacts inside
    EXPECT_GT(left_seen, 0u) << seed;     // and clusters left at the edge
    const auto calcs = core.advance({m, true, {}, mine, {}, 1}).calc_calls;
    EXPECT_EQ(calcs,
              reference.calc_calls() + n * static_cast<std::uint64_t>(calcs_per_step(s.method)));
  }
}

// Waits (a bounded time) until the block has computed `steps` steps of n pendulums in all.
void wait_for_steps(BlockCore& core, std::uint64_t steps, std::size_t n) {
  for (int k = 0; k < 5000 && core.totals().calc_calls < steps * n; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(core.totals().calc_calls, steps * n) << "the block did not compute ahead";
}

// Running ahead, a block goes on computing after it answers, up to the limit, and the next
// request takes those steps at once; a request that changes a state drops them, counted.
TEST(BlockCore, ComputesAheadUpToTheLimitAndDropsItOnAChange) {
  Scenario s = testing::random_scenario(4, 5, 100);
  s.method = OdeMethod::euler;  // one Calc per pendulum and step
  BlockCore core("block-1");
  core.set_up(block_spec(s, 0, 5));
  const std::vector<PendulumState> start(s.initial.begin(), s.initial.end());
  EXPECT_EQ(core.advance({0, true, {}, start, {}, 1, 20}).impacts.size(), 1u);
  wait_for_steps(core, 20, 5);
  const BlockReply rest = core.advance({1, false, {}, {}, {}, 19, 20});
  EXPECT_EQ(rest.impacts.size(), 19u);  // computed already: all of them at once
  EXPECT_EQ(rest.discarded_calc_calls, 0u);
  const PendulumState last = rest.states.back();
  EXPECT_EQ(core.advance({20, false, {}, {}, {}, 1, 30}).impacts.size(), 1u);
  wait_for_steps(core, 30, 5);
  const BlockReply changed = core.advance({21, false, {4}, {{last[0], last[1] + 1}}, {}, 1, 22});
  EXPECT_EQ(changed.discarded_calc_calls, 9u * 5);  // steps 22 .. 30, computed ahead
  EXPECT_EQ(changed.calc_calls, 31u * 5);
  EXPECT_EQ(changed.impacts.size(), 1u);
}

// Every request that does not fit the block is refused naming what is wrong; nothing is
// computed, and the block answers the next good request.
TEST(BlockCore, RefusesRequestsThatDoNotFitNamingTheField) {
  const Scenario s = testing::random_scenario(5, 6, 100);
  BlockCore core("block-2");
  const std::vector<PendulumState> start(s.initial.begin(), s.initial.begin() + 6);
  EXPECT_THROW(core.advance({0, true, {}, start, {}, 1}), ProtocolError);  // before set_up
  core.set_up(block_spec(s, 0, 6));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Bad {
    BlockRequest request;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {{0, true, {}, start, {}, 0}, "steps must be at least 1"},
      {{0, true, {}, start, {}, std::uint64_t{1} << 40}, "steps"},
      {{0, true, {}, start, {1}, 2}, "one step"},
      {{0, true, {}, start, {6}, 1}, "edge[0] = 6"},
      {{0, true, {}, start, {3, 3}, 1}, "strictly ascending"},
      {{0, true, {}, {start[0]}, {}, 1}, "all 6 states"},
      {{4, false, {}, {}, {}, 1}, "not started"},
      {{0, true, {}, {start[0], start[1], start[2], start[3], start[4], {nan, 0}}, {}, 1},
       "state 5 is not finite"},
  };
  for (const auto& [request, says] : bad) {
    try {
      core.advance(request);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const ComponentError& e) {
      EXPECT_EQ(e.component(), "block-2");
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  // Three steps run ahead (a block answers with those it has, at least one).
  std::uint64_t at = core.advance({0, true, {}, start, {}, 3, 3}).impacts.size();
  while (at < 3) at += core.advance({at, false, {}, {}, {}, 3 - at, 3}).impacts.size();
  EXPECT_EQ(at, 3u);
  const std::vector<Bad> after = {
      {{2, false, {}, {}, {}, 1}, "at step 3"},
      {{3, false, {7}, {start[0]}, {}, 1}, "changed[0] = 7"},
      {{3, false, {1, 2}, {start[0]}, {}, 1}, "one state per changed"},
  };
  for (const auto& [request, says] : after) {
    try {
      core.advance(request);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(core.advance({3, false, {}, {}, {}, 1}).impacts.size(), 1u);
}

TEST(BlockCore, RefusesASetUpThatIsNoChainNamingTheParameter) {
  const Scenario s = testing::random_scenario(6, 4, 100);
  struct Bad {
    BlockSpec spec;
    const char* says;
  };
  std::vector<Bad> bad;
  auto with = [&](auto change, const char* says) {
    BlockSpec spec = block_spec(s, 0, 4);
    change(spec);
    bad.push_back({spec, says});
  };
  with([](BlockSpec& b) { b.chain.pendulums.clear(); }, "at least one pendulum");
  with([](BlockSpec& b) { b.method = OdeMethod::ab3; }, "euler or rk4");
  with([](BlockSpec& b) { b.h = 0; }, "h must be");
  with([](BlockSpec& b) { b.chain.restitution = 2; }, "restitution");
  with([](BlockSpec& b) { b.chain.max_sweeps = 0; }, "max_sweeps");
  with([](BlockSpec& b) { b.chain.pendulums[2].length = -1; }, "pendulum 3 of the block");
  with([](BlockSpec& b) { b.chain.pendulums[3].pivot_x = b.chain.pendulums[1].pivot_x; },
       "pivot_x must be greater");
  BlockCore core("block-3");
  for (const auto& [spec, says] : bad) {
    try {
      core.set_up(spec);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("block-3"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_EQ(core.pendulums(), 0u);
  }
  core.set_up(block_spec(s, 0, 4));
  EXPECT_EQ(core.pendulums(), 4u);
}

}  // namespace
}  // namespace kausal
