#include "integrator/ode_method.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

#include "common/errors.hpp"
#include "integrator/exponential_series.hpp"
#include "integrator/stepper.hpp"

namespace kausal {
namespace {

struct NamedMethod {
  std::string_view name;
  OdeMethod method;
};

constexpr std::array<NamedMethod, 31> method_names{{
    {"euler", OdeMethod::euler},
    {"rk3", OdeMethod::rk3},
    {"rk4", OdeMethod::rk4},
    {"ab1", OdeMethod::ab1},
    {"ab2", OdeMethod::ab2},
    {"ab3", OdeMethod::ab3},
    {"ab4", OdeMethod::ab4},
    {"am1", OdeMethod::am1},
    {"am2", OdeMethod::am2},
    {"am3", OdeMethod::am3},
    {"am4", OdeMethod::am4},
    {"abm1", OdeMethod::abm1},
    {"abm2", OdeMethod::abm2},
    {"abm3", OdeMethod::abm3},
    {"abm4", OdeMethod::abm4},
    {"abm1-pec2e", OdeMethod::abm1_pec2e},
    {"abm2-pec2e", OdeMethod::abm2_pec2e},
    {"abm3-pec2e", OdeMethod::abm3_pec2e},
    {"abm4-pec2e", OdeMethod::abm4_pec2e},
    {"abm1-pec3e", OdeMethod::abm1_pec3e},
    {"abm2-pec3e", OdeMethod::abm2_pec3e},
    {"abm3-pec3e", OdeMethod::abm3_pec3e},
    {"abm4-pec3e", OdeMethod::abm4_pec3e},
    {"backward_euler", OdeMethod::backward_euler},
    {"dre0", OdeMethod::dre0},
    {"pdre0", OdeMethod::pdre0},
    {"dre1", OdeMethod::dre1},
    {"pdre1", OdeMethod::pdre1},
    {"combined", OdeMethod::combined},
    {"rk4-substeps", OdeMethod::rk4_substeps},
    {"co-simulation", OdeMethod::co_simulation},
}};

// An update that shrinks by less than this factor means the Jacobian is too stale.
constexpr double slow_contraction = 0.5;

std::string known_methods() {
  std::string list;
  for (const auto& m : method_names) list += (list.empty() ? "" : ", ") + std::string(m.name);
  return list;
}

std::string block_label(const StateBlock& b) {
  return "'" + b.name + "' [" + std::to_string(b.offset) + ", " +
         std::to_string(b.offset + b.size) + ")";
}

// Sorted by offset; throws InputError unless they cover [0, state_size) without gap,
// overlap or empty block.
std::vector<StateBlock> checked_tiling(std::vector<StateBlock> blocks, std::size_t state_size) {
  std::sort(blocks.begin(), blocks.end(),
            [](const StateBlock& a, const StateBlock& b) { return a.offset < b.offset; });
  std::size_t covered = 0;
  for (const auto& b : blocks) {
    if (b.size == 0) throw InputError("state block " + block_label(b) + " is empty");
    if (b.offset != covered)
      throw InputError("state block " + block_label(b) +
                       (b.offset < covered ? " overlaps" : " leaves a gap at") + " [" +
                       std::to_string(std::min(b.offset, covered)) + ", " +
                       std::to_string(std::max(b.offset, covered)) + ")");
    covered += b.size;
  }
  if (!blocks.empty() && covered != state_size)
    throw InputError("state blocks cover [0, " + std::to_string(covered) + ") but the state has " +
                     std::to_string(state_size) + " components");
  return blocks;
}

bool same_bits(const Matrix& cached, const Eigen::Block<const Matrix>& now) {
  if (cached.rows() != now.rows() || cached.cols() != now.cols()) return false;
  for (Eigen::Index j = 0; j < now.cols(); ++j)
    for (Eigen::Index i = 0; i < now.rows(); ++i)
      if (const double v = now(i, j); std::memcmp(&cached(i, j), &v, sizeof v) != 0) return false;
  return true;
}

double max_norm(const Vector& v) {
  return v.size() == 0 ? 0.0 : v.lpNorm<Eigen::Infinity>();
}

}  // namespace

bool same_bits(const Vector& a, const Vector& b) {
  // (An empty Eigen vector has no data pointer, and memcmp must not be given a null one.)
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(),
                                       static_cast<std::size_t>(a.size()) * sizeof(double)) == 0);
}

