// The benchmark models of docs/benchmarks.md B–E and the bouncing ball: analytic Jacobians against
// central differences, parameter checking, the coupled systems' matrices, and the
// explicit-Euler stability pattern each benchmark is built to show (checked against
// SUNDIALS CVODE, never against the code under test).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "monitor/analysis/partition_analysis.hpp"
#include "reference/cvode_reference.hpp"
#include "system/composite_model.hpp"
#include "system/model_registry.hpp"

namespace kausal {
namespace {

using reference::cvode_reference;
using ReferenceRhs = reference::RightHandSide;

std::unique_ptr<Model> make(const std::string& name, const Parameters& p = {}) {
  return make_model(name, name, p);
}

// Parameters that make every registered model constructible (only a few have required ones).
Parameters sample_parameters(const std::string& name) {
  if (name == "pendulum") return {{"pivot_x", 0}, {"length", 1.2}, {"mass", 2}, {"radius", 0.1}};
  if (name == "orifice_chamber") return {{"g_up", 20}, {"g_down", 50}, {"p0", 3}};
  if (name == "oscillator_mass") return {{"k", 10}, {"d", 0.1}, {"kc", 100}, {"dc", 1}};
  if (name == "water_tank") return {{"area", 2}, {"orifice", 0.01}, {"level0", 0.5}};
  if (name == "sampled_pi")
    return {{"kp", 0.15}, {"ki", 0.002}, {"command_max", 0.1}, {"setpoint", 0.15}};
  return {};
}

// The monolithic right-hand side of coupled subsystems, the states stacked in order; each
// input is fed, at every evaluation, from the output it is coupled to (or a constant).
struct Coupling {
  std::size_t to_model, to_input, from_model, from_output;
};

class Coupled {
 public:
  Coupled(std::vector<std::unique_ptr<Model>> models, std::vector<Coupling> couplings)
      : models_(std::move(models)), couplings_(std::move(couplings)) {}

  Eigen::Index size() const {
    Eigen::Index n = 0;
    for (const auto& m : models_) n += static_cast<Eigen::Index>(m->state_size());
    return n;
  }
  Vector initial_state() const {
    Vector x(size());
    Eigen::Index at = 0;
    for (const auto& m : models_) {
      const auto n = static_cast<Eigen::Index>(m->state_size());
      x.segment(at, n) = m->initial_state();
      at += n;
    }
    return x;
  }
  void derivative(double t, const Vector& x, Vector& dx) const {
    std::vector<Vector> y, u;
    Eigen::Index at = 0;
    for (const auto& m : models_) {
      const auto n = static_cast<Eigen::Index>(m->state_size());
      y.emplace_back(m->output_size());
      m->output(t, x.segment(at, n), y.back());
      u.push_back(Vector::Zero(static_cast<Eigen::Index>(m->input_size())));
      at += n;
    }
    for (const auto& c : couplings_)
      u[c.to_model][static_cast<Eigen::Index>(c.to_input)] =
          y[c.from_model][static_cast<Eigen::Index>(c.from_output)];
    dx.resize(size());
    at = 0;
    for (std::size_t i = 0; i < models_.size(); ++i) {
      const auto n = static_cast<Eigen::Index>(models_[i]->state_size());
      models_[i]->derivative(t, x.segment(at, n), u[i], dx.segment(at, n));
      at += n;
    }
  }
  ReferenceRhs rhs() const {
    return [this](double t, const Vector& x, Vector& dx) { derivative(t, x, dx); };
  }
  // ∂f/∂x of the coupled system by central differences (couplings included).
  Matrix jacobian(double t, const Vector& x) const {
    Matrix J(size(), size());
    for (Eigen::Index j = 0; j < size(); ++j) {
      const double step = 1e-6 * std::max(1.0, std::abs(x[j]));
      Vector plus = x, minus = x, f_plus, f_minus;
      plus[j] += step;
      minus[j] -= step;
      derivative(t, plus, f_plus);
      derivative(t, minus, f_minus);
      J.col(j) = (f_plus - f_minus) / (2 * step);
    }
    return J;
  }

