// FMUs as kausal models (docs/fmi.md), with the real .fmu files of tests/fmus built from the
// project's own C sources: model exchange and co-simulation against closed forms and CVODE,
// every method giving the sequential digest, rollback through the FMU's saved state, and what
// a bad FMU or a bad start value is told.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.hpp"
#include "integrator/integrator.hpp"
#include "integrator/local_model_link.hpp"
#include "reference/cvode_reference.hpp"
#include "system/fmu/fmu_model.hpp"
#include "system/fmu/text_lanes.hpp"
#include "system/shipped_files.hpp"
#include "tests/temp_dir.hpp"
#include "tests/unit/partitioned_runs.hpp"

namespace kausal {
namespace {

std::string fmu_file(const std::string& name) {
  return std::string(KAUSAL_TEST_FMU_DIR) + "/" + name + ".fmu";
}

// A scenario text with @NAME@ replaced by the path of tests/fmus' NAME.fmu.
std::string with_fmus(std::string text) {
  for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@')) {
    const std::size_t end = text.find('@', at + 1);
    text.replace(at, end - at + 1, fmu_file(text.substr(at + 1, end - at - 1)));
  }
  return text;
}

PartitionedScenario scenario(const std::string& text) {
  return parse_partitioned_scenario(with_fmus(text), "fmu-test.toml");
}

using testing::distributed;
using testing::Outcome;
using testing::sequential;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const char* kVanDerPol = R"(
[run]
t_end = 4.0
output_interval = 0.5
[[subsystem]]
name = "vdp"
model = "fmu"
fmu = "@van_der_pol@"
parameters = { mu = 1.5 }
integrator = "rk4"
h = 0.001
)";

void van_der_pol(double mu, const Vector& x, Vector& dx) {
  dx[0] = x[1];
  dx[1] = mu * ((1 - x[0] * x[0]) * x[1]) - x[0];
}

void expect_follows_cvode(const Outcome& o, double mu, double tolerance) {
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  std::vector<double> times;
  for (const auto& row : o.rows) times.push_back(row[0]);
  const auto ref = reference::cvode_reference(
      [&](double, const Vector& x, Vector& dx) { van_der_pol(mu, x, dx); }, Vector{{2.0, 0.0}}, 0.0,
      times);
  for (std::size_t k = 0; k < o.rows.size(); ++k)
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(o.rows[k][1 + static_cast<std::size_t>(i)], ref[k][i], tolerance)
          << "t = " << times[k] << ", state " << i;
}

TEST(FmuModel, ModelExchangeVanDerPolWithAStartValueFollowsCvode) {
  const Outcome o = sequential(scenario(kVanDerPol));
  expect_follows_cvode(o, 1.5, 1e-7);
}

// Every kausal integrator applies to a model-exchange FMU; without directional derivatives
// the implicit and exponential ones difference f.
TEST(FmuModel, EveryIntegratorStepsAModelExchangeFmu) {
  for (const std::string method : {"euler", "rk3", "ab3", "backward_euler", "dre0", "pdre0"}) {
    std::string text = kVanDerPol;
    text.replace(text.find("\"rk4\""), 5, "\"" + method + "\"");
    const Outcome o = sequential(scenario(text));
    SCOPED_TRACE(method);
    expect_follows_cvode(o, 1.5, method == "rk3" || method == "ab3" ? 1e-6 : 2e-2);
  }
}

TEST(FmuModel, CoSimulationVanDerPolFollowsCvode) {
  std::string text = kVanDerPol;
  text.replace(text.find("\"rk4\""), 5, "\"co-simulation\"");
  text.replace(text.find("h = 0.001"), 9, "h = 0.01");
  const PartitionedScenario s = scenario(text);
  EXPECT_TRUE(s.subsystems[0].fmu.co_simulation);
  EXPECT_EQ(s.partitions[0].method, OdeMethod::co_simulation);
  const Outcome o = sequential(s);
  expect_follows_cvode(o, 1.5, 1e-7);  // the FMU's own RK4 at 1 ms
}

// The Jacobian comes from fmi2GetDirectionalDerivative; DRE0 is exact on a linear system.
TEST(FmuModel, StiffLinearIsExactWithDre0AndTheFmusDirectionalDerivatives) {
  CompositeRecipe recipe;
  recipe.members.push_back({"lin", "fmu", {}, {fmu_file("stiff_linear"), false, "", {}}, {}});
  const auto model = build_composite("test", recipe);
  EXPECT_TRUE(model->has_jacobian());
  Matrix J(2, 2);
  model->jacobian(0, Vector{{0.3, 0.7}}, Vector(), J);
  EXPECT_EQ(J, (Matrix(2, 2) << -1, 0, 1, -1000).finished());
  const Outcome o = sequential(scenario(R"(
[run]
t_end = 2.0
output_interval = 0.1
[[subsystem]]
name = "lin"
model = "fmu"
fmu = "@stiff_linear@"
integrator = "dre0"
h = 0.05
)"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  for (const auto& row : o.rows) {
    const double t = row[0];
    EXPECT_NEAR(row[1], std::exp(-t), 1e-12) << t;
    EXPECT_NEAR(row[2], (std::exp(-t) - std::exp(-1000 * t)) / 999, 1e-12) << t;
  }
}

// State events: the crossing is located to the step (docs/model.md §2), so the ball is a
// step late at most and never below the floor by more than one step's fall.
TEST(FmuModel, BouncingBallBouncesWhereTheClosedFormSaysAndStaysAboveTheFloor) {
  const Outcome o = sequential(scenario(R"(
[run]
t_end = 1.0
output_interval = 0.0001
[[subsystem]]
name = "ball"
model = "fmu"
fmu = "@bouncing_ball@"
integrator = "rk4"
h = 0.0001
)"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  const double g = 9.81, e = 0.7;
  const double t1 = std::sqrt(2 / g), v1 = e * g * t1;
  for (const auto& row : o.rows) {
    EXPECT_GE(row[1], -g * t1 * 1e-4) << "t = " << row[0];
    if (row[0] < t1 - 1e-3) {
      EXPECT_NEAR(row[1], 1 - g * row[0] * row[0] / 2, 1e-9) << row[0];
    } else if (row[0] > t1 + 1e-3) {
      const double tau = row[0] - t1;
      EXPECT_NEAR(row[1], v1 * tau - g * tau * tau / 2, 2e-3) << row[0];
      EXPECT_NEAR(row[2], v1 - g * tau, 5e-3) << row[0];
    }
  }
}

// Time events (nextEventTime) at whole seconds change a discrete state; the integral of the
// stair is exact on a grid that has the event times.
TEST(FmuModel, TimeEventsOfTheStairAreExact) {
  const Outcome o = sequential(scenario(R"(
[run]
t_end = 3.5
output_interval = 0.5
[[subsystem]]
name = "stair"
model = "fmu"
fmu = "@stair_integral@"
integrator = "euler"
h = 0.01
)"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  for (const auto& row : o.rows) {
    const double t = row[0];
    const double whole = std::floor(t + 1e-9);
    const double exact = whole * (whole + 1) / 2 + (whole + 1) * (t - whole);
    EXPECT_NEAR(row[1], exact, 1e-9) << t;
  }
}

// An FMU partition feeds a native model and the other way round; the stair's counter jumps,
// so the optimistic integrator FMU predicts wrongly and is rolled back through its state.
const char* kCoupled = R"(
[run]
t_end = 3.0
hold = 0
output_interval = 0.1
[[subsystem]]
name = "stair"
model = "fmu"
fmu = "@stair_integral@"
integrator = "rk4"
h = 0.01
[[subsystem]]
name = "sum"
model = "fmu"
fmu = "@integrator@"
kind = "co-simulation"
integrator = "co-simulation"
h = 0.01
[[subsystem]]
name = "tank"
model = "water_tank"
parameters = { area = 1.0, orifice = 0.01 }
integrator = "rk4"
h = 0.02
[[coupling]]
from = "stair.counter"
to = "sum.u"
[[coupling]]
from = "sum.y"
to = "tank.inflow"
)";

