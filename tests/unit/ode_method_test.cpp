// The integration methods of general partitioned models (integrator/ode_method.hpp):
// orders of accuracy, Clemens' stiff model B (docs/benchmarks.md B), AB3 start-up and rollback,
// the φ-series against Eigen's matrix exponential, errors. References come from closed
// forms or from Eigen's MatrixFunctions, never from the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "common/errors.hpp"
#include "integrator/exponential_series.hpp"
#include "integrator/ode_method.hpp"
#include "system/chain.hpp"
#include "system/pendulum.hpp"

namespace kausal {
namespace {

using Derivative = std::function<void(double, VectorView, VectorOut)>;
using Jacobian = std::function<void(double, VectorView, MatrixOut)>;

class FunctionRhs : public RightHandSide {
 public:
  FunctionRhs(Derivative f, Jacobian j) : f_(std::move(f)), j_(std::move(j)) {}
  void derivative(double t, VectorView x, VectorOut dx) override { f_(t, x, dx); }
  void jacobian(double t, VectorView x, MatrixOut J) override { j_(t, x, J); }

 private:
  Derivative f_;
  Jacobian j_;
};

bool bit_equal(const Vector& a, const Vector& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

Vector run(OdeMethod method, RightHandSide& f, Vector x, double h, int steps,
           std::vector<StateBlock> blocks = {}) {
  OdeStepper stepper(method, static_cast<std::size_t>(x.size()), std::move(blocks));
  for (int i = 0; i < steps; ++i) stepper.step(f, i * h, h, x);
  return x;
}

// ---------------------------------------------------------------- orders of accuracy

// x' = −x + sin t, x(0) = 1: x(t) = 3/2 e^{−t} + (sin t − cos t)/2.
FunctionRhs forced_decay() {
  return FunctionRhs([](double t, VectorView x, VectorOut dx) { dx[0] = -x[0] + std::sin(t); },
                     [](double, VectorView, MatrixOut J) { J(0, 0) = -1; });
}
double forced_decay_exact(double t) {
  return 1.5 * std::exp(-t) + 0.5 * (std::sin(t) - std::cos(t));
}

// The observed order log2(e(h)/e(h/2)) at T = 2 for h = 0.02 (100 and 200 steps).
double observed_order(OdeMethod method) {
  FunctionRhs f = forced_decay();
  const double end = 2.0;
  auto error = [&](int steps) {
    const Vector x = run(method, f, Vector::Constant(1, 1.0), end / steps, steps);
    return std::abs(x[0] - forced_decay_exact(end));
  };
  return std::log2(error(100) / error(200));
}

TEST(OdeMethodOrder, EulerAndBackwardEulerAreFirstOrder) {
  EXPECT_NEAR(observed_order(OdeMethod::euler), 1.0, 0.1);
  EXPECT_NEAR(observed_order(OdeMethod::backward_euler), 1.0, 0.1);
}

TEST(OdeMethodOrder, Rk3AndAb3AreThirdOrder) {
  EXPECT_NEAR(observed_order(OdeMethod::rk3), 3.0, 0.15);
  EXPECT_NEAR(observed_order(OdeMethod::ab3), 3.0, 0.15);
}

TEST(OdeMethodOrder, Rk4IsFourthOrder) {
  EXPECT_NEAR(observed_order(OdeMethod::rk4), 4.0, 0.15);
}

// Every Adams method has the order of its name (AMk too: k is the order, not the steps),
// its start-up steps included.
TEST(OdeMethodOrder, EveryAdamsMethodHasTheOrderOfItsName) {
  const std::vector<std::pair<const char*, int>> methods = {
      {"ab1", 1},        {"ab2", 2},        {"ab3", 3},        {"ab4", 4},
      {"am1", 1},        {"am2", 2},        {"am3", 3},        {"am4", 4},
      {"abm1", 1},       {"abm2", 2},       {"abm3", 3},       {"abm4", 4},
      {"abm2-pec2e", 2}, {"abm3-pec2e", 3}, {"abm4-pec2e", 4}, {"abm4-pec3e", 4}};
  for (const auto& [name, order] : methods)
    EXPECT_NEAR(observed_order(parse_ode_method(name, "")), order, 0.2) << name;
}

// Exponential Euler with the exact Jacobian is second order on an autonomous problem:
// x' = x(1 − x), x(0) = 0.1, x(t) = 1/(1 + 9 e^{−t}).
TEST(OdeMethodOrder, Dre0IsSecondOrderOnAnAutonomousProblem) {
  FunctionRhs f([](double, VectorView x, VectorOut dx) { dx[0] = x[0] * (1 - x[0]); },
                [](double, VectorView x, MatrixOut J) { J(0, 0) = 1 - 2 * x[0]; });
  const double end = 4.0;
  auto error = [&](int steps) {
    const Vector x = run(OdeMethod::dre0, f, Vector::Constant(1, 0.1), end / steps, steps);
    return std::abs(x[0] - 1 / (1 + 9 * std::exp(-end)));
  };
  EXPECT_NEAR(std::log2(error(100) / error(200)), 2.0, 0.15);
}

// DRE1 takes the inhomogeneity as a ramp instead of held: on the forced decay (an input that
// DRE0 holds over each step) it is second order where DRE0 is first.
TEST(OdeMethodOrder, Dre1IsSecondOrderWhereDre0HoldsTheInput) {
  EXPECT_NEAR(observed_order(OdeMethod::dre0), 1.0, 0.1);
  EXPECT_NEAR(observed_order(OdeMethod::dre1), 2.0, 0.15);
  EXPECT_NEAR(observed_order(OdeMethod::pdre1), 2.0, 0.15);
}

// Linear dynamics driven by a ramp, x' = A x + b + c t: from the exact state at the last two
// step starts, one DRE1 step is exact at any step (here h|λ| = 50), and it is the start-up
// DRE0 step alone that is not.
TEST(OdeMethodOrder, Dre1IsExactOnLinearDynamicsDrivenByARamp) {
  Matrix a(2, 2);
  a << -1, 2, 0, -50;
  const Vector b{{1.0, -2.0}}, c{{3.0, 5.0}};
  FunctionRhs f([&](double t, VectorView x, VectorOut dx) { dx = a * x + b + c * t; },
                [&](double, VectorView, MatrixOut J) { J = a; });
  // x(t) = e^{tA} x0 + ∫_0^t e^{(t−s)A}(b + c s) ds, from Eigen's exponential of the augmented
  // matrix [[A, b, c, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]] (b + c s: s from the last).
  const Vector x0{{1.0, 0.5}};
  const auto exact = [&](double t) {
    Matrix m = Matrix::Zero(5, 5);
    m.block(0, 0, 2, 2) = a;
    m.block(0, 2, 2, 1) = b;
    m.block(0, 3, 2, 1) = c;
    m(3, 4) = 1;
    Vector z(5);
    z << x0, 1.0, 0.0, 1.0;
    return Vector((m * t).exp() * z).head(2).eval();
  };
  const double h = 1.0;
  OdeStepper stepper(OdeMethod::dre1, 2);
  Vector x = exact(0);
  stepper.step(f, 0, h, x);  // DRE0: the input held at b
  EXPECT_GT((x - exact(h)).norm(), 1e-3);
  StepperMemory m = stepper.memory();
  ASSERT_EQ(m.past.size(), 2u);
  EXPECT_TRUE(bit_equal(m.past[1], exact(0)));  // x at the step's start
  x = exact(h);
  stepper.step(f, h, h, x);
  EXPECT_LT((x - exact(2 * h)).norm(), 1e-12 * exact(2 * h).norm());
}

// A rollback restores DRE1's memory: the step after it has the bits of the step before it.
TEST(OdeMethodOrder, Dre1RepeatsItsStepFromARestoredMemory) {
  FunctionRhs f = forced_decay();
  OdeStepper stepper(OdeMethod::dre1, 1);
  Vector x = Vector::Constant(1, 1.0);
  for (int i = 0; i < 3; ++i) stepper.step(f, 0.1 * i, 0.1, x);
  const StepperMemory saved = stepper.memory();
  const Vector at = x;
  stepper.step(f, 0.3, 0.1, x);
  const Vector first = x;
  stepper.restore(saved);
  x = at;
  stepper.step(f, 0.3, 0.1, x);
  EXPECT_TRUE(bit_equal(x, first));
  EXPECT_THROW(
      stepper.restore(StepperMemory{2, 0.1, {Vector::Zero(1), Vector::Zero(1), Vector::Zero(1)}}),
      SimulationError);
  // A memory from the wire or a checkpoint with f but not x is refused, not read past its end.
  EXPECT_THROW(stepper.restore(StepperMemory{1, 0.1, {Vector::Zero(1)}}), SimulationError);
}

// The hardware-in-the-loop texts' eigenvalue jump, x' = −λ(t) x with λ from 5 to 1000 /s at
// t = 1, at the step the hardware keeps (10 ms): RK4 is stable before the jump (h|λ| = 0.05)
// and blows up after it (h|λ| = 10 > 2.785).
constexpr double kJumpFrame = 0.01;
FunctionRhs eigenvalue_jump() {
  const auto lambda = [](double t) { return t <= 1.0 ? 5.0 : 1000.0; };
  return FunctionRhs([=](double t, VectorView x, VectorOut dx) { dx[0] = -lambda(t) * x[0]; },
                     [=](double t, VectorView, MatrixOut J) { J(0, 0) = -lambda(t); });
}

// `stepper` up to the jump (t = 1) from x = 1, checked against RK4's very bits there.
Vector up_to_the_jump(RightHandSide& f, OdeStepper& stepper) {
  OdeStepper rk4(OdeMethod::rk4, 1);
  Vector a = Vector::Constant(1, 1.0), b = a;
  for (int i = 0; i < 100; ++i) {
    rk4.step(f, i * kJumpFrame, kJumpFrame, a);
    stepper.step(f, i * kJumpFrame, kJumpFrame, b);
  }
  EXPECT_TRUE(bit_equal(a, b));
  EXPECT_NEAR(b[0], std::exp(-5.0), 1e-8);
  return b;
}

// The combined solver judges every step's Jacobian, takes RK4's very bits before the jump and
// backward Euler from the first step after it.
TEST(OdeMethodCombined, SwitchesToBackwardEulerAtTheEigenvalueJump) {
  FunctionRhs f = eigenvalue_jump();
  OdeStepper combined(OdeMethod::combined, 1), rk4(OdeMethod::rk4, 1);
  Vector b = up_to_the_jump(f, combined), a = b;
  EXPECT_EQ(combined.implicit_steps(), 0u);
  for (int i = 100; i < 200; ++i) {
    rk4.step(f, i * kJumpFrame, kJumpFrame, a);
    combined.step(f, i * kJumpFrame, kJumpFrame, b);
  }
  EXPECT_GT(std::abs(a[0]), 1e10);  // RK4 alone: (1 − 10 + 50 − 166.7 + 416.7)^100
  EXPECT_EQ(combined.implicit_steps(), 100u);
  EXPECT_LT(std::abs(b[0]), 1e-100);  // backward Euler: (1/11)^100 of e^{−5}
  EXPECT_GT(b[0], 0.0);               // decays without changing sign, as the exact answer
}

// The same jump under the step-size control within the frame: RK4's very bits before it (one
// sub-step: h|J| = 0.05), then ⌈10 / 2.5⌉ = 4 sub-steps of 2.5 ms in every 10 ms step, each
// inside RK4's region: from the second step after the jump on, every step multiplies x by
// R(-2.5)^4 = 0.176 exactly. (The first one's stages straddle the jump, at λ = 5 and 1000:
// it overshoots through 0, to -0.30 x, as any RK4 step across a discontinuity of the model
// does; an event at the jump would cut the step there.) A step that would need more than
// max_substeps fails instead of taking an unbounded time.
TEST(OdeMethodSubsteps, TakesFourSubStepsPerStepAfterTheEigenvalueJump) {
  FunctionRhs f = eigenvalue_jump();
  OdeStepper sub(OdeMethod::rk4_substeps, 1);
  Vector b = up_to_the_jump(f, sub);
  EXPECT_EQ(sub.substeps(), 0u);
  sub.step(f, 1.0, kJumpFrame, b);
  const double r = 1 - 2.5 + 2.5 * 2.5 / 2 - 2.5 * 2.5 * 2.5 / 6 + 2.5 * 2.5 * 2.5 * 2.5 / 24;
  for (int i = 101; i < 200; ++i) {
    const double before = b[0];
    sub.step(f, i * kJumpFrame, kJumpFrame, b);
    EXPECT_NEAR(b[0] / before, std::pow(r, 4), 1e-12) << i;
  }
  EXPECT_EQ(sub.substeps(), 300u);
  EXPECT_THROW(sub.step(f, 2.0, 10.0, b), SimulationError);  // h|J| = 10^4: 4,000 sub-steps
}

// ---------------------------------------------------------------- model B (docs/benchmarks.md B)

Matrix model_b_a() {
  Matrix a(2, 2);
  a << -40, 20, 10, -50010;
  return a;
}
Vector model_b_input() {
  return Vector{{20.0 * 100.0, 0.0}};  // B·p0 with p0 = 100 bar
}

FunctionRhs model_b() {
  return FunctionRhs(
      [](double, VectorView x, VectorOut dx) { dx = model_b_a() * x + model_b_input(); },
      [](double, VectorView, MatrixOut J) { J = model_b_a(); });
}

// x(t) = A^{-1}(e^{tA} − I)·B p0 from Eigen's matrix exponential (A is invertible here).
Vector model_b_exact(double t) {
  const Matrix a = model_b_a();
  const Matrix e = (t * a).exp();
  return a.partialPivLu().solve((e - Matrix::Identity(2, 2)) * model_b_input());
}

struct TableRow {
  int ms;
  double p1, p2;
};
// docs/benchmarks.md B, "Exact step response"; printed to 6 decimals (p1) and 8 decimals (p2).
const std::vector<TableRow> model_b_table = {
    {1, 1.960532, 0.00038434},   {10, 16.484304, 0.00329084},  {25, 31.607347, 0.00631726},
    {50, 43.236204, 0.00864443}, {100, 49.088759, 0.00981564}, {200, 49.988211, 0.00999564},
    {300, 50.004692, 0.00999894}};

// 1e-6 relative, but never tighter than half a unit of the table's last printed digit.
void expect_matches_table(const Vector& x, const TableRow& row) {
  EXPECT_NEAR(x[0], row.p1, std::max(1e-6 * row.p1, 0.5e-6)) << "p1 at " << row.ms << " ms";
  EXPECT_NEAR(x[1], row.p2, std::max(1e-6 * row.p2, 0.5e-8)) << "p2 at " << row.ms << " ms";
}

void expect_dre0_exact_on_model_b(int h_ms) {
  FunctionRhs f = model_b();
  const double h = h_ms * 1e-3;
  OdeStepper stepper(OdeMethod::dre0, 2);
  Vector x = Vector::Zero(2);
  int checked = 0;
  for (int i = 1; i <= 300 / h_ms; ++i) {
    stepper.step(f, (i - 1) * h, h, x);
    for (const auto& row : model_b_table) {
      if (row.ms != i * h_ms) continue;
      expect_matches_table(x, row);
      const Vector exact = model_b_exact(row.ms * 1e-3);
      EXPECT_NEAR(x[0], exact[0], 1e-10 * exact[0]) << row.ms << " ms";
      EXPECT_NEAR(x[1], exact[1], 1e-10 * exact[1]) << row.ms << " ms";
      ++checked;
    }
  }
  EXPECT_EQ(checked, h_ms == 1 ? 7 : 5);  // 1 and 25 ms are not multiples of 10 ms
}

TEST(OdeMethodModelB, Dre0IsExactAtOneMillisecond) {
  expect_dre0_exact_on_model_b(1);
}

TEST(OdeMethodModelB, Dre0IsExactAtTenMilliseconds) {
  expect_dre0_exact_on_model_b(10);
}

// A linear system keeps its Jacobian: one f and one Jacobian per step, and the cached A_D
// gives the same bits as one computed afresh for every step.
TEST(OdeMethodModelB, Dre0ReusesItsMatrixWithoutChangingBits) {
  FunctionRhs f = model_b();
  const double h = 1e-3;
  OdeStepper cached(OdeMethod::dre0, 2);
  Vector x = Vector::Zero(2), y = Vector::Zero(2);
  for (int i = 0; i < 50; ++i) {
    cached.step(f, i * h, h, x);
    OdeStepper fresh(OdeMethod::dre0, 2);
    fresh.step(f, i * h, h, y);
    ASSERT_TRUE(bit_equal(x, y)) << "step " << i;
  }
  EXPECT_EQ(cached.derivative_calls(), 50u);
  EXPECT_EQ(cached.jacobian_calls(), 50u);
}

// Bounded, and the largest |p| over the run.
double largest_magnitude(OdeMethod method, double h, double end, Vector& x,
                         std::vector<StateBlock> blocks = {}) {
  FunctionRhs f = model_b();
  OdeStepper stepper(method, 2, std::move(blocks));
  x = Vector::Zero(2);
  double largest = 0;
  const int steps = static_cast<int>(std::lround(end / h));
  for (int i = 0; i < steps; ++i) {
    stepper.step(f, i * h, h, x);
    largest = std::max(largest, x.cwiseAbs().maxCoeff());
  }
  return largest;
}

// Explicit Euler's stability limit is h < 2/50010 ≈ 3.9992e-5 s.
TEST(OdeMethodModelB, EulerIsStableJustBelowItsLimit) {
  Vector x;
  const double largest = largest_magnitude(OdeMethod::euler, 3.9e-5, 0.3, x);
  EXPECT_LT(largest, 50.01);
  EXPECT_NEAR(x[0], 50.005, 0.01);  // towards the steady state p1 = 50.005
  EXPECT_NEAR(x[1], 0.009999, 1e-5);
}

TEST(OdeMethodModelB, EulerIsUnstableJustAboveItsLimit) {
  Vector x;
  // |1 − 50010 h| = 1.05 per step: over 7317 steps any bound is left far behind.
  EXPECT_GT(largest_magnitude(OdeMethod::euler, 4.1e-5, 0.3, x), 1e50);
}

TEST(OdeMethodModelB, BackwardEulerIsStableAtTenMilliseconds) {
  Vector x;
  EXPECT_LT(largest_magnitude(OdeMethod::backward_euler, 10e-3, 0.3, x), 50.01);
  const Vector exact = model_b_exact(0.3);
  EXPECT_NEAR(x[0], exact[0], 1e-3 * exact[0]);
  EXPECT_NEAR(x[1], exact[1], 1e-3 * exact[1]);
}

// pDRE0 with one block per pressure at h = 10 ms. Its p2 block sees only −50010, so
// p2_{i+1} = e^{−500.1} p2_i + (1 − e^{−500.1})·10 p1_i / 50010: the quasi-static relation
// p2 = 10 p1 / 50010 of the fast mode, but evaluated with p1 of the step before (a one-step
// lag of the coupling). With e^{−500.1} ≈ 1e-217 the relation holds to rounding.
TEST(OdeMethodModelB, Pdre0LagsTheCouplingByOneStep) {
  FunctionRhs f = model_b();
  const double h = 10e-3;
  OdeStepper partitioned(OdeMethod::pdre0, 2, {{"p1", 0, 1}, {"p2", 1, 1}});
  OdeStepper whole(OdeMethod::dre0, 2);
  Vector x = Vector::Zero(2), y = Vector::Zero(2);
  for (int i = 1; i <= 30; ++i) {
    const double p1_before = x[0];
    partitioned.step(f, (i - 1) * h, h, x);
    whole.step(f, (i - 1) * h, h, y);
    EXPECT_NEAR(x[1], 10 * p1_before / 50010, 1e-14) << "step " << i;
    const Vector exact = model_b_exact(i * h);
    const double p2_error = std::abs(x[1] - exact[1]) / exact[1];
    EXPECT_GT(p2_error, std::abs(y[1] - exact[1]) / exact[1]) << "step " << i;
    // The lag error is 10 (p1(t_i) − p1(t_{i−1})) / 50010 relative to p2: large while p1
    // rises fast (100 % at the first step, where p1_0 = 0), below 25 % from 50 ms on
    // (p1 rises by 8 % in the last 10 ms before 50 ms) and fading as p1 settles.
    if (i >= 5) {
      EXPECT_LT(p2_error, 0.25) << "step " << i;
    }
    if (i == 30) {
      EXPECT_LT(p2_error, 1e-3);
    }
    // p2 barely acts on p1 (20 p2 against 2000): p1 stays close to exact.
    EXPECT_NEAR(x[0], exact[0], 1e-3 * exact[0]) << "step " << i;
  }
}

TEST(OdeMethodModelB, Pdre0WithoutBlocksIsDre0) {
  FunctionRhs f = model_b();
  EXPECT_TRUE(bit_equal(run(OdeMethod::pdre0, f, Vector::Zero(2), 10e-3, 30),
                        run(OdeMethod::dre0, f, Vector::Zero(2), 10e-3, 30)));
}

// ---------------------------------------------------------------- AB3 start-up, rollback

// A harmonic oscillator with a little damping: x'' = −4x − 0.1x'.
FunctionRhs oscillator() {
  return FunctionRhs(
      [](double, VectorView x, VectorOut dx) {
        dx[0] = x[1];
        dx[1] = -4 * x[0] - 0.1 * x[1];
      },
      [](double, VectorView, MatrixOut J) {
        J(0, 1) = 1;
        J(1, 0) = -4;
        J(1, 1) = -0.1;
      });
}

// The first `steps` steps of a fresh `adams` stepper from x are those of `start`, bit for bit;
// y is left where `start` ended.
void expect_start_up(RightHandSide& f, OdeStepper& adams, OdeMethod start, int steps, double h,
                     Vector& x, Vector& y) {
  OdeStepper one_step(start, static_cast<std::size_t>(x.size()));
  y = x;
  for (int i = 0; i < steps; ++i) {
    adams.step(f, i * h, h, x);
    one_step.step(f, i * h, h, y);
    EXPECT_TRUE(bit_equal(x, y)) << ode_method_name(adams.method()) << " step " << i;
  }
}

TEST(OdeMethodAb3, StartsWithTwoRk3Steps) {
  FunctionRhs f = oscillator();
  const double h = 0.05;
  OdeStepper ab3(OdeMethod::ab3, 2), rk3(OdeMethod::rk3, 2);
  Vector x{{1.0, 0.0}}, y;
  expect_start_up(f, ab3, OdeMethod::rk3, 2, h, x, y);  // RK3 is one-step: rk3 goes on from y
  EXPECT_EQ(ab3.derivative_calls(), 6u);
  ab3.step(f, 2 * h, h, x);
  rk3.step(f, 2 * h, h, y);
  EXPECT_FALSE(bit_equal(x, y));  // the third step is an Adams–Bashforth step
  EXPECT_EQ(ab3.derivative_calls(), 7u);
}

TEST(OdeMethodAb3, RestoredMemoryRepeatsStepsBitForBit) {
  FunctionRhs f = oscillator();
  const double h = 0.05;
  OdeStepper stepper(OdeMethod::ab3, 2);
  Vector x{{1.0, 0.0}};
  for (int i = 0; i < 5; ++i) stepper.step(f, i * h, h, x);
  const Vector saved_x = x;
  const StepperMemory saved = stepper.memory();
  EXPECT_EQ(saved.steps, 5u);
  for (int i = 5; i < 8; ++i) stepper.step(f, i * h, h, x);
  const Vector first = x;

  stepper.restore(saved);
  x = saved_x;
  for (int i = 5; i < 8; ++i) stepper.step(f, i * h, h, x);
  EXPECT_TRUE(bit_equal(x, first));

  // Without restoring the memory the history is three steps too new: the repeat differs.
  x = saved_x;
  for (int i = 5; i < 8; ++i) stepper.step(f, i * h, h, x);
  EXPECT_FALSE(bit_equal(x, first));
}

TEST(OdeMethodAb3, RestartUsesRk3Again) {
  FunctionRhs f = oscillator();
  const double h = 0.05;
  OdeStepper ab3(OdeMethod::ab3, 2);
  Vector x{{1.0, 0.0}};
  for (int i = 0; i < 5; ++i) ab3.step(f, i * h, h, x);
  ab3.restart();
  EXPECT_EQ(ab3.memory().steps, 0u);
  OdeStepper rk3(OdeMethod::rk3, 2);
  Vector y = x;
  const auto calls = ab3.derivative_calls();
  for (int i = 5; i < 7; ++i) {
    ab3.step(f, i * h, h, x);
    rk3.step(f, i * h, h, y);
    EXPECT_TRUE(bit_equal(x, y)) << "step " << i;
  }
  EXPECT_EQ(ab3.derivative_calls() - calls, 6u);
}

TEST(OdeMethodAb3, ChangingTheStepStartsUpAgain) {
  FunctionRhs f = oscillator();
  OdeStepper ab3(OdeMethod::ab3, 2), rk3(OdeMethod::rk3, 2);
  Vector x{{1.0, 0.0}};
  for (int i = 0; i < 4; ++i) ab3.step(f, i * 0.05, 0.05, x);
  Vector y = x;
  ab3.step(f, 0.2, 0.02, x);
  rk3.step(f, 0.2, 0.02, y);
  EXPECT_TRUE(bit_equal(x, y));
}

// AB1 and AM1 are Euler's and backward Euler's formulas: the same bits, the same calls.
TEST(OdeMethodAdams, OrderOneIsEulerAndBackwardEulerToTheBit) {
  for (const auto& [adams, classic] : {std::pair{OdeMethod::ab1, OdeMethod::euler},
                                       std::pair{OdeMethod::am1, OdeMethod::backward_euler}}) {
    FunctionRhs f = oscillator();
    EXPECT_TRUE(bit_equal(run(adams, f, Vector{{1.0, 0.5}}, 0.03, 40),
                          run(classic, f, Vector{{1.0, 0.5}}, 0.03, 40)))
        << ode_method_name(adams);
  }
}

// On ẋ = λx every formula is a recurrence the test can write down: after the start-up, each
// step must be the textbook formula applied to the stepper's own earlier states.
TEST(OdeMethodAdams, EachStepIsTheTextbookFormula) {
  const double lambda = -0.8, h = 0.1;
  FunctionRhs f([&](double, VectorView x, VectorOut dx) { dx[0] = lambda * x[0]; },
                [&](double, VectorView, MatrixOut J) { J(0, 0) = lambda; });
  const double z = h * lambda;
  auto next = [&](OdeMethod m, const std::vector<double>& x) {  // x: x_0 .. x_n
    const std::size_t n = x.size() - 1;
    auto fx = [&](std::size_t back) { return lambda * x[n - back]; };
    switch (m) {
      case OdeMethod::ab2:
        return x[n] + h / 2 * (3 * fx(0) - fx(1));
      case OdeMethod::ab4:
        return x[n] + h / 24 * (55 * fx(0) - 59 * fx(1) + 37 * fx(2) - 9 * fx(3));
      case OdeMethod::am2:
        return x[n] * (1 + z / 2) / (1 - z / 2);
      case OdeMethod::am3:
        return (x[n] + h / 12 * (8 * fx(0) - fx(1))) / (1 - 5 * z / 12);
      case OdeMethod::am4:
        return (x[n] + h / 24 * (19 * fx(0) - 5 * fx(1) + fx(2))) / (1 - 9 * z / 24);
      case OdeMethod::abm2: {
        const double p = x[n] + h / 2 * (3 * fx(0) - fx(1));
        return x[n] + h / 2 * (fx(0) + lambda * p);
      }
      case OdeMethod::abm3_pec2e: {
        double p = x[n] + h / 12 * (23 * fx(0) - 16 * fx(1) + 5 * fx(2));
        for (int c = 0; c < 2; ++c) p = x[n] + h / 12 * (5 * lambda * p + 8 * fx(0) - fx(1));
        return p;
      }
      default:
        return std::nan("");
    }
  };
  for (const OdeMethod m : {OdeMethod::ab2, OdeMethod::ab4, OdeMethod::am2, OdeMethod::am3,
                            OdeMethod::am4, OdeMethod::abm2, OdeMethod::abm3_pec2e}) {
    OdeStepper stepper(m, 1);
    Vector x = Vector::Constant(1, 1.0);
    std::vector<double> states = {1.0};
    for (int i = 0; i < 12; ++i) {
      stepper.step(f, i * h, h, x);
      if (static_cast<std::size_t>(i) >= history_length(m))
        EXPECT_NEAR(x[0], next(m, states), 1e-14) << ode_method_name(m) << " step " << i;
      states.push_back(x[0]);
    }
  }
}

// A multistep method keeps exactly its history; restored, it repeats its steps bit for bit.
TEST(OdeMethodAdams, EveryMultistepMethodKeepsItsHistoryAndRepeatsItsStepsWhenRestored) {
  FunctionRhs f = oscillator();
  const double h = 0.05;
  for (const char* name : {"ab2", "ab3", "ab4", "am3", "am4", "abm2", "abm4", "abm4-pec3e"}) {
    const OdeMethod m = parse_ode_method(name, "");
    OdeStepper stepper(m, 2);
    Vector x{{1.0, 0.0}};
    for (int i = 0; i < 6; ++i) stepper.step(f, i * h, h, x);
    const StepperMemory saved = stepper.memory();
    EXPECT_EQ(saved.past.size(), history_length(m)) << name;
    const Vector saved_x = x;
    for (int i = 6; i < 9; ++i) stepper.step(f, i * h, h, x);
    const Vector first = x;
    stepper.restore(saved);
    x = saved_x;
    for (int i = 6; i < 9; ++i) stepper.step(f, i * h, h, x);
    EXPECT_TRUE(bit_equal(x, first)) << name;
    // A memory with more derivatives than the method keeps is not its memory.
    StepperMemory more = saved;
    more.past.push_back(saved.past.front());
    EXPECT_THROW(stepper.restore(more), SimulationError) << name;
  }
}

TEST(OdeMethodAdams, Ab4StartsWithThreeRk4Steps) {
  FunctionRhs f = oscillator();
  const double h = 0.05;
  OdeStepper ab4(OdeMethod::ab4, 2);
  Vector x{{1.0, 0.0}}, y;
  expect_start_up(f, ab4, OdeMethod::rk4, 3, h, x, y);
  EXPECT_EQ(ab4.derivative_calls(), 12u);
  ab4.step(f, 3 * h, h, x);
  EXPECT_EQ(ab4.derivative_calls(), 13u);  // then one f a step
  OdeStepper pece(OdeMethod::abm4_pec2e, 2);
  for (int i = 0; i < 4; ++i) pece.step(f, i * h, h, y);
  EXPECT_EQ(pece.derivative_calls(), 12u + 3u);  // P(EC)²E: f at the start and two corrections
}

TEST(OdeMethod, EveryMethodIsDeterministic) {
  for (int k = 0; k < static_cast<int>(OdeMethod::co_simulation); ++k) {
    const auto m = static_cast<OdeMethod>(k);
    const std::string_view name = ode_method_name(m);
    FunctionRhs f = oscillator();
    EXPECT_TRUE(bit_equal(run(m, f, Vector{{1.0, 0.5}}, 0.03, 40, {{"a", 0, 1}, {"b", 1, 1}}),
                          run(m, f, Vector{{1.0, 0.5}}, 0.03, 40, {{"a", 0, 1}, {"b", 1, 1}})))
        << name;
  }
}

// One Euler and one RK4 for every model kind: the OdeStepper that steps every partition and
// the pendulum chain's sequential fast path (fixed-size arrays, the model inlined) give the
// same bits over thousands of pendulum steps.
TEST(OdeMethod, TheSequentialFastPathStepsTheSameBits) {
  const PendulumCoefficients c = coefficients_of({0, 1.3, 1.0, 0.1, 0.05, 9.81, 0});
  FunctionRhs f([&](double, VectorView x, VectorOut dx) { pendulum_rhs(c, x.data(), dx.data()); },
                [](double, VectorView, MatrixOut) {});
  for (OdeMethod m : {OdeMethod::euler, OdeMethod::rk4}) {
    OdeStepper stepper(m, 2);
    Vector x{{2.9, -1.7}};
    PendulumState fast{2.9, -1.7};
    StepWork<PendulumState> work(fast);
    auto inlined = [&](double, const PendulumState& y, PendulumState& dy) {
      pendulum_rhs(c, y.data(), dy.data());
    };
    for (std::uint64_t k = 0; k < 5000; ++k) {
      const double t = step_time(0, 1e-3, k);
      stepper.step(f, t, 1e-3, x);
      take_step(m, inlined, t, 1e-3, fast, work);
    }
    EXPECT_TRUE(bit_equal(x, Vector{{fast[0], fast[1]}})) << ode_method_name(m);
    EXPECT_NE(x[0], 2.9);
  }
}

// One backward Euler step of x' = λx is x/(1 − hλ) (a linear problem: Newton's first update
// is the answer).
TEST(OdeMethod, BackwardEulerSolvesTheImplicitEquation) {
  FunctionRhs f([](double, VectorView x, VectorOut dx) { dx[0] = -1000 * x[0]; },
                [](double, VectorView, MatrixOut J) { J(0, 0) = -1000; });
  OdeStepper stepper(OdeMethod::backward_euler, 1);
  Vector x{{2.0}};
  stepper.step(f, 0, 0.1, x);
  EXPECT_NEAR(x[0], 2.0 / 101.0, 1e-15);
  EXPECT_EQ(stepper.jacobian_calls(), 1u);
  EXPECT_LE(stepper.derivative_calls(), 2u);
}

// ---------------------------------------------------------------- the φ-series

// Van Loan: exp(h·[[A, I], [0, 0]]) = [[e^{hA}, A_D], [0, I]], so A_D comes from Eigen's
// matrix exponential without inverting A (A may be singular).
Matrix a_d_reference(const Matrix& a, double h) {
  const Eigen::Index n = a.rows();
  Matrix big = Matrix::Zero(2 * n, 2 * n);
  big.topLeftCorner(n, n) = a;
  big.topRightCorner(n, n) = Matrix::Identity(n, n);
  return (h * big).exp().topRightCorner(n, n);
}

Matrix random_matrix(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  Matrix a(6, 6);
  for (Eigen::Index j = 0; j < 6; ++j)
    for (Eigen::Index i = 0; i < 6; ++i) a(i, j) = uniform(rng);
  return a;
}

double relative_difference(const Matrix& got, const Matrix& want) {
  return (got - want).norm() / std::max(want.norm(), 1e-300);
}

void expect_phi1_matches_exponential(const Matrix& a, double h) {
  const Eigen::Index n = a.rows();
  const Matrix a_d = phi1_times_h(a, h);
  const Matrix e = (h * a).exp();
  // A·A_D + I contains I: its rounding is relative to max(1, |e^{hA}|).
  const double scale = std::max(1.0, e.norm());
  EXPECT_LT((a * a_d + Matrix::Identity(n, n) - e).norm() / scale, 1e-12)
      << "h = " << h << ", |hA| = " << (h * a).norm();
  EXPECT_LT(relative_difference(a_d, a_d_reference(a, h)), 1e-12) << "h = " << h;
}

TEST(ExponentialSeries, MatchesTheMatrixExponentialForARandomMatrix) {
  const Matrix a = random_matrix(20240611);
  for (double h : {1e-4, 0.1, 1.0, 10.0, 40.0}) expect_phi1_matches_exponential(a, h);
  EXPECT_GT((40.0 * a).norm(), 50.0);  // the largest h really needs scaling and doubling
}

TEST(ExponentialSeries, MatchesForAStiffStableMatrix) {
  const Matrix r = random_matrix(7);
  const Matrix a = -(r * r.transpose()) * 1e4 - Matrix::Identity(6, 6);
  for (double h : {1e-6, 1e-3, 1e-1}) expect_phi1_matches_exponential(a, h);
}

TEST(ExponentialSeries, MatchesForASingularMatrix) {
  Matrix a = random_matrix(99);
  a.col(5) = a.col(0);  // rank 5
  ASSERT_LT(std::abs(a.determinant()), 1e-12);
  for (double h : {0.01, 1.0, 30.0}) expect_phi1_matches_exponential(a, h);
}

TEST(ExponentialSeries, ZeroMatrixGivesHTimesIdentity) {
  EXPECT_EQ(phi1_times_h(Matrix::Zero(3, 3), 0.25), 0.25 * Matrix::Identity(3, 3));
}

// A nilpotent A: the series ends, A_D = hI + h²A/2 + h³A²/6.
TEST(ExponentialSeries, NilpotentMatrixGivesTheFiniteSeries) {
  Matrix a = Matrix::Zero(3, 3);
  a(0, 1) = 3;
  a(1, 2) = -7;
  a(0, 2) = 2;
  const double h = 5;
  const Matrix want = h * Matrix::Identity(3, 3) + h * h / 2 * a + h * h * h / 6 * a * a;
  EXPECT_LT(relative_difference(phi1_times_h(a, h), want), 1e-14);
}

// B_D = h² φ2(hA) against Eigen's exponential of the augmented matrix
// [[hA, I, 0], [0, 0, I], [0, 0, 0]], whose first block row is [e^{hA}, φ1(hA), φ2(hA)].
void expect_phi2_matches_exponential(const Matrix& a, double h) {
  const Eigen::Index n = a.rows();
  Matrix m = Matrix::Zero(3 * n, 3 * n);
  m.block(0, 0, n, n) = h * a;
  m.block(0, n, n, n) = Matrix::Identity(n, n);
  m.block(n, 2 * n, n, n) = Matrix::Identity(n, n);
  const Matrix e = m.exp();
  const Matrix want = h * h * e.block(0, 2 * n, n, n);
  const ExponentialMatrices both = phi1_and_phi2(a, h);
  EXPECT_LT(relative_difference(both.b_d, want), 1e-11) << "h = " << h;
  EXPECT_EQ(both.a_d, phi1_times_h(a, h));  // the same bits as DRE0's A_D
}

TEST(ExponentialSeries, Phi2MatchesTheAugmentedExponential) {
  const Matrix a = random_matrix(20240611);
  for (double h : {1e-4, 0.1, 1.0, 10.0}) expect_phi2_matches_exponential(a, h);
  const Matrix r = random_matrix(7);
  for (double h : {1e-6, 1e-3, 1e-1})
    expect_phi2_matches_exponential(-(r * r.transpose()) * 1e4 - Matrix::Identity(6, 6), h);
  EXPECT_EQ(phi1_and_phi2(Matrix::Zero(2, 2), 0.5).b_d, 0.125 * Matrix::Identity(2, 2));
}

// Clemens' unscaled series: more terms for a smaller ε, accurate to about ε while ‖hA‖ is
// small; for a stiff mode at a long step (h|λ| = 500) its terms grow to 1e213 before they
// shrink and cancellation leaves nothing of the result, which is why kausal halves first.
TEST(ExponentialSeries, TheUnscaledSeriesNeedsMoreTermsAndLosesItsDigitsOnStiffSteps) {
  const Matrix a = random_matrix(3) * 0.2;
  const auto coarse = unscaled_series_terms(a, 1.0, 1e-4);
  const auto fine = unscaled_series_terms(a, 1.0, 1e-12);
  ASSERT_TRUE(coarse && fine);
  EXPECT_LT(coarse->terms, fine->terms);
  EXPECT_LT(coarse->error, 1e-3);
  EXPECT_LT(fine->error, 1e-11);
  EXPECT_EQ(series_halvings(Matrix::Constant(1, 1, -1.0), 0.5), 0);  // ‖hA‖ = 1/2 already
  const auto stiff = unscaled_series_terms(Matrix::Constant(1, 1, -50010.0), 0.01, 1e-8);
  ASSERT_TRUE(stiff);
  EXPECT_GT(stiff->terms, 500);
  EXPECT_GT(stiff->error, 1.0);
  EXPECT_EQ(series_halvings(Matrix::Constant(1, 1, -50010.0), 0.01), 10);  // 500.1 / 2^10 < 1/2
}

// ---------------------------------------------------------------- errors

TEST(OdeMethodErrors, UnknownMethodNameIsAnInputErrorNamingIt) {
  try {
    parse_ode_method("rk5", "scenario.toml:7: ");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "scenario.toml:7: unknown integrator 'rk5' (known: euler, rk3, rk4, ab1, ab2, "
        "ab3, ab4, am1, am2, am3, am4, abm1, abm2, abm3, abm4, abm1-pec2e, abm2-pec2e, "
        "abm3-pec2e, abm4-pec2e, abm1-pec3e, abm2-pec3e, abm3-pec3e, abm4-pec3e, "
        "backward_euler, dre0, pdre0, dre1, pdre1, combined, rk4-substeps, co-simulation)");
  }
}

TEST(OdeMethodErrors, NamesRoundTrip) {
  for (int k = 0; k <= static_cast<int>(OdeMethod::co_simulation); ++k) {
    const auto m = static_cast<OdeMethod>(k);
    EXPECT_EQ(parse_ode_method(ode_method_name(m), ""), m) << k;
  }
  EXPECT_TRUE(uses_jacobian(OdeMethod::am3));
  EXPECT_FALSE(uses_jacobian(OdeMethod::abm3));
  EXPECT_TRUE(uses_jacobian(OdeMethod::backward_euler));
  EXPECT_TRUE(uses_jacobian(OdeMethod::dre0));
  EXPECT_TRUE(uses_jacobian(OdeMethod::pdre0));
  EXPECT_FALSE(uses_jacobian(OdeMethod::ab3));
  EXPECT_FALSE(uses_jacobian(OdeMethod::rk4));
}

TEST(OdeMethodErrors, BlocksMustTileTheState) {
  EXPECT_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"a", 0, 1}, {"b", 2, 1}}), InputError);  // gap
  EXPECT_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"a", 0, 2}, {"b", 1, 2}}), InputError);  // overlap
  EXPECT_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"a", 0, 2}}), InputError);               // short
  EXPECT_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"a", 0, 2}, {"b", 2, 2}}), InputError);  // long
  EXPECT_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"a", 0, 3}, {"b", 3, 0}}), InputError);  // empty
  EXPECT_NO_THROW(OdeStepper(OdeMethod::pdre0, 3, {{"b", 1, 2}, {"a", 0, 1}}));  // any order
}

