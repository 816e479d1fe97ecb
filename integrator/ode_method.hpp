#pragma once
// The integration methods of every partition, whatever its model (docs/model.md §4): Euler,
// RK3, RK4, the Adams families (integrator/adams.hpp), backward Euler and the exponential
// methods DRE0 / pDRE0. Euler and RK4 are the
// templates of stepper.hpp, which the pendulum chain's sequential fast path shares.
//
// Every method is deterministic: the same inputs give the same bits (rollback relies on it).
// f evaluations per step:
//   euler 1 · rk3 3 · rk4 4 · abK 1 (3 or 4 in each start-up step)
//   backward_euler and am1 one per Newton iteration (≥ 1), plus one Jacobian (more if
//   refreshed); am2..am4 one more (f at the step's start)
//   abmK in P(EC)^M E mode 1 + M (start-up steps as abK)
//   dre0, pdre0, dre1, pdre1 1 f and 1 Jacobian; A_D (and B_D) recomputed only when the
//   Jacobian or h changed.
//   co-simulation: no f; the model steps itself (a co-simulation FMU), counted as one Calc.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "integrator/adams.hpp"
#include "integrator/stepper.hpp"
#include "system/model.hpp"
#include "system/state_block.hpp"

namespace kausal {

// What a step needs from a subsystem whose inputs the caller has already bound (u(t) is
// inside): f(t, x) and ∂f/∂x.
class RightHandSide {
 public:
  virtual ~RightHandSide() = default;
  virtual void derivative(double t, VectorView x, VectorOut dx) = 0;
  virtual void jacobian(double t, VectorView x, MatrixOut J) = 0;
  // OdeMethod::co_simulation: the model's own step from t to t + h (Model::step).
  virtual void model_step(double t, double h, Vector& x);
};

// The part of a multistep method's past that must be saved with the state and restored on a
// rollback: the derivatives at the starts of its last steps (history_length(method) of
// them), the step they were taken with and how many steps it has taken since it was made or
// restarted. Empty (all zero) for one-step methods. A plain copyable value.
struct StepperMemory {
  std::uint64_t steps = 0;   // steps since construction or restart()
  double h = 0;              // the step size of the saved derivatives
  std::vector<Vector> past;  // f at the start of the last step, of the one before, ...
};

// Bit-for-bit equality (the rollback check's test: NaNs with the same bits are equal, 0 and
// -0 are not).
bool same_bits(const Vector& a, const Vector& b);
bool same_bits(const StepperMemory& a, const StepperMemory& b);

// How the implicit methods (backward Euler, the Adams–Moulton correctors) solve their step
// equation: at most max_iterations Newton updates, converged when an update is at most
// tolerance·max(|x|∞, |x1|∞). At the limit without convergence the step fails
// (SimulationError), or, with accept_at_limit, takes the last iterate: a hardware-in-the-loop
// run needs every step to end after a known amount of work, and an iterate off by a small
// residual is better there than a stopped run (the steps taken so are counted).
struct NewtonSettings {
  int max_iterations = 20;
  double tolerance = 1e-12;
  bool accept_at_limit = false;

  static constexpr int most_iterations = 1000;
  // "" or what is wrong with the settings (as a scenario field would say it).
  std::string problem() const;
};

// Advances one subsystem's state by one step of the chosen method.
//
// Adams start-up: a method that needs p earlier derivatives takes its first p steps after
// construction or restart() as RK3 steps (Kutta's, the same bits as OdeMethod::rk3; RK4 for
// order 4); the derivative each computes at its step start fills the history. From then on
// the Adams formula, e.g. AB3 x += h/12·(23 f_n − 16 f_{n−1} + 5 f_{n−2}), one f per step.
// The methods assume a constant step: a step whose h differs from the history's starts the
// start-up procedure again.
//
// Backward Euler and the Adams–Moulton correctors: solve x1 = r + hβ f(t+h, x1) (backward
// Euler: r = x, β = 1) by simplified Newton from the predictor x1 = x, with the Jacobian at
// (t+h, x) and one LU of I − hβJ (Eigen PartialPivLU). When an update shrinks by less than
// half, the Jacobian is taken again at the current iterate and refactored. Converged when
// the update is at most 1e-12·max(|x|∞, |x1|∞); after 20 iterations without that it throws
// SimulationError.
//
// DRE0: x += A_D f(t, x) with A = ∂f/∂x(t, x) and A_D = A^{-1}(e^{hA} − I) from
// phi1_times_h (exponential_series.hpp). pDRE0 does the same per block with only the block's
// own diagonal part of A. Each block's A_D is kept and reused while its part of the Jacobian
// is bitwise the same and h is the same (a linear system pays one Jacobian and one f per
// step); the cache does not change any result's bits.
//
// DRE1 / pDRE1: DRE0 plus the ramp of what the Jacobian does not explain (the inputs, the
// nonlinearity) from the last step to this one, through B_D = h² φ2(hA) (exponential_ramp
// in ode_method.cpp); its memory is f and x at the last step's start.
//
// step() either advances x to a finite state or throws SimulationError naming the method
// and t and leaves x and the multistep memory as they were.
class OdeStepper {
 public:
  // blocks: pdre0 uses only these diagonal blocks of the Jacobian (each partition's own
  // block); empty = one block covering the whole state (then pdre0 == dre0). Throws InputError
  // for blocks that do not tile [0, state_size) exactly (in any order, none empty).
  // newton: see NewtonSettings (InputError for settings with a problem()).
  OdeStepper(OdeMethod method, std::size_t state_size, std::vector<StateBlock> blocks = {},
             NewtonSettings newton = {});