TEST(FmuPartitions, EveryMethodGivesTheSequentialDigestAndRollsFmusBack) {
  const PartitionedScenario s = scenario(kCoupled);
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  // sum integrates the stair's counter: x(t) = ∫ counter = the stair's area, one step late
  // at each jump (hold 0 of the sample at the step start).
  const auto& last = seq.rows.back();
  EXPECT_NEAR(last[2], 6.0, 0.01 * 3 + 1e-9);
  const Outcome cons = distributed(s, {false, 0, 1000});
  const Outcome opt = distributed(s, {true, 0, 16});
  ASSERT_EQ(opt.result.status, RunStatus::completed) << opt.result.error;
  EXPECT_EQ(cons.result.trajectory_sha256, seq.result.trajectory_sha256);
  EXPECT_EQ(opt.result.trajectory_sha256, seq.result.trajectory_sha256);
  PartitionedMode checked{true, 0, 16};
  checked.rollback_check = true;
  const Outcome rechecked = distributed(s, checked);
  ASSERT_EQ(rechecked.result.status, RunStatus::completed) << rechecked.result.error;
  EXPECT_EQ(rechecked.result.trajectory_sha256, seq.result.trajectory_sha256);
}

// Real, Integer and Boolean ports of a co-simulation FMU carry kausal's values: the
// feedthrough passes the Van der Pol state (real), the stair's counter (integer, through a
// partition of its own) and a constant (boolean), each held over the step it was sampled at.
TEST(FmuPartitions, RealIntegerAndBooleanPortsOfACoSimulationFmuCarryTheirValues) {
  const PartitionedScenario s = scenario(R"(
[run]
t_end = 2.5
hold = 0
output_interval = 0.1
[[subsystem]]
name = "vdp"
model = "fmu"
fmu = "@van_der_pol@"
integrator = "rk4"
h = 0.01
[[subsystem]]
name = "stair"
model = "fmu"
fmu = "@stair_integral@"
integrator = "euler"
h = 0.01
[[subsystem]]
name = "pass"
model = "fmu"
fmu = "@feedthrough@"
kind = "co-simulation"
inputs = { u_bool = 1 }
integrator = "co-simulation"
h = 0.01
[[coupling]]
from = "vdp.x0"
to = "pass.u_real"
[[coupling]]
from = "stair.counter"
to = "pass.u_int"
)");
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  // Rows: t, vdp.x0, vdp.x1, stair.area, pass.y_real, pass.y_int, pass.y_bool. Each output
  // after the step from t − h is the input sampled at t − h; at t = 0 the outputs start from
  // the constant input (an FMU starts with its constant inputs).
  EXPECT_EQ(seq.rows[0][6], 1.0);
  for (std::size_t k = 1; k < seq.rows.size(); ++k) {
    const auto& row = seq.rows[k];
    const double t = row[0];
    EXPECT_EQ(row[6], 1.0) << t;
    EXPECT_EQ(row[5], std::floor(t - 0.01 + 1e-9) + 1) << t;
  }
  // y_real at t is x0 at t − h: compare with the Van der Pol row 0.1 s earlier, one step off.
  EXPECT_NEAR(seq.rows[10][4], seq.rows[10][1], 0.03);
  EXPECT_EQ(distributed(s, {false, 0, 1000}).result.trajectory_sha256,
            seq.result.trajectory_sha256);
  EXPECT_EQ(distributed(s, {true, 0, 16}).result.trajectory_sha256, seq.result.trajectory_sha256);
}

// A model-exchange FMU without continuous states (a signal source with time events and a
// state event of time) steps from event to event: its level rises at t = k·0.25, inside
// steps of 0.1 and at their ends, exactly as its co-simulation interface does it; it drives an
// integrator FMU in another partition; every method gives one digest, and the rollback check
// passes.
TEST(FmuPartitions, AModelExchangeFmuWithoutContinuousStatesStepsFromEventToEvent) {
  const auto staircase = [](const std::string& kind) {
    return scenario(R"(
[run]
t_end = 2.0
hold = 0
output_interval = 0.1
[[subsystem]]
name = "steps"
model = "fmu"
fmu = "@staircase@"
kind = ")" + kind + R"("
parameters = { period = 0.25, height = 0.5, switch_at = 0.65 }
integrator = "co-simulation"
h = 0.1
[[subsystem]]
name = "sum"
model = "fmu"
fmu = "@integrator@"
integrator = "rk4"
h = 0.01
[[coupling]]
from = "steps.signal"
to = "sum.u"
)");
  };
  const PartitionedScenario me = staircase("model-exchange");
  const Outcome seq = sequential(me);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  // Rows: t, steps.signal, steps.level, steps.switched, sum.x. The level at t counts the
  // events at or before t; the state event at 0.65 is taken at the end of its step, 0.7.
  ASSERT_EQ(seq.rows.size(), 21u);
  for (const auto& row : seq.rows) {
    const double level = std::floor(row[0] / 0.25 + 1e-9);
    EXPECT_EQ(row[2], level) << "t = " << row[0];
    EXPECT_EQ(row[1], 0.5 * level) << "t = " << row[0];
    EXPECT_EQ(row[3], row[0] > 0.65 ? 1.0 : 0.0) << "t = " << row[0];
  }
  // The integral of the signal as sampled every 0.1 s (held over each sample): 3.5 exactly
  // for the staircase itself, within a sample's lag of it here.
  EXPECT_NEAR(seq.rows.back()[4], 3.5, 0.5 * 0.1 * 8);
  EXPECT_GT(seq.rows.back()[4], 3.0);
  // The same FMU through its co-simulation interface: the same rows.
  const Outcome cs = sequential(staircase("co-simulation"));
  ASSERT_EQ(cs.result.status, RunStatus::completed) << cs.result.error;
  EXPECT_EQ(cs.result.trajectory_sha256, seq.result.trajectory_sha256);
  for (const bool speculate : {false, true}) {
    for (const bool check : {false, true}) {
      PartitionedMode mode;
      mode.speculate = speculate;
      mode.rollback_check = check;
      const Outcome o = distributed(me, mode);
      ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
      EXPECT_EQ(o.result.trajectory_sha256, seq.result.trajectory_sha256)
          << speculate << " " << check;
    }
  }
}

// A co-simulation FMU run ahead on a predicted input, refuted, rolled back through its saved
// state and stepped again ends with the bits of one that knew the input from the start.
TEST(FmuPartitions, ARefutedPredictionRollsACoSimulationFmuBackThroughItsSavedState) {
  auto run = [](bool speculate) {
    CompositeRecipe recipe;
    recipe.members.push_back({"sum", "fmu", {}, {fmu_file("integrator"), true, "", {}}, {}});
    SystemCore system("system-sum");
    system.configure(build_composite("system-sum", recipe));
    LocalModelLink link(system);
    IntegratorConfig c;
    c.name = "integrator-sum";
    c.method = OdeMethod::co_simulation;
    c.tick = 0.01;
    c.last_step = 6;
    c.x0 = system.model().initial_state();
    c.output_size = 2;
    c.channels = {{"stair.counter -> sum.u", 0, 1, InputSource::samples, {}}};
    c.speculate = speculate;
    c.internal_state = true;
    c.outputs_at_step = true;
    Integrator integrator(c, link);
    const double u[] = {1, 1, 1, 5, 5, 5};
    integrator.provide({0, 0, u[0]});
    if (speculate) integrator.step_while(6, [] { return true; });  // predicts u = 1
    for (std::uint64_t k = 1; k < 6; ++k) integrator.provide({0, k, u[k]});
    integrator.step_while(6, [] { return true; });
    EXPECT_EQ(integrator.step(), 6u);
    return std::make_pair(integrator.state(), integrator.stats().rollbacks);
  };
  const auto [speculated, rollbacks] = run(true);
  const auto [known, none] = run(false);
  EXPECT_EQ(rollbacks, 1u);
  EXPECT_EQ(none, 0u);
  EXPECT_TRUE(speculated == known) << speculated.transpose() << " vs " << known.transpose();
  EXPECT_NEAR(known[0], 3 * 0.01 + 3 * 0.05, 1e-12);  // x = ∫ u
}