bool same_bits(const StepperMemory& a, const StepperMemory& b) {
  if (a.steps != b.steps || std::memcmp(&a.h, &b.h, sizeof a.h) != 0 ||
      a.past.size() != b.past.size())
    return false;
  for (std::size_t j = 0; j < a.past.size(); ++j)
    if (!same_bits(a.past[j], b.past[j])) return false;
  return true;
}

OdeMethod parse_ode_method(std::string_view name, const std::string& where) {
  for (const auto& m : method_names)
    if (m.name == name) return m.method;
  throw InputError(where + "unknown integrator '" + std::string(name) +
                   "' (known: " + known_methods() + ")");
}

std::string_view ode_method_name(OdeMethod m) {
  for (const auto& named : method_names)
    if (named.method == m) return named.name;
  return "?";
}

void RightHandSide::model_step(double t, double, Vector&) {
  throw SimulationError("co-simulation step at t=" + std::to_string(t) +
                        ": the model does not step itself (choose an ODE integrator)");
}

bool is_exponential(OdeMethod m) {
  return m == OdeMethod::dre0 || m == OdeMethod::pdre0 || m == OdeMethod::dre1 ||
         m == OdeMethod::pdre1;
}

bool uses_jacobian(OdeMethod m) {
  if (const auto a = adams_scheme(m)) return a->family == AdamsFamily::moulton;
  return m == OdeMethod::backward_euler || m == OdeMethod::combined ||
         m == OdeMethod::rk4_substeps || is_exponential(m);
}

bool uses_newton(OdeMethod m) {
  return uses_jacobian(m) && !is_exponential(m);
}

std::size_t history_length(OdeMethod m) {
  if (m == OdeMethod::dre1 || m == OdeMethod::pdre1) return 2;  // f and x at the last start
  const auto a = adams_scheme(m);
  return a ? adams_history(*a) : 0;
}

std::string NewtonSettings::problem() const {
  if (max_iterations < 1 || max_iterations > most_iterations)
    return "the Newton iterations must be 1 to " + std::to_string(most_iterations) + ", not " +
           std::to_string(max_iterations);
  if (!(tolerance > 0 && tolerance < 1))
    return "the Newton tolerance must lie between 0 and 1 (exclusive), not " +
           std::to_string(tolerance);
  return "";
}

OdeStepper::OdeStepper(OdeMethod method, std::size_t state_size, std::vector<StateBlock> blocks,
                       NewtonSettings newton)
    : method_(method),
      adams_(adams_scheme(method)),
      history_(history_length(method)),
      size_(state_size),
      blocks_(checked_tiling(std::move(blocks), state_size)),
      w_(Vector::Zero(static_cast<Eigen::Index>(state_size))) {
  const auto n = static_cast<Eigen::Index>(size_);
  if ((method_ == OdeMethod::pdre0 || method_ == OdeMethod::pdre1) && !blocks_.empty())
    exponential_blocks_ = blocks_;
  else if (size_ > 0)
    exponential_blocks_ = {StateBlock{"state", 0, size_}};
  caches_.resize(exponential_blocks_.size());
  next_ = Vector::Zero(n);
  if (adams_) start_f_ = sum_ = Vector::Zero(n);
  if (uses_jacobian(method_)) jacobian_ = Matrix::Zero(n, n);
  if (const std::string why = newton.problem(); !why.empty()) throw InputError(why);
  newton_ = newton;
}

