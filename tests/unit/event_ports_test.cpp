// A partition's event ports (integrator/event_ports.hpp): crossings located inside the step,
// events taken at their own time, the same bits when a step is taken again.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "integrator/integrator.hpp"
#include "integrator/local_model_link.hpp"
#include "system/composite_model.hpp"
#include "system/system_core.hpp"

namespace kausal {
namespace {

// A tank (A = 1 m², a = 0.01 m², h(0) = 1 m) draining through its orifice, its inflow held
// at what events set it to (0 at first): h(t) = (1 − k t)² with k = a √(2g) / (2A) while
// the inflow is 0.
constexpr double kArea = 1.0, kOrifice = 0.01, kGravity = 9.81;
const double kK = kOrifice * std::sqrt(2 * kGravity) / (2 * kArea);

// The Integrator's configuration for the tank with these ports.
IntegratorConfig tank_config(EventPorts ports, double h, OdeMethod method, bool check) {
  IntegratorConfig c;
  c.name = "integrator-tank";
  c.method = method;
  c.tick = h;
  c.last_step = 200;
  c.x0 = Vector::Constant(1, 1.0);
  c.output_size = 2;
  ports.model_outputs = 2;
  c.ports = std::move(ports);
  c.coupling_sends_events = true;
  c.rollback_check = check;
  return c;
}

// The tank's System, configured before the Integrator that reads it is built.
struct TankRig {
  SystemCore system{"system-tank"};
  LocalModelLink link{system};
  std::optional<Integrator> integrator;

