// The optimistic method in one process: rollbacks, stale batches, the window bound; and the
// lookahead's guarantees in use.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;

TEST(Optimistic, ImpactsRollBackAndTheDigestStaysEqual) {
  const Scenario s = testing::shipped("thesis.toml");
  const auto seq = testing::run_sequential(s);
  const auto opt = testing::run_optimistic_in_process(s, {32, 256});
  ASSERT_EQ(opt.status, RunStatus::completed) << opt.error;
  EXPECT_GT(opt.counters.rollbacks, 0u);
  EXPECT_GT(opt.counters.rolled_back_steps, 0u);
  EXPECT_EQ(opt.counters.wasted_calc_calls, opt.counters.rolled_back_steps);  // Euler: 1 Calc/step
  // Wasted work is really done: more Calc calls than the sequential reference.
  EXPECT_EQ(opt.calc_calls, seq.calc_calls + opt.counters.wasted_calc_calls);
  EXPECT_EQ(opt.trajectory_sha256, seq.trajectory_sha256);
  double rollback_s = 0;
  for (const auto& c : opt.components) rollback_s += c.totals.rollback_s;
  EXPECT_GT(rollback_s, 0.0);
}

TEST(Optimistic, StaleBatchesUnderDeliveryDelayAreDropped) {
  // Every batch is held 2 ms on its way: rollbacks overtake batches already sent.
  Scenario s = testing::shipped("thesis.toml");
  s.steps = 4000;
  const auto seq = testing::run_sequential(s);
  LocalDeploymentOptions slow_wire;
  slow_wire.delivery_delay = 2ms;
  const auto opt = testing::run_optimistic_in_process(s, {16, 256}, slow_wire);
  ASSERT_EQ(opt.status, RunStatus::completed) << opt.error;
  EXPECT_GT(opt.counters.rollbacks, 0u);
  EXPECT_GT(opt.counters.stale_batches, 0u);
  EXPECT_EQ(opt.trajectory_sha256, seq.trajectory_sha256);
}

TEST(Optimistic, StateListNeverExceedsWindowPlusOneBatch) {
  const Scenario s = testing::shipped("thesis.toml");
  for (auto [batch, window] : {std::pair<std::size_t, std::uint64_t>{8, 64}, {50, 200}, {1, 16}}) {
    const auto opt = testing::run_optimistic_in_process(s, {batch, window});
    ASSERT_EQ(opt.status, RunStatus::completed) << opt.error;
    for (const auto& c : opt.components) {
      if (c.role != ComponentRole::integrator) continue;
      EXPECT_LE(c.totals.state_list_peak, window + batch) << c.name << " batch " << batch;
      EXPECT_LE(c.totals.state_list_peak, window + 1) << c.name << " batch " << batch;
      EXPECT_GT(c.totals.state_list_peak, 1u) << c.name;  // it did run ahead
    }
  }
}

TEST(Optimistic, AWorkerFailureEndsTheRunNamingTheIntegrator) {
  // A step far too large for Euler: the state overflows in the second step, the worker
  // stops, and the monitor hears of it through the inbox instead of waiting forever.
  Scenario s = testing::shipped("thesis.toml");
  s.h = 1e200;
  s.steps = 100;
  const auto opt = testing::run_optimistic_in_process(s);
  EXPECT_EQ(opt.status, RunStatus::failed);
  EXPECT_EQ(opt.exit_code, ExitCode::simulation_failed);
  EXPECT_NE(opt.error.find("integrator-"), std::string::npos) << opt.error;
}

TEST(Lookahead, GrantsManyStepsPerRoundOnTheThesis) {
  const Scenario s = testing::shipped("thesis.toml");
  const auto step = testing::run_conservative_in_process(s, Guarantee::step);
  const auto ahead = testing::run_conservative_in_process(s, Guarantee::lookahead, true);
  ASSERT_EQ(ahead.status, RunStatus::completed) << ahead.error;
  EXPECT_EQ(step.counters.rounds, s.steps);
  EXPECT_LT(ahead.counters.rounds * 3, s.steps) << "rounds " << ahead.counters.rounds;
}

TEST(Lookahead, AGuaranteeThatIsFalseIsCaughtAsACausalityViolation) {
  // A stepper that claims every step impact-free: the driver must refuse the first impact.
  struct Liar final : ChainStepper {
    SequentialStepper inner;
    explicit Liar(const Scenario& s) : inner(s) {}
    void step_all(std::uint64_t m, std::span<PendulumState> x) override { inner.step_all(m, x); }
    void apply_impulse(std::size_t i, std::uint64_t m, double j,
                       std::span<PendulumState> x) override {
      inner.apply_impulse(i, m, j, x);
    }
    bool guaranteed_impact_free(std::uint64_t) const override { return true; }
    std::vector<ComponentReport> reports() override { return inner.reports(); }
  };
  const Scenario s = testing::shipped("thesis.toml");
  for (bool check : {false, true}) {
    Liar liar(s);
    TrajectoryRecorder recorder({}, s.pendulums(), 1, s.steps, 0, s.h);
    RunControl control;
    const auto r = drive_chain(s, SyncMethod::conservative, liar, {&recorder}, control, check);
    EXPECT_EQ(r.status, RunStatus::failed);
    EXPECT_NE(r.error.find("causality violation"), std::string::npos) << r.error;
    // The test mode notices the contact itself, before any impulse is due.
    EXPECT_NE(r.error.find(check ? "in contact" : "need an impulse"), std::string::npos) << r.error;
  }
}

TEST(RollbackCheck, EveryStepReproducesAfterARestore) {
  // The rollback check: step, restore, step again, require identical bits — for every model and
  // integrator (the pendulum, Euler and RK4), through the optimistic machinery too.
  for (const char* file : {"thesis.toml", "cradle.toml"}) {
    Scenario s = testing::shipped(file);
    s.steps = 3000;
    const auto seq = testing::run_sequential(s);
    const auto opt = testing::run_optimistic_in_process(s, {16, 128}, {}, true);
    ASSERT_EQ(opt.status, RunStatus::completed) << file << ": " << opt.error;
    EXPECT_EQ(opt.trajectory_sha256, seq.trajectory_sha256) << file;
  }
}

}  // namespace
}  // namespace kausal