TEST(FmuPartitions, AnFmuWithoutGetSetStateRunsConservativelyAndRefusesOptimistic) {
  std::string text = kVanDerPol;
  text.replace(text.find("@van_der_pol@"), 13, "@van_der_pol_no_state@");
  const PartitionedScenario s = scenario(text);
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  EXPECT_EQ(distributed(s, {false, 0, 1000}).result.trajectory_sha256,
            seq.result.trajectory_sha256);
  const std::string refused = error_of([&] { plan_partitions(s, {true, 0, 16}); });
  EXPECT_NE(refused.find("van_der_pol_no_state.fmu) cannot save and restore its state"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("run it with --method conservative or sequential"), std::string::npos)
      << refused;
  try {
    plan_partitions(s, {true, 0, 16});
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::bad_input);
  }
}

TEST(FmuPartitions, ABuggySetStateIsFoundWhenTheFmuIsLoaded) {
  std::string text = kVanDerPol;
  text.replace(text.find("@van_der_pol@"), 13, "@bad_state@");
  const PartitionedScenario s = scenario(text);
  const std::string refused = error_of([&] { plan_partitions(s, {true, 0, 16}); });
  EXPECT_NE(refused.find("failed the check of its saved state (after fmi2SetFMUstate, 'x0' is"),
            std::string::npos)
      << refused;
  EXPECT_EQ(sequential(s).result.status, RunStatus::completed);
}

TEST(FmuPartitions, AnFmuErrorFailsTheRunWithTheFmusOwnWords) {
  std::string text = kVanDerPol;
  text.replace(text.find("@van_der_pol@"), 13, "@fails_at@");
  text.replace(text.find("mu = 1.5"), 8, "fail_time = 0.5");
  const Outcome o = sequential(scenario(text));
  EXPECT_EQ(o.result.status, RunStatus::failed);
  EXPECT_NE(o.result.error.find("subsystem 'vdp' (fails_at.fmu): fmi2GetDerivatives returned "
                                "fmi2Error at t = 0.5"),
            std::string::npos)
      << o.result.error;
  EXPECT_NE(o.result.error.find("fails_at: giving up at t=0.5"), std::string::npos)
      << o.result.error;
  // Nothing committed is lost: the steps before the failing one (its last RK4 stage reaches
  // t = 0.5) are recorded.
  EXPECT_EQ(o.result.steps, 499u);
}

// An FMU that asks to end the simulation (stop_at = 3: at its time event t = 2, after
// completing the step or event there) ends the run there, with what it committed, the step
// that reached t = 2 among it; a run to t_end = 2 is whole, its last row at t = 2, under
// every method.
std::string stair_until(double t_end, bool co_simulation) {
  std::string text = "[run]\nt_end = " + std::to_string(t_end) + R"(
output_interval = 0.5
[[subsystem]]
name = "stair"
model = "fmu"
fmu = "@stair_integral@"
parameters = { stop_at = 3 }
)";
  text += co_simulation ? "kind = \"co-simulation\"\nintegrator = \"co-simulation\"\nh = 0.1\n"
                        : "integrator = \"euler\"\nh = 0.1\n";
  return text;
}

TEST(FmuPartitions, AnFmuThatAsksToEndTheSimulationEndsTheRunKeepingItsSteps) {
  for (const bool co_simulation : {false, true}) {
    SCOPED_TRACE(co_simulation ? "co-simulation" : "model exchange");
    const Outcome o = sequential(scenario(stair_until(5.0, co_simulation)));
    EXPECT_EQ(o.result.status, RunStatus::failed);
    EXPECT_NE(o.result.error.find("subsystem 'stair' (stair_integral.fmu): the FMU ended the "
                                  "simulation at t = 2 (terminateSimulation)"),
              std::string::npos)
        << o.result.error;
    EXPECT_NE(o.result.error.find("set run.t_end at or before 2"), std::string::npos);
    EXPECT_EQ(o.result.steps, 20u);  // up to t = 2, the step that reached it included
    ASSERT_FALSE(o.rows.empty());
    EXPECT_NEAR(o.rows.back()[0], 2.0, 1e-12);
  }
}

TEST(FmuPartitions, ARunThatEndsWhereTheFmuEndsTheSimulationIsWholeUnderEveryMethod) {
  for (const bool co_simulation : {false, true}) {
    SCOPED_TRACE(co_simulation ? "co-simulation" : "model exchange");
    const PartitionedScenario s = scenario(stair_until(2.0, co_simulation));
    const Outcome seq = sequential(s);
    ASSERT_TRUE(seq.result.completed()) << seq.result.error;
    ASSERT_FALSE(seq.rows.empty());
    EXPECT_NEAR(seq.rows.back()[0], 2.0, 1e-12);
    // der(area) = 1 on [0, 1), 2 on [1, 2): area(2) = 3.
    EXPECT_NEAR(seq.rows.back()[1], 3.0, 1e-9);
    for (const bool speculate : {false, true}) {
      PartitionedMode mode;
      mode.speculate = speculate;
      const Outcome o = distributed(s, mode);
      ASSERT_TRUE(o.result.completed()) << o.result.error;
      EXPECT_EQ(o.result.trajectory_sha256, seq.result.trajectory_sha256);
    }
  }
}

std::string scenario_error(const std::string& text) {
  return error_of([&] { plan_partitions(scenario(text), {}); });
}

// A scenario of one subsystem `name`, the test FMU `fmu` stepped by `integrator` with step
// h, 1 s long; `more` (its fields) from line 10 on.
std::string one_fmu(const std::string& name, const std::string& fmu, const std::string& integrator,
                    const std::string& h, const std::string& more = "",
                    const std::string& output_interval = "0.1") {
  return "[run]\nt_end = 1.0\noutput_interval = " + output_interval + "\n[[subsystem]]\nname = \"" +
         name + "\"\nmodel = \"fmu\"\nfmu = \"@" + fmu + "@\"\nintegrator = \"" + integrator +
         "\"\nh = " + h + "\n" + more + "\n";
}