void OdeStepper::step(RightHandSide& f, double t, double h, Vector& x) {
  if (static_cast<std::size_t>(x.size()) != size_)
    fail(t, "the state has " + std::to_string(x.size()) + " components, the stepper was made for " +
                std::to_string(size_));
  if (!(h > 0) || !std::isfinite(h))
    fail(t, "the step h=" + std::to_string(h) + " is not positive and finite");
  switch (method_) {
    case OdeMethod::euler:
      euler(f, t, h, x);
      break;
    case OdeMethod::rk3:
      rk3(f, t, h, x);
      break;
    case OdeMethod::rk4:
      rk4(f, t, h, x);
      break;
    case OdeMethod::backward_euler:
      next_ = x;
      implicit_solve(f, t, h, h, x, x);
      break;
    case OdeMethod::dre0:
    case OdeMethod::pdre0:
      exponential(f, t, h, x);
      break;
    case OdeMethod::dre1:
    case OdeMethod::pdre1:
      exponential_ramp(f, t, h, x);
      break;
    case OdeMethod::combined:
      combined(f, t, h, x);
      break;
    case OdeMethod::rk4_substeps:
      rk4_substeps(f, t, h, x);
      break;
    case OdeMethod::co_simulation:
      next_ = x;
      f.model_step(t, h, next_);
      ++derivative_calls_;  // one Calc: the model's own step
      break;
    default:
      adams(f, t, h, x, *adams_);
      break;
  }
  if (!next_.allFinite()) fail(t, "the state is not finite after the step");
  if (adams_) {
    // Every Adams step leaves f at its start in w_.k1 or start_f_.
    if (history_ > 0)
      commit_history(adams_->family == AdamsFamily::bashforth ? w_.k1 : start_f_, h);
  } else if (history_ > 0) {
    commit_ramp(x, h);
  }
  x = next_;
}

StepperMemory OdeStepper::memory() const {
  return memory_;
}

void OdeStepper::restore(const StepperMemory& m) {
  if (history_ == 0) return;  // one-step methods have no past to restore
  const auto n = static_cast<Eigen::Index>(size_);
  // DRE1 keeps f and x of its last start together: both, once it has taken a step.
  const bool ramp = method_ == OdeMethod::dre1 || method_ == OdeMethod::pdre1;
  bool fits = m.past.size() <= history_ &&
              m.past.size() >=
                  (ramp && m.steps > 0 ? history_ : std::min<std::uint64_t>(m.steps, history_));
  for (const Vector& f : m.past) fits = fits && f.size() == n;
  if (!fits)
    throw SimulationError(std::string(ode_method_name(method_)) +
                          ": the memory to restore is not from a stepper of " +
                          std::to_string(size_) + " states keeping " + std::to_string(history_) +
                          " derivatives");
  memory_ = m;
}

void OdeStepper::restart() {
  memory_.steps = 0;
}

void OdeStepper::eval_f(RightHandSide& f, double t, const Vector& x, Vector& dx) {
  ++derivative_calls_;
  f.derivative(t, x, dx);
}

// Zeroed first so that a model filling only its non-zero entries is enough.
void OdeStepper::eval_jacobian(RightHandSide& f, double t, const Vector& x) {
  ++jacobian_calls_;
  jacobian_.setZero();
  f.jacobian(t, x, jacobian_);
}

// Euler and RK4 are the templates of stepper.hpp: one implementation of each for every
// model kind and the sequential fast path.
void OdeStepper::euler(RightHandSide& f, double t, double h, const Vector& x) {
  next_ = x;
  euler_step([&](double ts, const Vector& xs, Vector& dx) { eval_f(f, ts, xs, dx); }, t, h, next_,
             w_);
}

// Kutta's third-order method; w_.k1 keeps f(t, x) for AB3's history.
void OdeStepper::rk3(RightHandSide& f, double t, double h, const Vector& x) {
  const double half = 0.5 * h;
  eval_f(f, t, x, w_.k1);
  w_.tmp = x + half * w_.k1;
  eval_f(f, t + half, w_.tmp, w_.k2);
  w_.tmp = x + h * (2.0 * w_.k2 - w_.k1);
  eval_f(f, t + h, w_.tmp, w_.k3);
  next_ = x + (h / 6) * (w_.k1 + 4.0 * w_.k2 + w_.k3);
}