  explicit TankRig(EventPorts ports, double h = 1.0, OdeMethod method = OdeMethod::rk4,
                   bool rollback_check = false) {
    CompositeRecipe recipe;
    recipe.members.push_back(
        {"tank", "water_tank", {{"area", kArea}, {"orifice", kOrifice}, {"level0", 1.0}}, {}});
    recipe.held.push_back({0, 0, ""});
    system.configure(build_composite(system.name(), recipe));
    integrator.emplace(tank_config(std::move(ports), h, method, rollback_check), link);
  }
  Integrator& operator*() { return *integrator; }
  Integrator* operator->() { return &*integrator; }
};

EventPorts falling_through(double level) {
  EventPorts p;
  p.outputs.push_back({0, level, CrossingDirection::falling});  // output 0: the level
  p.inputs.push_back({EventEffect::set_input, 0});              // the inflow
  p.inputs.push_back({EventEffect::add_state, 0});              // water poured in
  p.held0 = {0.0};
  p.tolerance = 1e-6;
  return p;
}

ArrivingEvent arriving(double t, std::uint32_t input, double value, std::uint64_t serial = 0) {
  return {des::EventKey{t, 0, serial}, input, value};
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(EventPorts, ACrossingIsLocatedAtMostTheToleranceAfterTheExactOne) {
  // RK4 at h = 0.25 s misses the exact level by about 1e-10 m here, which moves the computed
  // crossing by about 1e-8 s: the bounds allow that much on either side of the tolerance.
  for (const double tolerance : {1e-3, 1e-6})
    for (const double level : {0.25, 0.5, 0.81}) {
      EventPorts ports = falling_through(level);
      ports.tolerance = tolerance;
      TankRig tank(ports, 0.25);
      const StateBatch batch = tank->advance(240, 0);
      ASSERT_EQ(batch.crossings.size(), 1u) << level;
      const LocatedCrossing c = batch.crossings.front();
      const double exact = (1 - std::sqrt(level)) / kK;
      EXPECT_GE(c.time, exact - 1e-7) << level << " " << tolerance;
      EXPECT_LE(c.time, exact + tolerance + 1e-7) << level << " " << tolerance;
      EXPECT_EQ(c.step, static_cast<std::uint64_t>(std::ceil(c.time / 0.25)));
      EXPECT_LE(c.value, level);
      EXPECT_NEAR(c.value, level, 2 * kK * tolerance + 1e-9);
    }
}

TEST(EventPorts, ACrossingCutsTheStepButNotTheGrid) {
  TankRig with(falling_through(0.25));
  EventPorts none = falling_through(0.25);
  none.outputs.clear();
  TankRig without(none);
  const StateBatch a = with->advance(60, 0), b = without->advance(60, 0);
  ASSERT_EQ(a.count(), b.count());
  // The steps before the crossing are the same; the step that holds it is computed in two
  // pieces (the same trajectory to within RK4's error), the grid points stay where they are.
  const auto step = static_cast<std::size_t>(a.crossings.front().step);
  for (std::size_t k = 0; k < step; ++k) EXPECT_EQ(a.state(k)[0], b.state(k)[0]) << k;
  EXPECT_NE(a.state(step)[0], b.state(step)[0]);
  EXPECT_NEAR(a.state(step)[0], b.state(step)[0], 1e-8);
}

TEST(EventPorts, AnEventTakesEffectAtItsOwnTimeNotAtTheNextGridPoint) {
  // Water poured in at 10, 10.3 and 10.9: the later it comes, the less drains away by 11.
  std::vector<double> at_11;
  for (const double t : {10.0, 10.3, 10.9, 11.0}) {
    TankRig tank(falling_through(0.1));
    tank->schedule({arriving(t, 1, 0.2)});
    const StateBatch b = tank->advance(12, 0);
    at_11.push_back(b.state(11)[0]);
  }
  EXPECT_LT(at_11[0], at_11[1]);
  EXPECT_LT(at_11[1], at_11[2]);
  // An event at a step's end time takes effect at the start of the next step: the state at
  // that grid point is the one before it.
  TankRig plain(falling_through(0.1));
  EXPECT_EQ(at_11[3], plain->advance(12, 0).state(11)[0]);
}

TEST(EventPorts, AHeldInputChangesFromTheEventsTimeOn) {
  // Inflow 0.02 from t = 5.5: the tank drains more slowly from then on.
  TankRig tank(falling_through(0.1)), plain(falling_through(0.1));
  tank->schedule({arriving(5.5, 0, 0.02)});
  const StateBatch a = tank->advance(10, 0), b = plain->advance(10, 0);
  for (std::size_t k = 0; k <= 5; ++k) EXPECT_EQ(a.state(k)[0], b.state(k)[0]) << k;
  for (std::size_t k = 6; k <= 10; ++k) EXPECT_GT(a.state(k)[0], b.state(k)[0]) << k;
}

TEST(EventPorts, AnEventAfterARollbackGivesTheBitsOfAnEventKnownBefore) {
  TankRig known(falling_through(0.25)), late(falling_through(0.25));
  known->schedule({arriving(17.25, 0, 0.01)});
  const StateBatch a = known->advance(40, 0);
  late->advance(40, 0);
  late->rollback(17);
  late->schedule({arriving(17.25, 0, 0.01)});
  const StateBatch b = late->advance(40, 0);
  ASSERT_EQ(b.first_step, 18u);
  for (std::size_t k = 0; k < b.count(); ++k)
    EXPECT_TRUE(same_bits({a.state(18 + k)[0]}, {b.state(k)[0]})) << 18 + k;
  EXPECT_EQ(a.crossings, b.crossings);
}

TEST(EventPorts, ACrossingIsFoundAgainWithTheSameBitsWhenAnEventCutsItsStepThere) {
  TankRig first(falling_through(0.25));
  const LocatedCrossing c = first->advance(40, 0).crossings.at(0);
  // The discrete side answers the crossing at its own time: the step is taken again, cut at
  // the crossing, and finds it at the same time with the same value.
  first->rollback(c.step - 1);
  first->schedule({arriving(c.time, 0, 0.05)});
  const StateBatch again = first->advance(40, 0);
  ASSERT_FALSE(again.crossings.empty());
  EXPECT_EQ(again.crossings.front(), c);
}

TEST(EventPorts, TheRollbackCheckStepsEveryCutStepAgainToTheSameBits) {
  TankRig checked(falling_through(0.25), 1.0, OdeMethod::rk4, true), plain(falling_through(0.25));
  for (TankRig* t : {&checked, &plain}) {
    (*t)->schedule({arriving(3.7, 0, 0.01)});
    (*t)->schedule({arriving(9.2, 1, 0.05)});
  }
  const StateBatch a = checked->advance(60, 0), b = plain->advance(60, 0);
  EXPECT_TRUE(same_bits(a.states, b.states));
  EXPECT_EQ(a.crossings, b.crossings);
}

TEST(EventPorts, WhatCannotWorkIsRefused) {
  EXPECT_THROW(TankRig(falling_through(0.25), 1.0, OdeMethod::ab3), ModelError);
  EventPorts bad_output = falling_through(0.25);
  bad_output.outputs[0].index = 7;
  EXPECT_THROW(TankRig{bad_output}, ModelError);
  EventPorts no_indicator = falling_through(0.25);  // the tank has no event indicators
  no_indicator.outputs[0].of = CrossingOf::indicator;
  no_indicator.outputs[0].level = 0;
  EXPECT_THROW(TankRig{no_indicator}, ModelError);
  EventPorts bad_state = falling_through(0.25);
  bad_state.inputs[1].index = 3;
  EXPECT_THROW(TankRig{bad_state}, ModelError);
  TankRig tank(falling_through(0.25));
  tank->advance(5, 0);
  EXPECT_THROW(tank->schedule({arriving(2.0, 0, 1.0)}), ProtocolError) << "roll back first";
  EXPECT_THROW(tank->schedule({arriving(8.0, 5, 1.0)}), ProtocolError) << "no such input";
  EXPECT_THROW(tank->schedule({arriving(std::nan(""), 0, 1.0)}), ProtocolError);
  tank->schedule({arriving(8.0, 0, 1.0)});
  EXPECT_THROW(tank->schedule({arriving(8.0, 0, 2.0)}), ProtocolError) << "the same key twice";
  // A call is taken whole or not at all: a bad event keeps the good ones before it out too.
  EXPECT_THROW(tank->schedule({arriving(9.0, 0, 1.0, 1), arriving(9.0, 0, 1.0, 1)}), ProtocolError)
      << "twice within one call";
  EXPECT_THROW(tank->schedule({arriving(9.0, 0, 1.0, 2), arriving(8.5, 5, 1.0)}), ProtocolError);
  tank->schedule({arriving(9.0, 0, 1.0, 2)});  // not taken before: taken now
  std::vector<ArrivingEvent> flood;
  for (std::uint64_t k = 0; k < limits::max_arriving_events; ++k)
    flood.push_back(arriving(10.0, 0, 0.5, 100 + k));
  EXPECT_THROW(tank->schedule(flood), ProtocolError) << "more waiting than the limit";
}

}  // namespace
}  // namespace kausal