// x' = −1000·sign(x) from x = 1 with h = 0.01 has no backward Euler solution: x1 > 0 would
// give x1 = −9, x1 < 0 would give x1 = 11. Newton must give up, not return something.
TEST(OdeMethodErrors, MemoryOfAnotherStateSizeIsRefused) {
  FunctionRhs f = oscillator();
  OdeStepper two(OdeMethod::ab3, 2);
  Vector x{{1.0, 0.0}};
  for (int i = 0; i < 3; ++i) two.step(f, i * 0.1, 0.1, x);
  OdeStepper three(OdeMethod::ab3, 3);
  EXPECT_THROW(three.restore(two.memory()), SimulationError);
}

// Newton's settings: a cap the iteration does not converge within fails the step, or, with
// accept_at_limit, takes the last iterate (counted, the same bits every time); a looser
// tolerance stops earlier; settings out of range are refused.
TEST(OdeMethodNewton, TheCapFailsTheStepOrTakesTheLastIterateAndTheToleranceStopsEarlier) {
  // x' = −x³ from x = 1 at h = 0.5: nonlinear, so Newton needs several updates a step.
  FunctionRhs f([](double, VectorView x, VectorOut dx) { dx[0] = -x[0] * x[0] * x[0]; },
                [](double, VectorView x, MatrixOut J) { J(0, 0) = -3 * x[0] * x[0]; });
  Vector x{{1.0}};
  OdeStepper capped(OdeMethod::backward_euler, 1, {}, {2, 1e-12, false});
  EXPECT_THROW(capped.step(f, 0, 0.5, x), SimulationError);
  EXPECT_EQ(x[0], 1.0);
  Vector first{{1.0}}, second{{1.0}};
  OdeStepper accepting(OdeMethod::am3, 1, {}, {2, 1e-12, true});
  OdeStepper again(OdeMethod::am3, 1, {}, {2, 1e-12, true});
  for (int i = 0; i < 6; ++i) {
    accepting.step(f, i * 0.5, 0.5, first);
    again.step(f, i * 0.5, 0.5, second);
  }
  EXPECT_TRUE(bit_equal(first, second));
  EXPECT_GT(accepting.accepted_at_limit(), 0u);
  EXPECT_LE(accepting.accepted_at_limit(), 5u);  // the first step is RK3's start-up
  // The exact solution is 1/sqrt(1 + 2t): at t = 3, 0.378; the capped iterate is close.
  EXPECT_NEAR(first[0], 1 / std::sqrt(7.0), 0.05);
  OdeStepper tight(OdeMethod::backward_euler, 1),
      loose(OdeMethod::backward_euler, 1, {}, {20, 1e-3, false});
  Vector a{{1.0}}, b{{1.0}};
  tight.step(f, 0, 0.5, a);
  loose.step(f, 0, 0.5, b);
  EXPECT_LT(loose.derivative_calls(), tight.derivative_calls());
  EXPECT_NEAR(a[0], b[0], 1e-3);
  EXPECT_THROW(OdeStepper(OdeMethod::backward_euler, 1, {}, {0, 1e-12, false}), InputError);
  EXPECT_THROW(OdeStepper(OdeMethod::backward_euler, 1, {}, {20, 0.0, false}), InputError);
  EXPECT_THROW(OdeStepper(OdeMethod::backward_euler, 1, {}, {1001, 1e-12, false}), InputError);
}

