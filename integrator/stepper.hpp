#pragma once
// Explicit one-step methods, written once as templates over the state container so that the
// sequential fast path (fixed-size arrays, inlined right-hand side) and the Integrator
// component (vectors, Calc over a SystemLink) perform the same floating-point operations.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kausal {

enum class Method { euler, rk4 };

// Throws InputError for an unknown name; `where` prefixes the message.
Method parse_method(std::string_view name, const std::string& where);
std::string_view method_name(Method m);
int calcs_per_step(Method m);

// Scratch vectors of one stepper, sized like the state.
template <typename Vec>
struct StepWork {
  Vec k1, k2, k3, k4, tmp;
  explicit StepWork(const Vec& like) : k1(like), k2(like), k3(like), k4(like), tmp(like) {}
};

// x_{m+1} = x_m + h f(t_m, x_m)
template <typename Vec, typename Rhs>
void euler_step(Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  f(t, x, w.k1);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = x[i] + h * w.k1[i];
}

// The classical Runge–Kutta method of order 4.
template <typename Vec, typename Rhs>
void rk4_step(Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  const double half = 0.5 * h;
  f(t, x, w.k1);
  for (std::size_t i = 0; i < x.size(); ++i) w.tmp[i] = x[i] + half * w.k1[i];
  f(t + half, w.tmp, w.k2);
  for (std::size_t i = 0; i < x.size(); ++i) w.tmp[i] = x[i] + half * w.k2[i];
  f(t + half, w.tmp, w.k3);
  for (std::size_t i = 0; i < x.size(); ++i) w.tmp[i] = x[i] + h * w.k3[i];
  f(t + h, w.tmp, w.k4);
  const double sixth = h / 6;
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = x[i] + sixth * (w.k1[i] + 2 * w.k2[i] + 2 * w.k3[i] + w.k4[i]);
}

template <typename Vec, typename Rhs>
void take_step(Method m, Rhs&& f, double t, double h, Vec& x, StepWork<Vec>& w) {
  if (m == Method::euler)
    euler_step(f, t, h, x, w);
  else
    rk4_step(f, t, h, x, w);
}

// t_m = t0 + m·h, computed from the step index, never by accumulating h.
inline double step_time(double t0, double h, std::uint64_t m) {
  return t0 + static_cast<double>(m) * h;
}

}  // namespace kausal