  // Advances x from t to t + h (h > 0 and finite).
  void step(RightHandSide& f, double t, double h, Vector& x);

  StepperMemory memory() const;
  // One-step methods ignore m; multistep methods throw SimulationError for a memory of
  // another state size or with more derivatives than they keep.
  void restore(const StepperMemory& m);
  // Forget the multistep past (after an event changed the state discontinuously): the next
  // steps use the start-up procedure again.
  void restart();

  OdeMethod method() const { return method_; }
  std::size_t state_size() const { return size_; }
  const std::vector<StateBlock>& blocks() const { return blocks_; }
  // Totals over the stepper's life, rolled-back steps included (they were paid for).
  std::uint64_t derivative_calls() const { return derivative_calls_; }
  std::uint64_t jacobian_calls() const { return jacobian_calls_; }
  // Steps that took their last Newton iterate at the limit (NewtonSettings::accept_at_limit).
  std::uint64_t accepted_at_limit() const { return accepted_at_limit_; }
  // OdeMethod::combined: the steps it took by backward Euler.
  std::uint64_t implicit_steps() const { return implicit_steps_; }
  // OdeMethod::rk4_substeps: the sub-steps it took beyond one per step.
  std::uint64_t substeps() const { return substeps_; }
  // Up to this h·‖J‖∞ the combined solver takes an RK4 step (and rk4_substeps one sub-step).
  static constexpr double combined_rk4_bound = 2.5;
  // The most sub-steps rk4_substeps takes in one step.
  static constexpr std::uint64_t max_substeps = 1000;

 private:
  // A_D of one block and what it was computed from.
  struct BlockCache {
    bool valid = false;
    double h = 0;
    Matrix a;
    Matrix a_d;
    Matrix b_d;  // DRE1's B_D for the same a and h
  };

  void eval_f(RightHandSide& f, double t, const Vector& x, Vector& dx);
  void eval_jacobian(RightHandSide& f, double t, const Vector& x);
  void euler(RightHandSide& f, double t, double h, const Vector& x);
  void rk3(RightHandSide& f, double t, double h, const Vector& x);
  void rk4(RightHandSide& f, double t, double h, const Vector& x);
  void adams(RightHandSide& f, double t, double h, const Vector& x, const AdamsScheme& a);
  // Adds h/d · Σ numerators[j] f_{n−j} (f_n = fn, then the history) to `sum`.
  template <typename Coefficients>
  void add_explicit(const Coefficients& c, double h, const Vector& fn, Vector& sum);
  // next_ = the solution x1 of x1 = r + hβ f(t + h, x1), from the predictor next_ (x: the
  // step's start, for the convergence test); jacobian_ready: jacobian_ holds J(t + h, next_).
  void implicit_solve(RightHandSide& f, double t, double h, double h_beta, const Vector& r,
                      const Vector& x, bool jacobian_ready = false);
  void exponential(RightHandSide& f, double t, double h, const Vector& x);
  void exponential_ramp(RightHandSide& f, double t, double h, const Vector& x);
  void combined(RightHandSide& f, double t, double h, const Vector& x);
  void rk4_substeps(RightHandSide& f, double t, double h, const Vector& x);
  double jacobian_bound(RightHandSide& f, double t, double h, const Vector& x);
  void commit_ramp(const Vector& x, double h);
  const Matrix& block_a_d(std::size_t b, double h);
  const Matrix& block_b_d(std::size_t b) const;
  void commit_history(const Vector& fn, double h);
  [[noreturn]] void fail(double t, const std::string& what) const;

  OdeMethod method_;
  std::optional<AdamsScheme> adams_;
  std::size_t history_;  // history_length(method_)
  std::size_t size_;
  std::vector<StateBlock> blocks_;              // as given, sorted by offset
  std::vector<StateBlock> exponential_blocks_;  // the Jacobian blocks DRE0/pDRE0 use
  StepperMemory memory_;
  std::vector<BlockCache> caches_;
  StepWork<Vector> w_;
  Vector next_;
  Vector start_f_;  // Adams–Moulton and ABM: f at the step's start
  Vector sum_;      // the explicit part of an Adams step
  Matrix jacobian_;
  std::uint64_t derivative_calls_ = 0;
  std::uint64_t jacobian_calls_ = 0;
  NewtonSettings newton_;
  std::uint64_t accepted_at_limit_ = 0;
  std::uint64_t implicit_steps_ = 0;
  std::uint64_t substeps_ = 0;
};

}  // namespace kausal