void OdeStepper::rk4(RightHandSide& f, double t, double h, const Vector& x) {
  next_ = x;
  rk4_step([&](double ts, const Vector& xs, Vector& dx) { eval_f(f, ts, xs, dx); }, t, h, next_,
           w_);
}

// Start-up (too little history, or another h): RK3 (RK4 for order 4), whose first stage
// leaves f(t, x) in w_.k1. Bashforth leaves f_n in w_.k1, the implicit families in start_f_.
void OdeStepper::adams(RightHandSide& f, double t, double h, const Vector& x,
                       const AdamsScheme& a) {
  const bool start_up = memory_.steps < history_ || (history_ > 0 && memory_.h != h);
  if (start_up) {
    if (a.order == 4)
      rk4(f, t, h, x);
    else
      rk3(f, t, h, x);
    if (a.family != AdamsFamily::bashforth) start_f_ = w_.k1;
    return;
  }
  switch (a.family) {
    case AdamsFamily::bashforth:
      eval_f(f, t, x, w_.k1);
      next_ = x;
      add_explicit(bashforth(a.order), h, w_.k1, next_);
      return;
    case AdamsFamily::moulton: {
      const ImplicitAdams am = moulton(a.order);
      const double h_d = h / am.denominator;
      if (am.terms > 0) eval_f(f, t, x, start_f_);
      sum_ = x;
      if (am.terms > 0) add_explicit(am, h, start_f_, sum_);
      next_ = x;
      implicit_solve(f, t, h, h_d * am.implicit, sum_, x);
      return;
    }
    case AdamsFamily::predictor_corrector: {
      const ImplicitAdams am = moulton(a.order);
      eval_f(f, t, x, start_f_);
      next_ = x;
      add_explicit(bashforth(a.order), h, start_f_, next_);  // P
      sum_ = x;
      if (am.terms > 0) add_explicit(am, h, start_f_, sum_);
      const double h_d = h / am.denominator;
      for (int c = 0; c < a.corrections; ++c) {
        eval_f(f, t + h, next_, w_.k2);              // E
        next_ = sum_ + (h_d * am.implicit) * w_.k2;  // C
      }
      return;
    }
  }
}

// As the textbooks write it, sum += h/d·(n_0 f_n + n_1 f_{n−1} + ...): AB3 keeps the bits of
// x + h/12·(23 f_n − 16 f_{n−1} + 5 f_{n−2}) (a + (−b) is a − b exactly).
template <typename Coefficients>
void OdeStepper::add_explicit(const Coefficients& c, double h, const Vector& fn, Vector& sum) {
  // One pass over the state, the terms summed in order for each component.
  const double h_d = h / c.denominator;
  const auto terms = static_cast<std::size_t>(c.terms);
  for (Eigen::Index i = 0; i < sum.size(); ++i) {
    double acc = c.numerators[0] * fn[i];
    for (std::size_t j = 1; j < terms; ++j) acc += c.numerators[j] * memory_.past[j - 1][i];
    sum[i] += h_d * acc;
  }
}

// After a successful multistep step: f at its start becomes the newest history entry. A
// changed h makes the old entries useless, so counting starts again (the step just taken was
// a start-up step).
void OdeStepper::commit_history(const Vector& fn, double h) {
  if (memory_.steps > 0 && memory_.h != h) memory_.steps = 0;
  if (memory_.past.size() < history_) memory_.past.emplace_back();
  std::rotate(memory_.past.begin(), memory_.past.end() - 1, memory_.past.end());
  memory_.past.front() = fn;
  memory_.h = h;
  ++memory_.steps;
}