// A value outside the range the FMU declares (its own min/max or its type's) is refused at
// the scenario's line with the variable and its range, unless check_ranges = false.
TEST(FmuPartitions, AValueOutsideTheDeclaredRangeIsRefusedUnlessTheScenarioAllowsIt) {
  const auto ball = [](const std::string& more) {
    return one_fmu("ball", "bouncing_ball", "rk4", "0.01", more);
  };
  const std::string e = scenario_error(ball("parameters = { e = 5 }"));
  EXPECT_NE(e.find("fmu-test.toml:10"), std::string::npos) << e;
  EXPECT_NE(e.find("'e' = 5 is outside the range the FMU declares for it, [0, 1]"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("check_ranges = false"), std::string::npos) << e;
  // From the variable's declared type (Speed: min 0, no max).
  EXPECT_NE(scenario_error(ball("parameters = { v_min = -1 }"))
                .find("'v_min' = -1 is outside the range the FMU declares for it, [0, inf]"),
            std::string::npos);
  EXPECT_NE(scenario_error(ball("start = { e = -0.5 }")).find("[0, 1]"), std::string::npos);
  // An Integer's.
  EXPECT_NE(scenario_error(
                one_fmu("stair", "stair_integral", "euler", "0.1", "parameters = { stop_at = -2 }"))
                .find("'stop_at' = -2 is outside"),
            std::string::npos);
  // Inside the range, and outside it when the scenario says the FMU wants it: the ball gains
  // height at every bounce with e = 1.2.
  EXPECT_EQ(scenario_error(ball("parameters = { e = 1 }")), "no error");
  const Outcome o = sequential(scenario(ball("parameters = { e = 1.2 }\ncheck_ranges = false")));
  ASSERT_TRUE(o.result.completed()) << o.result.error;
  double highest_after_bounce = 0;
  for (const auto& row : o.rows)
    if (row[0] > 0.5) highest_after_bounce = std::max(highest_after_bounce, row[1]);
  EXPECT_GT(highest_after_bounce, 0.0);
  // A subsystem that is not an FMU has no such field.
  EXPECT_NE(scenario_error("[run]\nt_end = 1.0\noutput_interval = 0.1\n[[subsystem]]\n"
                           "name = \"m\"\nmodel = \"water_tank\"\nintegrator = \"rk4\"\n"
                           "parameters = { area = 1.0, orifice = 0.01 }\n"
                           "h = 0.01\ncheck_ranges = false\n")
                .find("check_ranges"),
            std::string::npos);
}

TEST(FmuPartitions, AStatelessModelExchangeFmuIsSteppedAsOneThatStepsItself) {
  const auto text = [](const std::string& integrator) {
    return one_fmu("steps", "staircase", integrator, "0.1");
  };
  const std::string e = scenario_error(text("rk4"));
  EXPECT_NE(e.find("subsystem 'steps' steps itself: set integrator = \"co-simulation\" (a "
                   "model-exchange FMU without continuous states steps from event to event)"),
            std::string::npos)
      << e;
  EXPECT_EQ(scenario_error(text("co-simulation")), "no error");
}

// A String parameter (in `parameters` or `start`, as text) reaches the FMU; the FMU's
// String output is not coupled and does not stop it; a number for a String, text for a
// number or for a calculated String are refused at the scenario's line.
TEST(FmuPartitions, StringParametersAreGivenAsTextAndStringPortsStayUncoupled) {
  const auto steps = [](const std::string& kind, const std::string& more) {
    return one_fmu("steps", "staircase", "co-simulation", "0.05",
                   "kind = \"" + kind + "\"\n" + more, "0.25");
  };
  for (const char* kind : {"model-exchange", "co-simulation"}) {
    SCOPED_TRACE(kind);
    const PartitionedScenario s =
        scenario(steps(kind, "parameters = { period = 0.25, direction = \"down\" }"));
    const Outcome seq = sequential(s);
    ASSERT_TRUE(seq.result.completed()) << seq.result.error;
    ASSERT_FALSE(seq.rows.empty());
    EXPECT_EQ(seq.rows.back()[2], -4.0);  // level at t = 1: four events, each down
    const Outcome started = sequential(scenario(steps(kind,
                                                      "parameters = { period = 0.25 }\n"
                                                      "start = { direction = \"down\" }")));
    EXPECT_EQ(started.result.trajectory_sha256, seq.result.trajectory_sha256);
    PartitionedMode optimistic;
    optimistic.speculate = true;
    EXPECT_EQ(distributed(s, optimistic).result.trajectory_sha256, seq.result.trajectory_sha256);
  }
  const std::string number =
      scenario_error(steps("co-simulation", "parameters = { direction = 5 }"));
  EXPECT_NE(number.find("fmu-test.toml:11: subsystem[1].parameters 'direction' is a String: give "
                        "it text, in quotes"),
            std::string::npos)
      << number;
  EXPECT_NE(scenario_error(steps("co-simulation", "parameters = { period = \"fast\" }"))
                .find("'period' is a Real: give it a number"),
            std::string::npos);
  EXPECT_NE(scenario_error(steps("co-simulation", "start = { label = \"x\" }"))
                .find("'label' (output) is calculated by the FMU"),
            std::string::npos);
  EXPECT_NE(scenario_error("[run]\nt_end = 1.0\noutput_interval = 0.1\n[[subsystem]]\n"
                           "name = \"m\"\nmodel = \"water_tank\"\nintegrator = \"rk4\"\n"
                           "parameters = { area = \"big\", orifice = 0.01 }\nh = 0.01\n")
                .find("parameters.area must be a number"),
            std::string::npos);
}

// A String travels as text_lanes whole numbers of six bytes each, and back; what is not
// such lanes (they may come from the wire) is refused with the lane.
TEST(TextLanes, PackAndUnpackEveryTextUpToTheLimit) {
  std::vector<double> lanes(text_lanes);
  for (const std::string& text : {std::string(), std::string("level 3"), std::string("ü → ∞"),
                                  std::string(max_coupled_text_bytes, 'x')}) {
    ASSERT_EQ(pack_text(text, lanes), "") << text;
    const UnpackedText back = unpack_text(lanes);
    EXPECT_EQ(back.problem, "");
    EXPECT_EQ(back.text, text);
    for (double lane : lanes)
      EXPECT_TRUE(lane >= 0 && lane < 281474976710656.0 && lane == std::floor(lane));
  }
  pack_text("ab", lanes);
  EXPECT_EQ(lanes[0], double(('a' << 8 | 'b')) * 65536.0 * 256.0 * 256.0);
  EXPECT_NE(pack_text(std::string(max_coupled_text_bytes + 1, 'x'), lanes).find("97 bytes long"),
            std::string::npos);
  EXPECT_NE(pack_text(std::string("a\0b", 3), lanes).find("zero byte"), std::string::npos);
  for (const double bad : {0.5, -1.0, 281474976710656.0, std::nan(""), HUGE_VAL}) {
    std::vector<double> wrong(text_lanes, 0.0);
    wrong[3] = bad;
    EXPECT_NE(unpack_text(wrong).problem.find("lane 4 holds"), std::string::npos) << bad;
  }
  std::vector<double> gap(text_lanes, 0.0);
  gap[2] = 65.0;  // text after a lane of zero bytes
  EXPECT_NE(unpack_text(gap).problem.find("after the text's end"), std::string::npos);
  EXPECT_EQ(text_lane_name("label", 0), "label");
  EXPECT_EQ(text_lane_name("label", 15), "label#16");
}

// A String port is a port only when coupled: text_lanes signature entries, its first lane
// named by the port; a name that is no String port is refused.
TEST(TextLanes, ACoupledStringIsLanesOfTheSignature) {
  const fmu::ModelDescription md = fmu::read_model_description(fmu_file("staircase"));
  const FmuPorts plain = fmu_ports(md, fmu::FmuKind::co_simulation);
  const FmuPorts coupled = fmu_ports(md, fmu::FmuKind::co_simulation, {"label"});
  EXPECT_EQ(plain.signature.outputs, (std::vector<std::string>{"signal", "level", "switched"}));
  ASSERT_EQ(coupled.signature.outputs.size(), 3 + text_lanes);
  EXPECT_EQ(coupled.text_outputs, std::vector<std::size_t>{3});
  EXPECT_EQ(coupled.signature.outputs[3], "label");
  EXPECT_EQ(coupled.signature.outputs.back(), "label#16");
  EXPECT_EQ(coupled.signature.states, coupled.signature.outputs);
  EXPECT_NE(error_of([&] {
              fmu_ports(md, fmu::FmuKind::co_simulation, {"direction"});
            }).find("'direction' is coupled as a String, but it is no String input or output"),
            std::string::npos);
  const fmu::ModelDescription reader = fmu::read_model_description(fmu_file("text_reader"));
  const FmuPorts in = fmu_ports(reader, fmu::FmuKind::co_simulation, {"text"});
  EXPECT_EQ(in.text_inputs, std::vector<std::size_t>{0});
  EXPECT_EQ(in.signature.inputs.size(), text_lanes);
}

// The staircase's String output label ("level 3") drives the text reader's String input,
// which integrates the number in it; the integrator gets the level as a number. Both give
// the same bits, under every method, in FMI 2.0 and 3.0; a bad lane reaching the reader is
// the reader's error naming its input.
const char* kTexts = R"(
[run]
t_end = 2.0
output_interval = 0.1
[[subsystem]]
name = "stairs"
model = "fmu"
fmu = "@staircase@"
kind = "co-simulation"
integrator = "co-simulation"
h = 0.1
parameters = { period = 0.5 }
[[subsystem]]
name = "reader"
model = "fmu"
fmu = "@text_reader@"
integrator = "co-simulation"
h = 0.1
[[subsystem]]
name = "reader3"
model = "fmu"
fmu = "@text_reader_3@"
integrator = "co-simulation"
h = 0.1
[[subsystem]]
name = "sum"
model = "fmu"
fmu = "@integrator@"
kind = "co-simulation"
integrator = "co-simulation"
h = 0.1
[[coupling]]
from = "stairs.label"
to = "reader.text"
[[coupling]]
from = "stairs.label"
to = "reader3.text"
[[coupling]]
from = "stairs.level"
to = "sum.u"
)";