 private:
  std::vector<std::unique_ptr<Model>> models_;
  std::vector<Coupling> couplings_;
};

// The step of a monolithic explicit Euler, x ← x + h f(t, x), every input fed from its
// coupled output at every step. Returns the states after each step.
std::vector<Vector> euler(const ReferenceRhs& f, Vector x, double h, std::size_t steps) {
  std::vector<Vector> out;
  Vector dx;
  for (std::size_t k = 0; k < steps; ++k) {
    f(static_cast<double>(k) * h, x, dx);
    x += h * dx;
    out.push_back(x);
  }
  return out;
}

std::vector<double> grid(double h, std::size_t steps) {
  std::vector<double> t;
  for (std::size_t k = 1; k <= steps; ++k) t.push_back(static_cast<double>(k) * h);
  return t;
}

double spectral_radius(const Matrix& M) {
  return Eigen::EigenSolver<Matrix>(M, false).eigenvalues().cwiseAbs().maxCoeff();
}

TEST(Models, AnalyticJacobiansMatchCentralDifferences) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<> unit(-1, 1);
  for (const auto& name : model_registry().names()) {
    const auto model = make_model(name, name, sample_parameters(name));
    if (!model->has_jacobian()) continue;
    const auto n = static_cast<Eigen::Index>(model->state_size());
    const Vector x0 = model->initial_state();
    for (int trial = 0; trial < 5; ++trial) {
      Vector x = x0, u(model->input_size());
      for (Eigen::Index i = 0; i < n; ++i) x[i] += 0.1 * std::max(1.0, std::abs(x0[i])) * unit(rng);
      for (Eigen::Index i = 0; i < u.size(); ++i) u[i] = unit(rng);
      const double t = 0.5 * (1 + unit(rng));
      Matrix analytic(n, n), numeric(n, n);
      model->jacobian(t, x, u, analytic);
      model->Model::jacobian(t, x, u, numeric);
      const double scale = std::max(1.0, analytic.cwiseAbs().maxCoeff());
      EXPECT_LE((analytic - numeric).cwiseAbs().maxCoeff(), 1e-6 * scale)
          << name << " at x = " << x.transpose() << ", u = " << u.transpose() << "\nanalytic\n"
          << analytic << "\nnumeric\n"
          << numeric;
    }
  }
}

TEST(Models, SignaturesAreTheScenarioNames) {
  const auto names = [](const std::string& model) {
    return make(model, sample_parameters(model))->signature();
  };
  using S = std::vector<std::string>;
  EXPECT_EQ(names("orifice_chamber").inputs, (S{"p_up", "p_down"}));
  EXPECT_EQ(names("synchronous_machine").states, (S{"delta", "omega", "eq"}));
  EXPECT_EQ(names("synchronous_machine").inputs, (S{"pm"}));
  EXPECT_EQ(names("turbine").states, (S{"valve", "power"}));
  EXPECT_EQ(names("turbine").inputs, (S{"omega"}));
  EXPECT_EQ(names("actuator").inputs, (S{"command"}));
  EXPECT_EQ(names("actuator").outputs, (S{"spool"}));
  EXPECT_EQ(names("load").inputs, (S{"spool"}));
  EXPECT_EQ(names("load").outputs[0], "command");
  EXPECT_EQ(names("oscillator_mass").inputs, (S{"x_other", "v_other"}));
  EXPECT_EQ(names("bouncing_ball").outputs, (S{"h", "v"}));
  for (const auto& [name, info] : model_registry().all()) {
    EXPECT_EQ(info.summary.find('\n'), std::string::npos) << name;
    for (const auto& spec : info.parameters) EXPECT_FALSE(spec.meaning.empty()) << name;
  }
}

void expect_error_naming(const std::string& model, const Parameters& p, const std::string& what) {
  try {
    make_model("part-1", model, p);
    ADD_FAILURE() << model << " accepted " << what;
  } catch (const ModelError& e) {
    EXPECT_EQ(e.component(), "part-1");
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(Models, ParameterErrorsNameTheParameter) {
  expect_error_naming("orifice_chamber", {{"g_up", 1}}, "g_down");  // missing
  expect_error_naming("orifice_chamber", {{"g_up", 1}, {"g_down", -1}}, "g_down");
  expect_error_naming("oscillator_mass", {{"mass", 1}}, "mass");  // unknown
  expect_error_naming("oscillator_mass", {{"m", 0}}, "'m'");      // not > 0
  expect_error_naming("bouncing_ball", {{"e", 1.5}}, "'e'");      // out of [0, 1]
  expect_error_naming("synchronous_machine", {{"xd_transient", 2}}, "xd_transient");
  expect_error_naming("turbine", {{"R", 0}}, "'R'");
  expect_error_naming("actuator", {{"calc_work", 1.5}}, "calc_work");   // whole number
  expect_error_naming("actuator", {{"calc_work", 1e12}}, "calc_work");  // an hour per Calc
  expect_error_naming("load", {{"x0", 0.6}}, "x0");                     // no volume left
  expect_error_naming("load", {{"pt", 300}}, "pt");
  expect_error_naming("sampled_pi", {{"kp", 1}, {"ki", 1}, {"setpoint", 1}}, "command_max");
  expect_error_naming(
      "sampled_pi", {{"kp", 1}, {"ki", 1}, {"setpoint", 1}, {"command_min", 1}, {"command_max", 0}},
      "command_max is below command_min");
}

// A water tank whose inflow is a constant input, alone in its partition.
std::unique_ptr<CompositeModel> tank_with_constant_inflow() {
  return build_composite(
      "system-1", {{{"tank", "water_tank", {{"area", 2}, {"orifice", 0}, {"level0", 1}}, {}}},
                   {},
                   {{0, 0, 0.0}},
                   {}});
}

// dx of the tank at time t: inflow / area (no orifice).
double tank_rate(const CompositeModel& m, double t) {
  Vector x = Vector::Ones(1), dx(1);
  m.derivative(t, x, Vector(0), dx);
  return dx[0];
}

// System::change kept every change: a run with an operator (or a hostile caller) changing an
// input for ever grew without bound. What changed before the sender's committed time is
// folded into the value in force; the composite stays a function of t after it.
TEST(ModelChanges, WhatChangedBeforeTheCommittedTimeIsFoldedAndLaterTimesAreUnchanged) {
  const auto tank = tank_with_constant_inflow();
  for (int k = 1; k <= 4; ++k) tank->change({"tank", "inflow", 2.0 * k, double(k), 0});
  tank->change({"tank", "area", 4, 3.5, 0});  // a parameter: a new model from t = 3.5
  EXPECT_EQ(tank_rate(*tank, 0.5), 0.0);
  EXPECT_EQ(tank_rate(*tank, 2.5), 2.0);
  // Committed up to 2.5: the changes at 1 and 2 are folded; later times see what they saw.
  tank->change({"tank", "inflow", 10, 5, 2.5});
  EXPECT_EQ(tank_rate(*tank, 2.5), 2.0);
  EXPECT_EQ(tank_rate(*tank, 3.2), 3.0);
  EXPECT_EQ(tank_rate(*tank, 3.7), 1.5);  // area 4
  EXPECT_EQ(tank_rate(*tank, 4.0), 2.0);
  EXPECT_EQ(tank_rate(*tank, 5.0), 2.5);
  // Committed past every change: all folded, including the new model.
  tank->change({"tank", "inflow", 12, 7, 6});
  EXPECT_EQ(tank_rate(*tank, 6.5), 2.5);
  EXPECT_EQ(tank_rate(*tank, 7.0), 3.0);
}

TEST(ModelChanges, ASenderThatCommitsAsItGoesIsNeverRefusedAndOneThatDoesNotIsBounded) {
  const auto committing = tank_with_constant_inflow();
  for (int k = 1; k <= 10'000; ++k)
    committing->change({"tank", "inflow", double(k), double(k), double(k) - 0.5});
  EXPECT_EQ(tank_rate(*committing, 10'000), 5'000.0);

  const auto holding = tank_with_constant_inflow();
  std::size_t kept = 0;
  try {
    for (int k = 1; k <= 10'000; ++k, ++kept)
      holding->change({"tank", "inflow", double(k), double(k), 0});
    ADD_FAILURE() << "10,000 changes kept for a rollback";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("changes not yet committed"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(kept, limits::max_unsettled_changes);
  EXPECT_EQ(tank_rate(*holding, 1e9), double(kept) / 2);  // the ones kept are in force
}

// An input table (a subsystem's input_table): linear between rows, held with hold, the first
// and last rows beyond the ends, and a time given twice a step whose later row holds from it.
TEST(InputTables, InterpolateHoldAndStepWhereATimeIsGivenTwice) {
  InputTable table{{0, 1, 1, 3}, {0, 2, 5, 1}, Interpolation::linear};
  EXPECT_EQ(table(-1), 0);
  EXPECT_EQ(table(0.25), 0.5);
  EXPECT_EQ(table(1), 5);  // the later of the two rows at t = 1
  EXPECT_EQ(table(2), 3);
  EXPECT_EQ(table(3), 1);
  EXPECT_EQ(table(7), 1);
  EXPECT_EQ(table.slope(-1), 0);  // the slope from the right
  EXPECT_EQ(table.slope(0), 2);
  EXPECT_EQ(table.slope(1), -2);
  EXPECT_EQ(table.slope(3), 0);
  table.interpolation = Interpolation::hold;
  EXPECT_EQ(table.slope(0.5), 0);
  EXPECT_EQ(table(0.99), 0);
  EXPECT_EQ(table(1), 5);
  EXPECT_EQ(table(2.5), 5);
  EXPECT_EQ(table.problem("t"), "");
  EXPECT_EQ((InputTable{{0, 1}, {1}}).problem("t"), "t: 2 times and 1 values");
  EXPECT_EQ((InputTable{{1, 0}, {1, 1}}).problem("t"), "t: row 2: its time goes back");
  EXPECT_EQ((InputTable{{0, 1}, {1, std::nan("")}}).problem("t"), "t: row 2 is not finite");
  EXPECT_EQ((InputTable{}).problem("t"), "t: no rows");
}

// The tank's inflow from a table: the composite evaluates it at every time asked; a change
// (kausal inject set) replaces it from its time on, also once it is folded.
TEST(InputTables, ACompositeFollowsItsTableUntilAChangeReplacesIt) {
  const auto tank = build_composite(
      "system-1", {{{"tank", "water_tank", {{"area", 2}, {"orifice", 0}, {"level0", 1}}, {}}},
                   {},
                   {{0, 0, 0.0, {{0, 4}, {0, 8}, Interpolation::linear}}},
                   {}});
  EXPECT_EQ(tank_rate(*tank, 1), 1.0);
  EXPECT_EQ(tank_rate(*tank, 3), 3.0);
  tank->change({"tank", "inflow", 2, 3.5, 0});
  EXPECT_EQ(tank_rate(*tank, 3), 3.0);
  EXPECT_EQ(tank_rate(*tank, 3.5), 1.0);
  tank->change({"tank", "inflow", 6, 10, 3.6});  // folds the first change
  EXPECT_EQ(tank_rate(*tank, 3.7), 1.0);
  EXPECT_EQ(tank_rate(*tank, 10), 3.0);
  // A table from the wire is checked like every other field.
  try {
    build_composite("system-1", {{{"tank", "water_tank", {{"area", 2}, {"orifice", 0}}, {}}},
                                 {},
                                 {{0, 0, 0.0, {{1, 0}, {0, 0}, Interpolation::hold}}},
                                 {}});
    ADD_FAILURE() << "a table whose time goes back was taken";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("constants[0].table: row 2: its time goes back"),
              std::string::npos)
        << e.what();
  }
}

// The discrete controller of tank-control.toml: one sample per step, the command held, the
// integral bounded while the command saturates, the setpoint step taken after its time.
TEST(Models, SampledPiSamplesHoldsAndDoesNotWindUp) {
  const auto pi = make("sampled_pi", {{"kp", 1},
                                      {"ki", 0.5},
                                      {"command_max", 1},
                                      {"setpoint", 2},
                                      {"setpoint_step", 1},
                                      {"setpoint_time", 10}});
  EXPECT_TRUE(pi->steps_itself());
  Vector x = pi->initial_state(), u{{0.0}}, y(1);
  const Matrix held(1, 0);
  EXPECT_EQ(x, Vector::Zero(2));
  Vector dx(2);
  EXPECT_THROW(pi->derivative(0, x, u, dx), ModelError);
  // e = 2: I = 0 + 0.5·2·1 = 1 (its bound), command = 2 + 1 → 1 (its bound).
  pi->step(0, 1, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 1.0);
  EXPECT_DOUBLE_EQ(x[1], 1.0);
  pi->output(0.5, x, y);
  EXPECT_DOUBLE_EQ(y[0], 1.0);
  // Saturated for five samples: the integral does not wind up beyond its bound...
  for (int k = 1; k < 6; ++k) pi->step(k, 1, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 1.0);
  // ...so it comes off the bound at the first sample above the setpoint: e = −1,
  // I = 1 − 0.5 = 0.5, command = −1 + 0.5 → 0.
  u[0] = 3;
  pi->step(6, 1, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 0.5);
  EXPECT_DOUBLE_EQ(x[1], 0.0);
  // The setpoint is 2 up to t = 10 and 3 after: at 3 the error is 0 from then on.
  pi->step(10, 1, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 0.0);
  pi->step(11, 1, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 0.0);
  EXPECT_DOUBLE_EQ(x[1], 0.0);
  u[0] = 2.5;  // e = 0.5 with setpoint 3
  pi->step(12, 2, u, held, x);
  EXPECT_DOUBLE_EQ(x[0], 0.5);
  EXPECT_DOUBLE_EQ(x[1], 1.0);
}

// Models.md B: chamber 1 fed by a constant 100 bar, chamber 2 draining to 0 bar.
Coupled orifice_chain() {
  std::vector<std::unique_ptr<Model>> m;
  m.push_back(make("orifice_chamber", {{"g_up", 20}, {"g_down", 20}}));
  m.push_back(make("orifice_chamber", {{"g_up", 10}, {"g_down", 50000}}));
  return Coupled(std::move(m), {{0, 1, 1, 0}, {1, 0, 0, 0}});
}

TEST(Models, TwoOrificeChambersGiveBenchmarkB) {
  auto chamber1 = make("orifice_chamber", {{"g_up", 20}, {"g_down", 20}});
  auto chamber2 = make("orifice_chamber", {{"g_up", 10}, {"g_down", 50000}});
  // Linear: the columns of A are f(e_j) − f(0); B is the response to the constant input.
  const auto f = [&](const Vector& x, double p_in) {
    Vector u1{{p_in, x[1]}}, u2{{x[0], 0.0}}, d1(1), d2(1);
    chamber1->derivative(0, x.head(1), u1, d1);
    chamber2->derivative(0, x.tail(1), u2, d2);
    return Vector{{d1[0], d2[0]}};
  };
  Matrix A(2, 2);
  for (int j = 0; j < 2; ++j) A.col(j) = f(Vector::Unit(2, j), 0) - f(Vector::Zero(2), 0);
  const Vector B = f(Vector::Zero(2), 1);
  EXPECT_EQ(A, (Matrix{{-40, 20}, {10, -50010}}));
  EXPECT_EQ(B, (Vector{{20, 0}}));
  // The same through the generic coupling (p_up of chamber 1 left at its constant 0).
  const auto chain = orifice_chain();
  EXPECT_LE((chain.jacobian(0, Vector::Zero(2)) - A).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Models, TwoOscillatorMassesGiveBenchmarkE) {
  std::vector<std::unique_ptr<Model>> m;
  m.push_back(make("oscillator_mass",
                   {{"m", 1}, {"k", 10}, {"d", 0.1}, {"kc", 100}, {"dc", 1}, {"x0", 0.1}}));
  m.push_back(make("oscillator_mass", {{"m", 1}, {"k", 1000}, {"d", 1}, {"kc", 100}, {"dc", 1}}));
  const Coupled pair(std::move(m), {{0, 0, 1, 0}, {0, 1, 1, 1}, {1, 0, 0, 0}, {1, 1, 0, 1}});
  const Matrix expected{{0, 1, 0, 0}, {-110, -1.1, 100, 1}, {0, 0, 0, 1}, {100, 1, -1100, -2}};
  EXPECT_LE((pair.jacobian(0, Vector::Zero(4)) - expected).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_EQ(pair.initial_state(), (Vector{{0.1, 0, 0, 0}}));
}

TEST(Models, BouncingBallBouncesAtTheFloor) {
  const auto ball = make("bouncing_ball", {{"e", 0.8}, {"h0", 1}});
  ASSERT_EQ(ball->indicator_count(), 1u);
  Vector g(1);
  ball->indicators(0, Vector{{0.25, -1.0}}, Vector(), g);
  EXPECT_EQ(g[0], 0.25);
  Vector x{{-0.01, -3.0}};
  ball->on_crossing(0, 0.45, x);
  EXPECT_EQ(x[0], 0.01);
  EXPECT_DOUBLE_EQ(x[1], 2.4);
  EXPECT_THROW(ball->on_crossing(1, 0.45, x), ModelError);
  // Dropped from 1 m, located to the step (Euler, 1 ms): the first bounce at √(2/g).
  Vector state = ball->initial_state(), dx(2), before(1), after(1);
  double t_bounce = 0;
  for (int k = 0; k < 1000 && t_bounce == 0; ++k) {
    ball->indicators(k * 1e-3, state, Vector(), before);
    ball->derivative(k * 1e-3, state, Vector(), dx);
    state += 1e-3 * dx;
    ball->indicators((k + 1) * 1e-3, state, Vector(), after);
    if (before[0] > 0 && after[0] <= 0) {
      ball->on_crossing(0, (k + 1) * 1e-3, state);
      t_bounce = (k + 1) * 1e-3;
    }
  }
  EXPECT_NEAR(t_bounce, std::sqrt(2 / 9.81), 2e-3);
  EXPECT_GT(state[1], 0);
}

// Models.md C: machine and turbine, pm ← turbine.power, turbine.omega ← machine.omega.
Coupled turbogenerator() {
  std::vector<std::unique_ptr<Model>> m;
  m.push_back(make("synchronous_machine"));
  m.push_back(make("turbine"));
  return Coupled(std::move(m), {{0, 0, 1, 0}, {1, 0, 0, 1}});
}

TEST(Turbogenerator, StartsAtTheEightyPercentEquilibrium) {
  const auto tg = turbogenerator();
  Vector dx;
  tg.derivative(0, tg.initial_state(), dx);
  EXPECT_LT(dx.cwiseAbs().maxCoeff(), 1e-6);
}

// Euler on the electromechanical mode: stable at 10 ms, unstable at 30 ms (Clemens §3.2).
TEST(Turbogenerator, EulerIsStableAtTenMillisecondsAndNotAtThirty) {
  const auto tg = turbogenerator();
  const Matrix J = tg.jacobian(0, tg.initial_state());
  const Matrix I = Matrix::Identity(5, 5);
  EXPECT_LT(spectral_radius(I + 0.01 * J), 1.0);
  EXPECT_GT(spectral_radius(I + 0.03 * J), 1.0);

  const auto f = tg.rhs();
  const auto times = grid(0.01, 300);
  const auto ref = cvode_reference(f, tg.initial_state(), 0, times);
  Vector scale = Vector::Zero(5);  // each component's range over the run
  for (const auto& x : ref) scale = scale.cwiseMax(x.cwiseAbs());
  const auto fine = euler(f, tg.initial_state(), 0.01, 300);
  double fine_error = 0;
  for (std::size_t k = 0; k < ref.size(); ++k)
    fine_error =
        std::max(fine_error, ((fine[k] - ref[k]).cwiseQuotient(scale)).cwiseAbs().maxCoeff());
  EXPECT_LT(fine_error, 0.05) << "Euler at 10 ms is not within a few % of CVODE";

  const auto coarse = euler(f, tg.initial_state(), 0.03, 100);
  double coarse_error = 0;
  for (std::size_t k = 0; k < coarse.size(); ++k)
    coarse_error = std::max(
        coarse_error, ((coarse[k] - ref[3 * k + 2]).cwiseQuotient(scale)).cwiseAbs().maxCoeff());
  EXPECT_GT(coarse_error, 4 * fine_error);

  // Held at 20 % after the ramp, the 10 ms run settles while the 30 ms one grows until the
  // machine loses synchronism (the speed deviation, a few 0.1 rad/s otherwise, runs away).
  const auto max_speed = [](const std::vector<Vector>& run, std::size_t from) {
    double m = 0;
    for (std::size_t k = from; k < run.size(); ++k) m = std::max(m, std::abs(run[k][1]));
    return m;
  };
  const auto long_fine = euler(f, tg.initial_state(), 0.01, 1500);
  const auto long_coarse = euler(f, tg.initial_state(), 0.03, 500);
  EXPECT_LT(max_speed(long_fine, 1200), 0.05);
  EXPECT_GT(max_speed(long_coarse, 400), 2.0);
}

// Models.md D: actuator (fast) and load (slow), command → actuator, spool → load.
Coupled hydraulic_drive() {
  std::vector<std::unique_ptr<Model>> m;
  m.push_back(make("actuator"));
  m.push_back(make("load"));
  return Coupled(std::move(m), {{0, 0, 1, 0}, {1, 0, 0, 0}});
}

TEST(HydraulicDrive, EulerNeedsATenthOfAMillisecondForTheActuator) {
  const auto drive = hydraulic_drive();
  const auto f = drive.rhs();
  const auto times = grid(1e-3, 1000);
  const auto ref = cvode_reference(f, drive.initial_state(), 0, times, 1e-9, 1e-12);
  // The controller follows the 0.1 m setpoint ramp (0.05 s to 0.25 s) and holds it.
  EXPECT_NEAR(ref[399][4], 0.1, 0.01);
  EXPECT_NEAR(ref.back()[4], 0.1, 0.006);

  const auto fine = euler(f, drive.initial_state(), 1e-4, 10000);
  double error = 0;
  for (std::size_t k = 0; k < ref.size(); ++k)
    error = std::max(error, std::abs(fine[10 * k + 9][4] - ref[k][4]));
  EXPECT_LT(error, 1e-4) << "position error of Euler at 0.1 ms, m";

  const auto coarse = euler(f, drive.initial_state(), 3e-4, 3333);
  const bool blew_up = !coarse.back().allFinite() || coarse.back().cwiseAbs().maxCoeff() > 1e6;
  EXPECT_TRUE(blew_up) << "Euler at 0.3 ms stayed bounded";
}

TEST(HydraulicDrive, PartitionsHaveTheStructureOfClemensDrive) {
  const auto drive = hydraulic_drive();
  const auto f = drive.rhs();
  const auto times = grid(0.05, 20);
  const auto ref = cvode_reference(f, drive.initial_state(), 0, times, 1e-9, 1e-12);
  const std::vector<StateBlock> blocks{{"actuator", 0, 2}, {"load", 2, 5}};
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const auto report = analyze_partitions(drive.jacobian(times[k], ref[k]), blocks,
                                           {{OdeMethod::euler, 3e-4}, {OdeMethod::euler, 1e-3}});
    const auto& actuator = report.partitions[0];
    const auto& load = report.partitions[1];
    EXPECT_GT(actuator.h_max, 1e-4);
    EXPECT_LT(actuator.h_max, 3e-4);
    EXPECT_TRUE(actuator.h_exceeds_limit);
    EXPECT_GT(load.h_max, 1e-3) << "at t = " << times[k];
    EXPECT_FALSE(load.h_exceeds_limit);
    // The open-loop cylinder has no spring: its position mode sits at λ ≈ 0 (slightly either
    // side, through the stroke-dependent volumes) beside the controller's integrator.
    for (const auto& l : load.eigenvalues) {
      if (l.real() < 0) continue;
      EXPECT_LT(std::abs(l), 1.0) << "at t = " << times[k];
    }
  }
}

}  // namespace
}  // namespace kausal