void OdeStepper::implicit_solve(RightHandSide& f, double t, double h, double h_beta,
                                const Vector& r, const Vector& x, bool jacobian_ready) {
  const double t1 = t + h;
  const auto n = static_cast<Eigen::Index>(size_);
  if (!jacobian_ready) eval_jacobian(f, t1, next_);
  Eigen::PartialPivLU<Matrix> lu(Matrix::Identity(n, n) - h_beta * jacobian_);
  double last_update = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < newton_.max_iterations; ++iteration) {
    eval_f(f, t1, next_, w_.k1);
    w_.tmp = r - next_ + h_beta * w_.k1;  // −G(x1), G(x1) = x1 − r − hβ f(t1, x1)
    w_.k2 = lu.solve(w_.tmp);
    next_ += w_.k2;
    const double update = max_norm(w_.k2);
    if (!std::isfinite(update)) fail(t, "the Newton update is not finite");
    if (update <= newton_.tolerance * std::max(max_norm(x), max_norm(next_))) return;
    if (update > slow_contraction * last_update) {
      eval_jacobian(f, t1, next_);
      lu.compute(Matrix::Identity(n, n) - h_beta * jacobian_);
    }
    last_update = update;
  }
  if (newton_.accept_at_limit) {
    ++accepted_at_limit_;
    return;
  }
  fail(t, "Newton did not converge in " + std::to_string(newton_.max_iterations) +
              " iterations (h=" + std::to_string(h) + ")");
}

void OdeStepper::exponential(RightHandSide& f, double t, double h, const Vector& x) {
  eval_f(f, t, x, w_.k1);
  eval_jacobian(f, t, x);
  next_ = x;
  for (std::size_t b = 0; b < exponential_blocks_.size(); ++b) {
    const auto o = static_cast<Eigen::Index>(exponential_blocks_[b].offset);
    const auto s = static_cast<Eigen::Index>(exponential_blocks_[b].size);
    next_.segment(o, s) += block_a_d(b, h) * w_.k1.segment(o, s);
  }
}

// The combined solver: RK4 while h·‖J‖∞ ≤ combined_rk4_bound at the step's start and at its
// end time (a model that turns stiff within the step is caught before its stages see it),
// else backward Euler. ‖J‖∞ bounds every |λ|, and RK4's stability region holds the left half
// of the disc |z| ≤ 2.6 (|R(z)| ≤ 0.98 on its edge), so an RK4 step taken is stable for every
// mode of J; the choice is a function of the step's start, so a rollback or a resume repeats it.
void OdeStepper::combined(RightHandSide& f, double t, double h, const Vector& x) {
  if (h * jacobian_bound(f, t, h, x) <= combined_rk4_bound) return rk4(f, t, h, x);
  ++implicit_steps_;
  next_ = x;
  // The Jacobian at (t + h, x) just judged is the one backward Euler starts Newton with.
  implicit_solve(f, t, h, h, x, x, true);
}

// max ‖J‖∞ at (t, x) and (t + h, x): a bound on every |λ| at the step's start and at its end
// time. Leaves J(t + h, x) in jacobian_.
double OdeStepper::jacobian_bound(RightHandSide& f, double t, double h, const Vector& x) {
  double bound = 0;
  for (const double at : {t, t + h}) {
    eval_jacobian(f, at, x);
    if (size_ > 0) bound = std::max(bound, jacobian_.cwiseAbs().rowwise().sum().maxCoeff());
  }
  return bound;
}

// RK4 in m = ⌈h·‖J‖∞ / combined_rk4_bound⌉ equal sub-steps (at least 1), judged as the combined
// solver judges a step: each sub-step then lies where RK4 is stable for every mode of J. The
// step's frame stays h (what a real-time frame needs); its work grows with the model's
// stiffness, up to max_substeps sub-steps, beyond which the step fails rather than take an
// unbounded time. A function of the step's start: a rollback or a resume repeats it.
void OdeStepper::rk4_substeps(RightHandSide& f, double t, double h, const Vector& x) {
  const double needed = std::ceil(h * jacobian_bound(f, t, h, x) / combined_rk4_bound);
  if (!(needed <= static_cast<double>(max_substeps)))
    fail(t, "RK4 would need " + std::to_string(needed) +
                " sub-steps of this step to stay "
                "stable (at most " +
                std::to_string(max_substeps) + "): take a smaller h or an implicit integrator");
  const auto m = static_cast<std::uint64_t>(std::max(1.0, needed));
  substeps_ += m - 1;
  next_ = x;
  const double part = h / static_cast<double>(m);
  for (std::uint64_t k = 0; k < m; ++k)
    rk4_step([&](double ts, const Vector& xs, Vector& dx) { eval_f(f, ts, xs, dx); },
             step_time(t, part, k), part, next_, w_);
}