TEST(FmuPartitions, AStringCoupledBetweenFmusCarriesItsTextUnderEveryMethod) {
  const PartitionedScenario s = scenario(kTexts);
  ASSERT_EQ(s.couplings.size(), 2 * text_lanes + 1);
  EXPECT_TRUE(s.couplings[0].text);
  EXPECT_EQ(s.couplings[0].hold, 0);
  const Outcome seq = sequential(s);
  ASSERT_TRUE(seq.result.completed()) << seq.result.error;
  // columns: t, stairs (3 + lanes), reader (number, area, length), reader3 (the same), sum (x, y)
  const std::size_t reader = 1 + 3 + text_lanes, reader3 = reader + 3, sum = reader3 + 3;
  ASSERT_EQ(seq.rows.back().size(), sum + 2);
  for (std::size_t k = 1; k < seq.rows.size(); ++k) {
    const auto& row = seq.rows[k];
    EXPECT_EQ(row[reader], seq.rows[k - 1][2]) << "number = the level one step before, row " << k;
    EXPECT_EQ(row[reader + 1], row[sum]) << "area = the integral of the level, row " << k;
    EXPECT_EQ(row[reader + 2], 7.0) << "\"level k\" has 7 bytes";
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(row[reader3 + c], row[reader + c]);
  }
  EXPECT_NEAR(seq.rows.back()[sum], 0.5 * (1 + 2 + 3), 1e-12);  // ∫ of the level, sampled at 0.1 s
  for (const bool speculate : {false, true}) {
    PartitionedMode mode;
    mode.speculate = speculate;
    const Outcome run = distributed(s, mode);
    ASSERT_TRUE(run.result.completed()) << run.result.error;
    EXPECT_EQ(run.result.trajectory_sha256, seq.result.trajectory_sha256) << speculate;
  }
  // A tolerance that accepts any predicted number (the level's, held, off by one after each
  // rise) never accepts a predicted String that is not the text: the readers' columns are the
  // sequential run's whatever the timing.
  PartitionedMode loose;
  loose.speculate = true;
  loose.tolerance = 1e300;
  const Outcome run = distributed(s, loose);
  ASSERT_TRUE(run.result.completed()) << run.result.error;
  ASSERT_EQ(run.rows.size(), seq.rows.size());
  for (std::size_t k = 0; k < seq.rows.size(); ++k)
    for (std::size_t c = reader; c < sum; ++c) EXPECT_EQ(run.rows[k][c], seq.rows[k][c]) << k;
}

TEST(FmuPartitions, AStringCouplingIsCheckedWhereTheScenarioWritesIt) {
  const auto with = [](const std::string& from, const std::string& to, const std::string& more) {
    std::string text = kTexts;
    text = text.substr(0, text.find("[[coupling]]"));
    return text + "[[coupling]]\nfrom = \"" + from + "\"\nto = \"" + to + "\"\n" + more +
           "[[coupling]]\nfrom = \"stairs.level\"\nto = \"sum.u\"\n";
  };
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& more,
                           const std::string& expected) {
    const std::string e = scenario_error(with(from, to, more));
    EXPECT_NE(e.find(expected), std::string::npos) << e;
  };
  refused("stairs.label", "reader3.text", "hold = 1\n",
          "coupling[1].hold a coupled String is held from sample to sample: it takes no hold");
  refused("stairs.label", "sum.u", "",
          "'stairs.label' is a String and 'sum.u' a number: a String couples only to a String");
  refused("stairs.signal", "reader.text", "",
          "'stairs.signal' is a number and 'reader.text' a String");
  refused("stairs.direction", "reader.text", "", "model 'fmu' has no output 'direction'");
  std::string lanes = with("stairs.label", "reader.text", "");
  lanes += "[[coupling]]\nfrom = \"stairs.label#2\"\nto = \"reader3.text\"\n";
  EXPECT_NE(scenario_error(lanes).find("'stairs.label#2' is a lane of the String 'label'"),
            std::string::npos);
  // The reader given lanes that hold no text fails with its input's name.
  CompositeRecipe recipe;
  recipe.members.push_back({"reader", "fmu", {}, {}});
  recipe.members.back().fmu.archive = fmu_file("text_reader");
  recipe.members.back().fmu.co_simulation = true;
  recipe.members.back().fmu.coupled_texts = {"text"};
  const auto model = make_fmu_model("c", recipe.members.back());
  ASSERT_EQ(model->input_size(), text_lanes);
  Vector u = Vector::Zero(text_lanes), x = model->initial_state();
  ASSERT_EQ(pack_text("level 12", std::span<double>(u.data(), text_lanes)), "");
  model->step(0.0, 0.1, u, Matrix(text_lanes, 0), x);
  EXPECT_EQ(x[0], 12.0);
  EXPECT_EQ(x[2], 8.0);
  u[1] = 0.25;
  EXPECT_NE(error_of([&] {
              model->step(0.1, 0.1, u, Matrix(text_lanes, 0), x);
            }).find("String input 'text': lane 2 holds 0.25"),
            std::string::npos);
}

std::string vdp_with(const std::string& fmu, const std::string& more = "") {
  std::string text = kVanDerPol;
  text.replace(text.find("@van_der_pol@"), 13, "@" + fmu + "@");
  text.replace(text.find("parameters = { mu = 1.5 }"), 25, more);
  return text;
}

// A model refused after its FMU was unpacked (here: a binary without a function FMI needs)
// left its temporary directory behind, one per attempt over the wire.
TEST(FmuScenario, AModelRefusedHalfBuiltLeavesNoUnpackedFiles) {
  kausal::testing::TempDir tmp;
  const char* was = std::getenv("TMPDIR");
  const std::string saved = was ? was : "";
  setenv("TMPDIR", tmp.path().c_str(), 1);
  for (int attempt = 0; attempt < 3; ++attempt)
    EXPECT_NE(scenario_error(vdp_with("missing_function")).find("lacks fmi2GetDerivatives"),
              std::string::npos);
  EXPECT_TRUE(plan_partitions(scenario(vdp_with("van_der_pol", "parameters = { mu = 1.5 }")), {})
                  .configs.size() > 0);
  if (was)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()))
      << std::filesystem::begin(std::filesystem::directory_iterator(tmp.path()))->path();
}

