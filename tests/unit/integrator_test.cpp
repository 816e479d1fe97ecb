#include <gtest/gtest.h>

#include <cstring>

#include "common/errors.hpp"
#include "integrator/integrator.hpp"
#include "integrator/local_model_link.hpp"
#include "pendulum_config.hpp"
#include "system/composite_model.hpp"
#include "system/pendulum.hpp"

namespace kausal {
namespace {

using testing::pendulum_config;

struct Rig {
  PendulumParams params{0, 1.3, 1.0, 0.1, 0.05, 9.81};
  SystemCore system{"system-1"};
  LocalModelLink link{system};
  Integrator integrator;

  explicit Rig(OdeMethod method = OdeMethod::euler, double h = 1e-3)
      : integrator(pendulum_config("integrator-1", method, h, {0.8, -0.2}), link) {
    system.configure("pendulum", to_parameters(params));
  }
};

bool bit_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(Integrator, EulerStepIsXPlusHTimesF) {
  Rig rig;
  const auto batch = rig.integrator.advance(1, 0);
  ASSERT_EQ(batch.count(), 1u);
  EXPECT_EQ(batch.first_step, 1u);
  double dx[2];
  const double x0[2] = {0.8, -0.2};
  pendulum_rhs(coefficients_of(rig.params), x0, dx);
  EXPECT_EQ(batch.states[0], 0.8 + 1e-3 * dx[0]);
  EXPECT_EQ(batch.states[1], -0.2 + 1e-3 * dx[1]);
}

TEST(Integrator, AdvanceTakesEveryStepUpToTheGuarantee) {
  for (OdeMethod method : {OdeMethod::euler, OdeMethod::rk4}) {
    Rig rig(method);
    const auto batch = rig.integrator.advance(25, 0);
    EXPECT_EQ(batch.count(), 25u);
    EXPECT_EQ(rig.integrator.step(), 25u);
    EXPECT_EQ(rig.system.totals().calc_calls, 25u * (method == OdeMethod::euler ? 1 : 4));
    EXPECT_EQ(rig.integrator.advance(25, 0).count(), 0u);  // nothing new is guaranteed
  }
}

TEST(Integrator, RollbackCheckRestepsToTheSameBits) {
  // The rollback check: step, restore, step again, require identical state.
  for (OdeMethod method : {OdeMethod::euler, OdeMethod::rk4}) {
    Rig rig(method);
    const auto first = rig.integrator.advance(200, 0);
    const auto result = rig.integrator.rollback(120);
    EXPECT_EQ(result.epoch, 1u);
    EXPECT_EQ(result.discarded_steps, 80u);
    EXPECT_EQ(rig.integrator.step(), 120u);
    const auto again = rig.integrator.advance(200, 0);
    ASSERT_EQ(again.count(), 80u);
    EXPECT_EQ(again.epoch, 1u);
    const std::vector<double> tail(first.states.end() - 80 * 2, first.states.end());
    EXPECT_TRUE(bit_equal(tail, again.states));
  }
}

std::vector<double> as_vector(const Vector& v) {
  return {v.data(), v.data() + v.size()};
}

TEST(Integrator, RollbackDiscardsTheFutureButNotWhatIsCommitted) {
  Rig rig;
  const auto batch = rig.integrator.advance(50, 0);
  const auto result = rig.integrator.rollback(30);
  EXPECT_EQ(result.wasted_derivative_calls, 20u);  // Euler: one f per discarded step
  EXPECT_EQ(rig.integrator.step(), 30u);
  EXPECT_TRUE(bit_equal(as_vector(rig.integrator.state()),
                        {batch.state(29).begin(), batch.state(29).end()}));
  EXPECT_THROW(rig.integrator.rollback(40), ProtocolError);  // the future is gone
  rig.integrator.commit(20);
  EXPECT_THROW(rig.integrator.rollback(10), ProtocolError);  // fossil-collected
  EXPECT_NO_THROW(rig.integrator.rollback(20));
}

TEST(Integrator, EventsApplyAtTheCurrentStepOnly) {
  Rig rig;
  rig.integrator.advance(10, 0);
  const auto before = as_vector(rig.integrator.state());
  const auto after = rig.integrator.apply_event({"impulse", 10, 0.01, {0.65}});
  EXPECT_EQ(after[0], before[0]);
  EXPECT_EQ(after[1], before[1] + 0.65 / (1.0 * 1.3));
  EXPECT_THROW(rig.integrator.apply_event({"impulse", 9, 0.009, {1.0}}), ProtocolError);
  EXPECT_THROW(rig.integrator.apply_event({"kick", 10, 0.01, {1.0}}), ModelError);
  // Rolling back to step 10 restores the state as stepping produced it, before the event.
  rig.integrator.advance(12, 0);
  rig.integrator.rollback(10);
  EXPECT_TRUE(bit_equal(as_vector(rig.integrator.state()), before));
}

// The chain's Integrator is the one Integrator core: any method, multistep memory and all.
// A rollback across an event restores the state and the stepper's memory saved there, so
// re-stepping (with the event applied again) reproduces every bit, and the rollback counts
// the f evaluations it threw away.
TEST(Integrator, EveryMethodRollsBackAcrossAnEventToTheSameBits) {
  for (OdeMethod method : {OdeMethod::euler, OdeMethod::rk3, OdeMethod::rk4, OdeMethod::ab3,
                           OdeMethod::backward_euler, OdeMethod::dre0, OdeMethod::dre1}) {
    SCOPED_TRACE(std::string(ode_method_name(method)));
    Rig rig(method);
    const Event kick{"impulse", 60, 0.06, {0.4}};
    const auto before = rig.integrator.advance(60, 0);
    rig.integrator.apply_event(kick);
    const auto first = rig.integrator.advance(150, 0);
    const std::uint64_t calls_before = rig.system.totals().calc_calls;
    const auto result = rig.integrator.rollback(60);
    EXPECT_EQ(result.discarded_steps, 90u);
    EXPECT_GE(result.wasted_derivative_calls, 90u);
    rig.integrator.apply_event(kick);
    const auto again = rig.integrator.advance(150, 0);
    EXPECT_TRUE(bit_equal(first.states, again.states));
    // Re-stepping costs exactly what the rollback said was thrown away.
    EXPECT_EQ(rig.system.totals().calc_calls - calls_before, result.wasted_derivative_calls);
  }
}

TEST(Integrator, AMultistepMethodStartsAfreshAfterAnEvent) {
  // AB3 after an event must not extrapolate from derivatives of the state before the jump:
  // its first step after the event is an RK3 start-up step (3 f evaluations, not 1).
  Rig rig(OdeMethod::ab3);
  rig.integrator.advance(20, 0);
  const std::uint64_t steady = rig.system.totals().calc_calls;
  rig.integrator.advance(21, 0);
  EXPECT_EQ(rig.system.totals().calc_calls - steady, 1u);
  rig.integrator.apply_event({"impulse", 21, 0.021, {0.4}});
  const std::uint64_t kicked = rig.system.totals().calc_calls;
  rig.integrator.advance(22, 0);
  EXPECT_EQ(rig.system.totals().calc_calls - kicked, 3u);
}

TEST(Integrator, ConservativeUseKeepsTheStateListShort) {
  Rig rig;
  for (std::uint64_t m = 0; m < 1000; ++m) rig.integrator.advance(m + 1, m);
  EXPECT_LE(rig.integrator.state_list().peak(), 2u);
}

TEST(Integrator, RejectsBadSetupAndNonFiniteStates) {
  SystemCore system("system-1");
  LocalModelLink link(system);
  EXPECT_THROW(Integrator(pendulum_config("i", OdeMethod::euler, 0.0, {1, 0}), link), ModelError);
  EXPECT_THROW(Integrator(pendulum_config("i", OdeMethod::euler, 1e-3, {}), link), ModelError);
  system.configure("pendulum", to_parameters({0, 1, 1, 0.1, 0, 9.81}));
  Integrator blowing_up(pendulum_config("integrator-9", OdeMethod::euler, 1e300, {1, 1e300}), link);
  try {
    blowing_up.advance(5, 0);
    FAIL() << "an infinite state went unnoticed";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.component(), "integrator-9");
  }
}

// With each change an Integrator tells its System up to when its steps are committed, so a
// run that changes an input at every step keeps a bounded number of changes: a thousand
// changes, each after a commit, are all taken (the System refuses the 257th it must keep),
// and the last one is in force.
TEST(Integrator, AChangeAtEveryCommittedStepIsNeverRefused) {
  SystemCore system("system-1");
  system.configure(build_composite(
      "system-1", {{{"tank", "water_tank", {{"area", 2}, {"orifice", 0}, {"level0", 1}}, {}}},
                   {},
                   {{0, 0, 0.0}},
                   {}}));
  LocalModelLink link(system);
  IntegratorConfig c;
  c.name = "integrator-1";
  c.tick = 1e-3;
  c.last_step = 5000;
  c.x0 = Vector::Ones(1);
  c.output_size = 2;
  c.coupling_sends_events = true;
  Integrator integrator(c, link);
  for (std::uint64_t m = 0; m < 1000; ++m) {
    integrator.change({"tank", "inflow", double(m + 1), step_time(0, 1e-3, m + 1), 0});
    integrator.advance(m + 1, m);
    integrator.commit(m + 1);
  }
  // dx = inflow / area, the inflow of step m + 1 the value from t_m on (m): the level rose
  // by h * (0 + 1 + ... + 1000) / 2.
  const auto batch = integrator.advance(1001, 1000);
  ASSERT_EQ(batch.count(), 1u);
  EXPECT_NEAR(batch.states[0], 1 + 1e-3 * (1000.0 * 1001 / 2) / 2, 1e-9);
}

TEST(Integrator, TimeComesFromTheStepIndex) {
  double t = 0;
  for (int m = 0; m < 1000; ++m) t += 0.001;
  EXPECT_NE(t, step_time(0, 0.001, 1000));             // accumulating drifts ...
  EXPECT_EQ(step_time(0, 0.001, 1000), 1000 * 0.001);  // ... the index does not
}

}  // namespace
}  // namespace kausal
