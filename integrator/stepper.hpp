#pragma once
// The explicit one-step methods Euler and RK4, written once as templates over the state
// container: the Integrator's OdeStepper (integrator/ode_method.hpp) runs them on Eigen
// vectors, the pendulum chain's sequential fast path on fixed-size arrays with the model
// inlined, so both perform the same floating-point operations (tests/unit/ode_method_test.cpp
// checks the bits; bench/sequential.sh shows why the fast path is kept).
#include <cstddef>
#include <cstdint>

#include "integrator/method.hpp"

namespace kausal {

// Scratch vectors of one stepper, sized like the state.
template <typename Vec>
struct StepWork {
  Vec k1, k2, k3, k4, tmp;
  explicit StepWork(const Vec& like) : k1(like), k2(like), k3(like), k4(like), tmp(like) {}
};

// x_{m+1} = x_m + h f(t_m, x_m)
template <typename Vec, typename Rhs>
void euler_step(Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  const auto n = static_cast<std::size_t>(x.size());
  f(t, x, w.k1);
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] + h * w.k1[i];
}

// The classical Runge–Kutta method of order 4.
template <typename Vec, typename Rhs>
void rk4_step(Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  const auto n = static_cast<std::size_t>(x.size());
  const double half = 0.5 * h;
  f(t, x, w.k1);
  for (std::size_t i = 0; i < n; ++i) w.tmp[i] = x[i] + half * w.k1[i];
  f(t + half, w.tmp, w.k2);
  for (std::size_t i = 0; i < n; ++i) w.tmp[i] = x[i] + half * w.k2[i];
  f(t + half, w.tmp, w.k3);
  for (std::size_t i = 0; i < n; ++i) w.tmp[i] = x[i] + h * w.k3[i];
  f(t + h, w.tmp, w.k4);
  const double sixth = h / 6;
  for (std::size_t i = 0; i < n; ++i)
    x[i] = x[i] + sixth * (w.k1[i] + 2 * w.k2[i] + 2 * w.k3[i] + w.k4[i]);
}

// Euler for OdeMethod::euler, RK4 for any other (callers check the method is one of the two).
template <typename Vec, typename Rhs>
void take_step(OdeMethod m, Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  if (m == OdeMethod::euler)
    euler_step(f, t, h, x, w);
  else
    rk4_step(f, t, h, x, w);
}

// The f evaluations of one take_step().
inline int calcs_per_step(OdeMethod m) {
  return m == OdeMethod::euler ? 1 : 4;
}

// t_m = t0 + m·h, computed from the step index, never by accumulating h.
inline double step_time(double t0, double h, std::uint64_t m) {
  return t0 + static_cast<double>(m) * h;
}

}  // namespace kausal