TEST(FmuScenario, BadFmusAndStartValuesNameTheFileLineAndProblem) {
  const std::string dir = KAUSAL_TEST_FMU_DIR;
  EXPECT_EQ(scenario_error(vdp_with("not_a_zip")),
            "fmu-test.toml:8: subsystem[1].fmu " + dir +
                "/not_a_zip.fmu: not a zip archive (Not a zip archive)");
  EXPECT_NE(scenario_error(vdp_with("bad_xml"))
                .find("fmu-test.toml:8: subsystem[1].fmu " + dir +
                      "/bad_xml.fmu: modelDescription.xml:51:"),
            std::string::npos)
      << scenario_error(vdp_with("bad_xml"));
  EXPECT_NE(scenario_error(vdp_with("wrong_version")).find("fmiVersion is '1.0'"),
            std::string::npos);
  EXPECT_NE(scenario_error(vdp_with("no_binary")).find("no linux64 binary"), std::string::npos)
      << scenario_error(vdp_with("no_binary"));
  EXPECT_NE(scenario_error(vdp_with("missing_function")).find("lacks fmi2GetDerivatives"),
            std::string::npos)
      << scenario_error(vdp_with("missing_function"));
  // An FMU that cannot save its state: the optimistic method and the rollback check are
  // refused, each with the way that works.
  const PartitionedScenario unsaved = scenario(vdp_with("van_der_pol_no_state"));
  PartitionedMode check, optimistic;
  check.rollback_check = true;
  optimistic.speculate = true;
  const std::string checked = error_of([&] { plan_partitions(unsaved, check); });
  EXPECT_NE(checked.find("The rollback check rolls every step back to take it again: run it "
                         "without --rollback-check"),
            std::string::npos)
      << checked;
  EXPECT_EQ(checked.find("--method conservative"), std::string::npos) << checked;
  EXPECT_NE(error_of([&] {
              plan_partitions(unsaved, optimistic);
            }).find("run it with --method conservative or sequential"),
            std::string::npos);
  // A binary built for another GUID: said as itself, first, not as a failed check of its state.
  ::testing::internal::CaptureStderr();
  const std::string guid = scenario_error(vdp_with("wrong_guid"));
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(guid.find("fmi2Instantiate: GUID '{7b5c1f0e-93d4-4a57-a1e2-5f6a0c3b9d21}' does not "
                      "match this FMU's"),
            std::string::npos)
      << guid;
  EXPECT_EQ(said.find("check of its saved state"), std::string::npos) << said;
  EXPECT_EQ(guid.find("check of its saved state"), std::string::npos) << guid;
  EXPECT_EQ(scenario_error(vdp_with("van_der_pol", "parameters = { nu = 2 }")),
            "fmu-test.toml:9: subsystem[1].parameters 'nu' is not a variable of the FMU "
            "(van_der_pol.fmu)");
  EXPECT_NE(scenario_error(vdp_with("van_der_pol", "start = { \"der(x0)\" = 2 }"))
                .find("fmu-test.toml:9: subsystem[1].start 'der(x0)' (local) is calculated"),
            std::string::npos)
      << scenario_error(vdp_with("van_der_pol", "start = { \"der(x0)\" = 2 }"));
  EXPECT_NE(scenario_error(vdp_with("van_der_pol", "kind = \"co-simulation\""))
                .find("steps itself: set integrator = \"co-simulation\""),
            std::string::npos);
  // feedthrough has no continuous states: as model exchange it steps itself.
  EXPECT_NE(scenario_error(vdp_with("feedthrough"))
                .find("subsystem 'vdp' steps itself: set integrator = \"co-simulation\" (a "
                      "model-exchange FMU without continuous states steps from event to event)"),
            std::string::npos)
      << scenario_error(vdp_with("feedthrough"));
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// [run] and [master] given, then a Van der Pol FMU (`vdp_fmu` of tests/fmus) whose x0 a
// co-simulation FMU integrates.
PartitionedScenario van_der_pol_into_an_integrator(const std::string& tables,
                                                   const std::string& vdp_fmu) {
  return scenario(tables + "[[subsystem]]\nname = \"vdp\"\nmodel = \"fmu\"\nfmu = \"@" + vdp_fmu +
                  "@\"\nintegrator = \"rk4\"\nh = 0.01\n[[subsystem]]\nname = \"sum\"\n"
                  "model = \"fmu\"\nfmu = \"@integrator@\"\nkind = \"co-simulation\"\n"
                  "integrator = \"co-simulation\"\nh = 0.01\n[[coupling]]\nfrom = \"vdp.x0\"\n"
                  "to = \"sum.u\"\n");
}

// The co-simulation master iterates and rejects macro steps through the FMUs' saved states: a
// model-exchange FMU (Van der Pol) feeds a co-simulation FMU (an integrator), both rolled back
// by the master, with one digest in turn and at once.
TEST(FmuPartitions, TheMasterRepeatsMacroStepsThroughTheFmusSavedStates) {
  const PartitionedScenario s = van_der_pol_into_an_integrator(R"(
[run]
t_end = 2.0
hold = 2
choose_order = true
output_interval = 0.1
[master]
step = 0.05
min_step = 0.01
max_step = 0.1
exchange = "jacobi"
iterations = 6
error_control = true
rtol = 1e-4
atol = 1e-7
)",
                                                               "van_der_pol");
  const Outcome in_turn = testing::master(s, false);
  ASSERT_EQ(in_turn.result.status, RunStatus::completed) << in_turn.result.error;
  const CosimulationFigures& f = *in_turn.result.cosimulation;
  EXPECT_GT(f.extra_passes + f.rejected_steps, 0u);
  EXPECT_GT(in_turn.result.partitions[1].stats.rollbacks, 0u);  // the co-simulation FMU's
  EXPECT_EQ(testing::master(s, true).result.trajectory_sha256, in_turn.result.trajectory_sha256);
  // sum.y integrates vdp.x0: the trapezoid of the rows stays near it.
  double integral = 0;
  for (std::size_t k = 1; k < in_turn.rows.size(); ++k)
    integral += 0.5 * (in_turn.rows[k][1] + in_turn.rows[k - 1][1]) *
                (in_turn.rows[k][0] - in_turn.rows[k - 1][0]);
  EXPECT_NEAR(in_turn.rows.back()[3], integral, 0.02);
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// An FMU that cannot restore its state is never rolled back by the master: its error control
// only sets the next step, and iterating it is refused before the run.
TEST(FmuPartitions, TheMasterNeverRepeatsAStepOfAnFmuWithoutGetSetState) {
  const std::string text = R"(
[run]
t_end = 2.0
hold = 1
output_interval = 0.1
[master]
step = 0.1
min_step = 0.01
max_step = 0.1
error_control = true
rtol = 1e-6
atol = 1e-9
)";
  const Outcome o = testing::master(van_der_pol_into_an_integrator(text, "van_der_pol_no_state"));
  ASSERT_EQ(o.result.status, RunStatus::completed) << o.result.error;
  EXPECT_EQ(o.result.cosimulation->rejected_steps, 0u);
  EXPECT_GT(o.result.cosimulation->above_tolerance, 0u);  // kept, and counted
  EXPECT_EQ(o.result.partitions[0].stats.rollbacks, 0u);
  EXPECT_NE(error_of([&] {
              const PartitionedScenario s =
                  van_der_pol_into_an_integrator(text, "van_der_pol_no_state");
              PartitionedScenario iterated = s;
              iterated.master->iterations = 3;
              plan_partitions(iterated, {});
            }).find("The master's iterations roll partitions back"),
            std::string::npos);
}

// ---- FMI 3.0: the same models through the other standard ----

// The scenario with every test FMU @NAME@ replaced by its FMI 3.0 twin @NAME_3@ (tests/fmus:
// the same model source behind fmi3* functions, every integer type and Float32 among its
// variables).
// The sawtooth (tests/fmus/sawtooth.c): x' = 1 by Euler at h = 1/8 to t = 3, a step event
// after every 8th completed step resetting x.
std::string sawtooth(const std::string& fmu) {
  return "[run]\nt_end = 3.0\noutput_interval = 0.125\n[[subsystem]]\nname = \"saw\"\n"
         "model = \"fmu\"\nfmu = \"@" +
         fmu + "@\"\nintegrator = \"euler\"\nh = 0.125\n";
}

// FMI 2.0 model exchange: an FMU that asks for fmi2CompletedIntegratorStep is told of each
// step once, at its end, under every method (a rollback and the rollback check restore its
// count with its state), and the step event it asks for there resets x at that step's end:
// x = (k mod 8)/8 at step k. One that says completedIntegratorStepNotNeeded is not told.
TEST(FmuModelExchange, EveryStepIsCompletedOnceAndItsStepEventsTakeEffectThere) {
  const PartitionedScenario s = scenario(sawtooth("sawtooth"));
  const Outcome seq = sequential(s);
  ASSERT_TRUE(seq.result.completed()) << seq.result.error;
  ASSERT_EQ(seq.rows.size(), 25u);
  for (std::size_t k = 0; k < seq.rows.size(); ++k)
    EXPECT_EQ(seq.rows[k][1], 0.125 * static_cast<double>(k % 8)) << "step " << k;
  for (const bool speculate : {false, true}) {
    PartitionedMode mode;
    mode.speculate = speculate;
    mode.rollback_check = true;
    const Outcome o = distributed(s, mode);
    ASSERT_TRUE(o.result.completed()) << o.result.error;
    EXPECT_EQ(o.rows, seq.rows) << speculate;
    EXPECT_EQ(o.result.trajectory_sha256, seq.result.trajectory_sha256) << speculate;
  }
  const Outcome unneeded = sequential(scenario(sawtooth("sawtooth_unneeded")));
  ASSERT_TRUE(unneeded.result.completed()) << unneeded.result.error;
  EXPECT_EQ(unneeded.rows.back()[1], 3.0);
}