// DRE1: the part of f the Jacobian does not explain, w(t) = f − A x, taken as a ramp through
// its values at the last step's start and this one's instead of held (DRE0):
//   x += A_D f_n + B_D d,  d = (f_n − f_{n−1} − A (x_n − x_{n−1})) / h,
//   B_D = ∫_0^h e^{(h−s)A} s ds = h² φ2(hA),
// exact for linear dynamics driven by inputs linear in time. A is the Jacobian at the step's
// start (pDRE1: each block's own). Its first step, and the first after restart() or a new h,
// is DRE0's.
void OdeStepper::exponential_ramp(RightHandSide& f, double t, double h, const Vector& x) {
  exponential(f, t, h, x);  // leaves f_n in w_.k1 and A in jacobian_
  if (memory_.steps == 0 || memory_.h != h) return;
  const Vector& f_before = memory_.past[0];
  const Vector& x_before = memory_.past[1];
  for (std::size_t b = 0; b < exponential_blocks_.size(); ++b) {
    const auto o = static_cast<Eigen::Index>(exponential_blocks_[b].offset);
    const auto s = static_cast<Eigen::Index>(exponential_blocks_[b].size);
    w_.tmp = (w_.k1.segment(o, s) - f_before.segment(o, s)) -
             jacobian_.block(o, o, s, s) * (x.segment(o, s) - x_before.segment(o, s));
    next_.segment(o, s) += block_b_d(b) * (w_.tmp / h);
  }
}

// After a DRE1 step: f and x at its start are the next step's past.
void OdeStepper::commit_ramp(const Vector& x, double h) {
  if (memory_.steps > 0 && memory_.h != h) memory_.steps = 0;
  memory_.past = {w_.k1, x};
  memory_.h = h;
  ++memory_.steps;
}

// Block b's B_D, for the A and h its A_D was last computed from (block_a_d comes first).
const Matrix& OdeStepper::block_b_d(std::size_t b) const {
  return caches_[b].b_d;
}

// Block b's A_D for the Jacobian in jacobian_, recomputed only when its diagonal block or h
// changed bitwise: the result is a function of those bits alone, so reuse changes nothing.
const Matrix& OdeStepper::block_a_d(std::size_t b, double h) {
  const auto o = static_cast<Eigen::Index>(exponential_blocks_[b].offset);
  const auto s = static_cast<Eigen::Index>(exponential_blocks_[b].size);
  const Matrix& j = jacobian_;
  const auto a = j.block(o, o, s, s);
  BlockCache& cache = caches_[b];
  if (!cache.valid || cache.h != h || !same_bits(cache.a, a)) {
    cache.a = a;
    if (method_ == OdeMethod::dre1 || method_ == OdeMethod::pdre1) {  // B_D too, one pass
      ExponentialMatrices m = phi1_and_phi2(cache.a, h);
      cache.a_d = std::move(m.a_d);
      cache.b_d = std::move(m.b_d);
    } else {
      cache.a_d = phi1_times_h(cache.a, h);
    }
    cache.h = h;
    cache.valid = true;
  }
  return cache.a_d;
}

void OdeStepper::fail(double t, const std::string& what) const {
  std::ostringstream message;
  message.precision(12);
  message << ode_method_name(method_) << " step at t=" << t << ": " << what;
  throw SimulationError(message.str());
}

}  // namespace kausal