TEST(OdeMethodErrors, NewtonFailureIsASimulationError) {
  FunctionRhs f([](double, VectorView x, VectorOut dx) { dx[0] = x[0] > 0 ? -1000.0 : 1000.0; },
                [](double, VectorView, MatrixOut J) { J(0, 0) = 0; });
  OdeStepper stepper(OdeMethod::backward_euler, 1);
  Vector x{{1.0}};
  try {
    stepper.step(f, 0.5, 0.01, x);
    FAIL() << "no exception";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("Newton"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("t=0.5"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x[0], 1.0);  // left as it was
}

TEST(OdeMethodErrors, NanIsASimulationErrorForEveryMethod) {
  // f is NaN once x < 0.5 (sqrt of a negative), reached within the first step from 1.
  FunctionRhs f([](double, VectorView x, VectorOut dx) { dx[0] = -10 * std::sqrt(x[0] - 0.5); },
                [](double, VectorView x, MatrixOut J) { J(0, 0) = -5 / std::sqrt(x[0] - 0.5); });
  for (int k = 0; k < static_cast<int>(OdeMethod::co_simulation); ++k) {
    const std::string_view name = ode_method_name(static_cast<OdeMethod>(k));
    OdeStepper stepper(static_cast<OdeMethod>(k), 1);
    Vector x{{1.0}};
    EXPECT_THROW(
        {
          for (int i = 0; i < 10; ++i) stepper.step(f, i * 0.1, 0.1, x);
        },
        SimulationError)
        << name;
    EXPECT_TRUE(x.allFinite()) << name;
  }
}

}  // namespace
}  // namespace kausal