std::string fmi3_twin(std::string text) {
  for (std::size_t at = text.find('@'); at != std::string::npos;) {
    const std::size_t end = text.find('@', at + 1);
    text.insert(end, "_3");
    at = text.find('@', end + 3);
  }
  return text;
}

// linear_system (tests/fmus/linear_system.c): its FMI 3.0 twin declares the states, the matrix
// A, the outputs and the event indicators as arrays sized by a structural parameter; the 2.0
// one names the same values one by one ("x[1]", "A[2,2]"). Model exchange stepped by backward
// Euler (directional derivatives), beside itself as co-simulation, coupled both ways.
const std::string kLinearPair = R"([run]
t_end = 2.0
hold = 0
output_interval = 0.1
[[subsystem]]
name = "sys"
model = "fmu"
fmu = "@linear_system@"
parameters = { "A[2,2]" = -0.6 }
integrator = "backward_euler"
h = 0.01
[[subsystem]]
name = "cs"
model = "fmu"
fmu = "@linear_system@"
kind = "co-simulation"
integrator = "co-simulation"
h = 0.01
[[coupling]]
from = "sys.y[1]"
to = "cs.u"
[[coupling]]
from = "cs.y[2]"
to = "sys.u"
)";

// An FMI 3.0 FMU whose states are an array follows the closed form of its linear system: x'' +
// 0.4 x' + 4 x = 0 from x = 1, x' = 0 (A = [[0, 1], [-4, -0.4]]), by RK4 at 1 ms.
TEST(Fmi3, AStateArrayFollowsTheClosedForm) {
  const Outcome o = sequential(
      scenario(fmi3_twin(one_fmu("sys", "linear_system", "rk4", "0.001", "inputs = { u = 0 }"))));
  ASSERT_TRUE(o.result.completed()) << o.result.error;
  const double w = std::sqrt(4.0 - 0.04);
  ASSERT_EQ(o.rows.size(), 11u);
  for (const auto& row : o.rows) {
    const double t = row[0], decay = std::exp(-0.2 * t);
    EXPECT_NEAR(row[1], decay * (std::cos(w * t) + 0.2 / w * std::sin(w * t)), 1e-9) << t;
    EXPECT_NEAR(row[2], -decay * (4.0 / w) * std::sin(w * t), 1e-9) << t;
  }
}

// Every shape of FMU the 2.0 tests run — time events, state events, no continuous states,
// co-simulation with Real, Integer and Boolean ports, directional derivatives, an FMU that
// ends the simulation at its stop time, String parameters — gives, as FMI 3.0, the bits of
// its 2.0 twin sequentially, and those bits under conservative, optimistic and the rollback
// check.
TEST(Fmi3, EveryShapeGivesTheBitsOfItsFmi2TwinUnderEveryMethod) {
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"time events, model exchange beside co-simulation", kCoupled},
      {"state events", one_fmu("ball", "bouncing_ball", "rk4", "0.001")},
      {"no continuous states",
       "[run]\nt_end = 2.0\nhold = 0\noutput_interval = 0.1\n[[subsystem]]\nname = \"steps\"\n"
       "model = \"fmu\"\nfmu = \"@staircase@\"\nparameters = { period = 0.25, height = 0.5, "
       "switch_at = 0.65, direction = \"down\" }\nintegrator = \"co-simulation\"\nh = 0.1\n"
       "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"@integrator@\"\n"
       "integrator = \"rk4\"\nh = 0.01\n[[coupling]]\nfrom = \"steps.signal\"\nto = \"sum.u\"\n"},
      {"co-simulation ports of every type",
       "[run]\nt_end = 1.5\nhold = 0\noutput_interval = 0.1\n[[subsystem]]\nname = \"vdp\"\n"
       "model = \"fmu\"\nfmu = \"@van_der_pol@\"\nkind = \"co-simulation\"\n"
       "integrator = \"co-simulation\"\nh = 0.01\n[[subsystem]]\nname = \"stair\"\n"
       "model = \"fmu\"\nfmu = \"@stair_integral@\"\nintegrator = \"euler\"\nh = 0.01\n"
       "[[subsystem]]\nname = \"pass\"\nmodel = \"fmu\"\nfmu = \"@feedthrough@\"\n"
       "kind = \"co-simulation\"\ninputs = { u_bool = 1 }\nintegrator = \"co-simulation\"\n"
       "h = 0.01\n[[coupling]]\nfrom = \"vdp.x0\"\nto = \"pass.u_real\"\n[[coupling]]\n"
       "from = \"stair.counter\"\nto = \"pass.u_int\"\n"},
      {"directional derivatives", one_fmu("lin", "stiff_linear", "dre0", "0.05")},
      {"ends at its stop time, model exchange", stair_until(2.0, false)},
      {"ends at its stop time, co-simulation", stair_until(2.0, true)},
      {"arrays: states, indicators and directional derivatives, a matrix set element by "
       "element, outputs coupled element by element",
       kLinearPair},
      {"step events (CompletedIntegratorStep)", sawtooth("sawtooth")}};
  for (const auto& [shape, text] : shapes) {
    SCOPED_TRACE(shape);
    const Outcome two = sequential(scenario(text));
    ASSERT_TRUE(two.result.completed()) << two.result.error;
    const PartitionedScenario s = scenario(fmi3_twin(text));
    const Outcome three = sequential(s);
    ASSERT_TRUE(three.result.completed()) << three.result.error;
    EXPECT_EQ(three.rows, two.rows);
    EXPECT_EQ(three.result.trajectory_sha256, two.result.trajectory_sha256);
    for (const bool speculate : {false, true}) {
      PartitionedMode mode;
      mode.speculate = speculate;
      mode.rollback_check = speculate;
      const Outcome o = distributed(s, mode);
      ASSERT_TRUE(o.result.completed()) << o.result.error;
      EXPECT_EQ(o.result.trajectory_sha256, two.result.trajectory_sha256) << speculate;
    }
  }
}

// What ends a run early ends it the same way through FMI 3.0 (terminateSimulation with
// lastSuccessfulTime in fmi3DoStep, terminateSimulation of fmi3UpdateDiscreteStates), and an
// FMU error carries the FMU's own words with fmi3 names.
TEST(Fmi3, AnFmuThatEndsTheSimulationOrFailsSaysSoInFmi3Terms) {
  for (const bool co_simulation : {false, true}) {
    SCOPED_TRACE(co_simulation ? "co-simulation" : "model exchange");
    const Outcome o = sequential(scenario(fmi3_twin(stair_until(5.0, co_simulation))));
    EXPECT_EQ(o.result.status, RunStatus::failed);
    EXPECT_NE(o.result.error.find("subsystem 'stair' (stair_integral_3.fmu): the FMU ended the "
                                  "simulation at t = 2 (terminateSimulation)"),
              std::string::npos)
        << o.result.error;
    EXPECT_EQ(o.result.steps, 20u);
  }
  // A binary that disagrees with its description on its sizes is refused before it is called.
  const std::string sizes = scenario_error(one_fmu("ball", "bad_count_3", "rk4", "0.01"));
  EXPECT_NE(sizes.find("bad_count_3.fmu: fmi3GetNumberOfEventIndicators says 1, "
                       "modelDescription.xml lists 2 <EventIndicator> elements"),
            std::string::npos)
      << sizes;
  // A Float64 start value outside its declared range is refused as in FMI 2.0.
  const std::string e = scenario_error(
      fmi3_twin(one_fmu("ball", "bouncing_ball", "rk4", "0.01", "parameters = { e = 5 }")));
  EXPECT_NE(e.find("'e' = 5 is outside the range the FMU declares for it, [0, 1]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace kausal

namespace kausal {
namespace {

// The sampled loop of tests/fmus/sampler.c at t: the Clock `sample` ticks every 0.1 s from
// t = 0 and sets u = 2 (1 − x); x' = −x + u is exact in between; the countdown Clock
// `watchdog` ticks every 0.35 s and counts alarms.
struct Sampled {
  double x, u;
  double alarms;
};
Sampled sampled_loop(double t) {
  const int ticks = static_cast<int>(std::floor(t / 0.1 + 1e-9));
  double x = 0, u = 2;
  for (int k = 1; k <= ticks; ++k) {
    x = u + (x - u) * std::exp(-0.1);
    u = 2 * (1 - x);
  }
  return {u + (x - u) * std::exp(-(t - 0.1 * ticks)), u, std::floor(t / 0.35 + 1e-9)};
}

// sampler_3.fmu as `s` (`how`: its kind, integrator and step), its y integrated by sum.
PartitionedScenario sampled(const std::string& tables, const std::string& how) {
  return scenario(tables + "[[subsystem]]\nname = \"s\"\nmodel = \"fmu\"\nfmu = \"@sampler_3@\"\n" +
                  how +
                  "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"@integrator@\"\n"
                  "integrator = \"rk4\"\nh = 0.04\n[[coupling]]\nfrom = \"s.y\"\nto = \"sum.u\"\n");
}

void expect_every_method_gives(const PartitionedScenario& s, const Outcome& seq) {
  const Outcome cons = distributed(s, {false, 0, 1000});
  const Outcome opt = distributed(s, {true, 0, 16});
  PartitionedMode checked{true, 0, 16};
  checked.rollback_check = true;
  const Outcome rechecked = distributed(s, checked);
  for (const Outcome* o : {&cons, &opt, &rechecked}) {
    ASSERT_EQ(o->result.status, RunStatus::completed) << o->result.error;
    EXPECT_EQ(o->result.trajectory_sha256, seq.result.trajectory_sha256);
  }
}

// Model exchange: a Clock tick is a time event, taken at the end of the step it falls in; at
// h = 0.01 every tick ends a step, so x follows the sampled loop to RK4's error, and every
// method (rollbacks restoring the Clocks' schedule with the FMU's state) gives its bits.
TEST(Fmi3Clocks, ModelExchangeTicksEveryClockAtItsTimeUnderEveryMethod) {
  const PartitionedScenario s =
      sampled("[run]\nt_end = 2.0\noutput_interval = 0.04\n", "integrator = \"rk4\"\nh = 0.01\n");
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  ASSERT_EQ(seq.rows.size(), 51u);
  for (const auto& row : seq.rows) EXPECT_NEAR(row[1], sampled_loop(row[0]).x, 1e-9) << row[0];
  expect_every_method_gives(s, seq);
}

// Co-simulation with event mode: every step that a tick falls in (h = 0.04, ticks every 0.1 and
// 0.35 s) is cut there, the Clocks activated in event mode, and the rest of the step taken.
// The clocked outputs u and alarms hold between ticks; x is the sampled loop's.
TEST(Fmi3Clocks, CoSimulationCutsTheStepAtEveryTickInEventMode) {
  const std::string how = "kind = \"co-simulation\"\nintegrator = \"co-simulation\"\nh = 0.04\n";
  const PartitionedScenario s = sampled("[run]\nt_end = 2.0\noutput_interval = 0.04\n", how);
  const Outcome seq = sequential(s);
  ASSERT_EQ(seq.result.status, RunStatus::completed) << seq.result.error;
  ASSERT_EQ(seq.rows.size(), 51u);
  for (const auto& row : seq.rows) {  // t, s.u, s.y, s.alarms, sum.x
    const Sampled want = sampled_loop(row[0]);
    EXPECT_NEAR(row[1], want.u, 1e-9) << row[0];
    EXPECT_NEAR(row[2], want.x, 1e-9) << row[0];
    EXPECT_EQ(row[3], want.alarms) << row[0];
  }
  EXPECT_EQ(seq.rows.back()[3], 5.0);
  expect_every_method_gives(s, seq);
  // The master repeats macro steps through the saved state, schedule included.
  const PartitionedScenario m = sampled(R"(
[run]
t_end = 2.0
output_interval = 0.04
[master]
step = 0.04
exchange = "jacobi"
iterations = 3
)",
                                        how);
  const Outcome in_turn = testing::master(m, false);
  ASSERT_EQ(in_turn.result.status, RunStatus::completed) << in_turn.result.error;
  for (const auto& row : in_turn.rows) EXPECT_NEAR(row[2], sampled_loop(row[0]).x, 1e-9);
  EXPECT_EQ(testing::master(m, true).result.trajectory_sha256, in_turn.result.trajectory_sha256);
}

// FMU archives a System is sent as bytes: written by file name only into a directory of its
// own (a name that climbs out lands inside it), removed with it; refused from a caller nobody
// authenticated and when the name is no file name.
TEST(ShippedFiles, AreWrittenInsideTheirDirectoryByFileNameOnlyAndOnlyFromTls) {
  const auto recipe_of = [](const std::string& archive) {
    CompositeRecipe r;
    r.members.push_back({"f", "fmu", {}, FmuSource{archive, true, "/elsewhere", {}, {1, 2, 3}}});
    return r;
  };
  std::filesystem::path written;
  {
    ShippedFiles shipped;
    CompositeRecipe r = recipe_of("../../../../tmp/kausal-escaped.fmu");
    shipped.place("system-1", r, true);
    written = r.members[0].fmu.archive;
    EXPECT_EQ(written.filename(), "kausal-escaped.fmu");
    EXPECT_NE(written.parent_path().parent_path().filename().string().find("kausal-shipped-"),
              std::string::npos)
        << written;
    EXPECT_EQ(std::filesystem::file_size(written), 3u);
    EXPECT_TRUE(r.members[0].fmu.archive_bytes.empty());
    EXPECT_TRUE(r.members[0].fmu.unpack_root.empty());  // the monitor's path is not this host's
    EXPECT_FALSE(std::filesystem::exists("/tmp/kausal-escaped.fmu"));
    const auto refused = [&](const std::string& archive, bool authenticated) {
      CompositeRecipe bad = recipe_of(archive);
      try {
        shipped.place("system-1", bad, authenticated);
      } catch (const ModelError& e) {
        return std::string(e.what());
      }
      return std::string("taken");
    };
    EXPECT_NE(refused("..", true).find("has no file name"), std::string::npos);
    EXPECT_NE(refused("a.fmu", false).find("only over TLS"), std::string::npos);
    // A model library the same way: beside the FMU of its member, by file name only.
    CompositeRecipe lib;
    lib.members.push_back({"m", "tank", {}, {}, "/far/away/../libtank.so", {7, 7}});
    lib.members.push_back({"n", "tank", {}, {}, "/not/shipped/libtank.so"});
    shipped.place("system-1", lib, true);
    EXPECT_EQ(std::filesystem::path(lib.members[0].library).filename(), "libtank.so");
    EXPECT_EQ(std::filesystem::path(lib.members[0].library).parent_path().parent_path(),
              written.parent_path().parent_path());
    EXPECT_EQ(std::filesystem::file_size(lib.members[0].library), 2u);
    EXPECT_TRUE(lib.members[0].library_bytes.empty());
    EXPECT_EQ(lib.members[1].library, "/not/shipped/libtank.so");  // no bytes: its own path
    lib.members[0].library_bytes = {1};
    EXPECT_THROW(shipped.place("system-1", lib, false), ModelError);
  }
  EXPECT_FALSE(std::filesystem::exists(written.parent_path().parent_path()));
}

}  // namespace
}  // namespace kausal
