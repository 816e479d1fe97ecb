#include "monitor/analysis/partition_analysis.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "common/text_table.hpp"
#include "integrator/adams.hpp"
#include "integrator/exponential_series.hpp"

namespace kausal {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();
using Complex = std::complex<double>;

void check_arguments(const Matrix& J, const std::vector<StateBlock>& blocks,
                     const std::vector<PartitionStepping>& stepping) {
  if (J.rows() != J.cols()) throw std::invalid_argument("partition analysis: J is not square");
  if (!stepping.empty() && stepping.size() != blocks.size())
    throw std::invalid_argument("partition analysis: one step per partition needed");
  for (const auto& b : blocks)
    if (b.size == 0 || b.offset + b.size > static_cast<std::size_t>(J.rows()))
      throw std::invalid_argument("partition analysis: partition '" + b.name +
                                  "' is empty or outside the Jacobian");
}

// The largest |ζ| of the eigenvalues of a complex matrix C. The real matrix
// [Re C, -Im C; Im C, Re C] has the eigenvalues of C and their conjugates, so its largest |λ|
// is theirs; the real solver is the one the diagnostics instantiate anyway (a complex one
// doubled this file's compile time).
double spectral_radius(const std::vector<std::vector<Complex>>& c) {
  const auto n = static_cast<Eigen::Index>(c.size());
  Matrix real(2 * n, 2 * n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const Complex v = c[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      real(i, j) = real(i + n, j + n) = v.real();
      real(i + n, j) = v.imag();
      real(i, j + n) = -v.imag();
    }
  const Eigen::EigenSolver<Matrix> roots(real, false);
  return roots.eigenvalues().cwiseAbs().maxCoeff();
}

// One step of an Adams scheme on ẋ = λx with h = 1 (z = hλ, f = z·x), as the stepper takes it
// (integrator/adams.hpp), from y = (x_n, f_{n−1}, ..., f_{n−p}) to the same at n + 1.
std::vector<Complex> adams_test_step(const AdamsScheme& a, Complex z,
                                     const std::vector<Complex>& y) {
  const Complex fn = z * y[0];
  auto f = [&](std::size_t j) { return j == 0 ? fn : y[j]; };  // f_{n−j}
  auto explicit_part = [&](const auto& c) {
    Complex sum = 0;
    for (int j = 0; j < c.terms; ++j) sum += c.numerators[static_cast<std::size_t>(j)] * f(j);
    return sum / c.denominator;
  };
  Complex next;
  if (a.family == AdamsFamily::bashforth) {
    next = y[0] + explicit_part(bashforth(a.order));
  } else {
    const ImplicitAdams am = moulton(a.order);
    const Complex r = y[0] + explicit_part(am), beta_z = am.implicit / am.denominator * z;
    if (a.family == AdamsFamily::moulton) {
      next = r / (1.0 - beta_z);
    } else {
      next = y[0] + explicit_part(bashforth(a.order));
      for (int c = 0; c < a.corrections; ++c) next = r + beta_z * next;
    }
  }
  std::vector<Complex> out(y.size());
  out[0] = next;
  if (y.size() > 1) out[1] = fn;
  for (std::size_t j = 2; j < y.size(); ++j) out[j] = y[j - 1];
  return out;
}

// |ζ| of the growth per step of the mode z = hλ, less 1: <= 0 inside the stability region.
double growth(OdeMethod method, Complex z) {
  switch (method) {
    case OdeMethod::euler:
      return std::abs(1.0 + z) - 1;
    case OdeMethod::rk3:
      return std::abs(1.0 + z * (1.0 + z / 2.0 * (1.0 + z / 3.0))) - 1;
    case OdeMethod::rk4:
      return std::abs(1.0 + z * (1.0 + z / 2.0 * (1.0 + z / 3.0 * (1.0 + z / 4.0)))) - 1;
    default:
      break;
  }
  const auto a = adams_scheme(method);
  if (!a) return -1;  // implicit and exponential methods: no limit
  // The step is linear in y: its matrix, column by column, and the largest root.
  const std::size_t n = 1 + history_length(method);
  std::vector<std::vector<Complex>> step(n, std::vector<Complex>(n));
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<Complex> unit(n, 0.0);
    unit[j] = 1.0;
    const std::vector<Complex> column = adams_test_step(*a, z, unit);
    for (std::size_t i = 0; i < n; ++i) step[i][j] = column[i];
  }
  return spectral_radius(step) - 1;
}

// Rounding in the growth of a stable mode near z = 0 stays far below this.
constexpr double growth_tolerance = 1e-13;
// A method that grows a mode weakly from z = 0 on (by c·|z|^(p+1) a step, p its order: AB2,
// AM3 and ABM4 on the imaginary axis) stays under growth_tolerance up to about this |z|: a
// limit below it is the tolerance's, not the method's, and means no stable step.
constexpr double rounding_reach = 0.02;

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

// A growing mode (Re λ > 0) must not read like a decaying one: "+0.5", "-2", "0".
std::string signed_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, v > 0 ? "%+.4g" : "%.4g", v);
  return buffer;
}

// Real parts below this share of the largest |λ| are zero: within the accuracy of the
// eigenvalues of a nonsymmetric matrix (a neutral mode must not show as growing).
double zero_level(const PartitionDiagnostics& d) {
  double largest = 0;
  for (const auto& l : d.eigenvalues) largest = std::max(largest, std::abs(l));
  return 1e-9 * largest;
}

void eigen_diagnostics(const Matrix& block, PartitionDiagnostics& d) {
  Eigen::EigenSolver<Matrix> solver(block, false);
  const auto& values = solver.eigenvalues();
  d.eigenvalues.assign(values.data(), values.data() + values.size());
  const double zero = zero_level(d);
  d.min_abs_re = infinity;
  d.min_re = infinity;
  d.max_re = -infinity;
  for (const auto& l : d.eigenvalues) {
    const double re = std::abs(l.real()) <= zero ? 0.0 : l.real();
    d.min_re = std::min(d.min_re, re);
    d.max_re = std::max(d.max_re, re);
    if (re == 0) {
      ++d.zero_real_parts;
      if (std::abs(l) > zero) ++d.undamped;
      continue;
    }
    if (re > 0) ++d.unstable;
    d.max_abs_re = std::max(d.max_abs_re, std::abs(re));
    d.min_abs_re = std::min(d.min_abs_re, std::abs(re));
  }
  if (d.min_abs_re == infinity) d.min_abs_re = 0;
  d.stiffness = d.min_abs_re > 0 ? d.max_abs_re / d.min_abs_re : 1;
}

// The smallest step limit of the method over the modes that do not grow by themselves.
double step_limit(const PartitionDiagnostics& d, OdeMethod method) {
  const double zero = zero_level(d);
  double limit = infinity;
  for (const auto& l : d.eigenvalues) {
    if (std::abs(l) <= zero) continue;  // neutral: a zero eigenvalue
    if (l.real() > zero) continue;      // growing: the model's, not the method's
    limit = std::min(limit, stable_step_limit(method, Complex(std::min(l.real(), 0.0), l.imag())));
  }
  return limit;
}

// The columns of J outside the block, side by side.
Matrix rest_columns(const Matrix& J, const StateBlock& b) {
  const auto offset = static_cast<Eigen::Index>(b.offset);
  const auto size = static_cast<Eigen::Index>(b.size);
  const Eigen::Index rest = J.cols() - size;
  Matrix out(size, rest);
  out.leftCols(offset) = J.block(offset, 0, size, offset);
  out.rightCols(rest - offset) = J.block(offset, offset + size, size, rest - offset);
  return out;
}

double coupling_ratio(const Matrix& J, const StateBlock& b) {
  const Matrix rest = rest_columns(J, b);
  if (rest.size() == 0 || rest.isZero(0)) return 0;
  const auto offset = static_cast<Eigen::Index>(b.offset);
  const auto size = static_cast<Eigen::Index>(b.size);
  const Eigen::FullPivLU<Matrix> lu(J.block(offset, offset, size, size));
  if (!lu.isInvertible()) return infinity;
  return (lu.solve(rest)).cwiseAbs().rowwise().sum().maxCoeff();
}

// Explicit methods and the Adams–Moulton methods of order 3 and 4 (am1 and am2 are
// A-stable); so are the predictor–correctors, which iterate their corrector a fixed number
// of times.
bool has_limit(OdeMethod m) {
  if (const auto a = adams_scheme(m)) return a->family != AdamsFamily::moulton || a->order > 2;
  return m == OdeMethod::euler || m == OdeMethod::rk3 || m == OdeMethod::rk4;
}

std::string limit_text(const PartitionDiagnostics& d) {
  if (!d.method) return "-";
  if (!has_limit(*d.method))
    return is_exponential(*d.method)              ? "none (exponential)"
           : *d.method == OdeMethod::rk4_substeps ? "none (sub-steps)"
                                                  : "none (implicit)";
  return number(d.h_max);
}

std::vector<std::string> row_of(const PartitionDiagnostics& d) {
  return {d.name,
          std::to_string(d.size),
          d.method ? std::string(ode_method_name(*d.method)) : "-",
          number(d.stiffness),
          d.min_re == d.max_re ? signed_number(d.min_re)
                               : signed_number(d.min_re) + " .. " + signed_number(d.max_re),
          std::to_string(d.unstable),
          limit_text(d),
          std::isnan(d.h) ? "-" : number(d.h),
          number(d.coupling_ratio)};
}

// How an exponential partition's A_D is summed: kausal's fixed series after its halvings, and
// the terms Clemens' unscaled series needs (its matrix products: one fewer than its terms;
// kausal's: series_terms − 1, and two per halving).
std::string series_note(const PartitionDiagnostics& d) {
  std::string terms, products, epsilons, errors;
  for (std::size_t k = 0; k < d.unscaled_terms.size(); ++k) {
    const std::string sep = k ? ", " : "";
    const auto& t = d.unscaled_terms[k];
    terms += sep + (t ? std::to_string(t->terms) : "over 1000");
    products += sep + (t ? std::to_string(t->terms - 1) : "-");
    epsilons += sep + number(kSeriesEpsilons[k]);
    errors += sep + (t ? number(t->error) : "-");
  }
  std::string out = "A_D = h·φ1(hA) in " + std::to_string(series_terms) + " terms after " +
                    std::to_string(*d.halvings) + " halvings of h (" +
                    std::to_string(series_terms - 1 + 2 * *d.halvings) +
                    " matrix products); Clemens' unscaled series to ε = " + epsilons + " takes " +
                    terms + " terms (" + products + " products), off by " + errors + " (relative)";
  return out;
}

std::vector<std::string> notes_of(const PartitionDiagnostics& d) {
  std::vector<std::string> out;
  const std::string who = "partition " + d.name + ": ";
  if (d.warning)
    out.push_back("warning: " + who + "coupling ratio " + number(d.coupling_ratio) +
                  " >= 1 — the other partitions drive it more strongly than its own dynamics; "
                  "a split here needs small steps or a different cut");
  if (d.unstable)
    out.push_back("note: " + who + std::to_string(d.unstable) +
                  " unstable eigenvalue(s), Re > 0 (largest Re " + signed_number(d.max_re) +
                  "): the linearised partition grows by itself here; no method or step makes "
                  "it decay");
  const std::string method = d.method ? std::string(ode_method_name(*d.method)) : "";
  if (d.method && has_limit(*d.method) && d.h_max == 0)
    out.push_back("note: " + who + method +
                  " has no stable step: it grows the modes on or next to the imaginary axis "
                  "(undamped oscillations) at any h; rk3, rk4, ab3, ab4 and most ABM pairs "
                  "keep them bounded below a limit, am1, am2, backward_euler and the "
                  "exponential methods at any h (kausal models --integrators)");
  else if (d.h_exceeds_limit)
    out.push_back("note: " + who + "h = " + number(d.h) + " exceeds the " + method +
                  " stability limit " + number(d.h_max) +
                  " (use a smaller step or an implicit/exponential method)");
  if (d.halvings) out.push_back("note: " + who + series_note(d));
  return out;
}

}  // namespace

double stable_step_limit(OdeMethod method, Complex lambda) {
  const double size = std::abs(lambda);
  if (size == 0 || !has_limit(method)) return infinity;
  // Out from 0 along the ray through λ: the first |z| whose mode grows, on a geometric grid
  // (every region of these methods lies within |z| < 10), then bisection.
  const Complex direction = lambda / size;
  auto stable = [&](double r) { return growth(method, r * direction) <= growth_tolerance; };
  double inside = 0, outside = 0;
  for (double r = 1e-5; r < 10; r *= 1.01) {
    if (!stable(r)) {
      outside = r;
      break;
    }
    inside = r;
  }
  if (outside == 0) return infinity;
  if (inside < rounding_reach) return 0;  // unstable from the first steps on
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (inside + outside);
    (stable(mid) ? inside : outside) = mid;
  }
  return inside / size;
}

bool PartitionReport::any_warning() const {
  return std::any_of(partitions.begin(), partitions.end(), [](const auto& p) { return p.warning; });
}

PartitionReport analyze_partitions(const Matrix& J, const std::vector<StateBlock>& blocks,
                                   const std::vector<PartitionStepping>& stepping) {
  check_arguments(J, blocks, stepping);
  PartitionReport report;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    PartitionDiagnostics d;
    d.name = b.name;
    d.offset = b.offset;
    d.size = b.size;
    const auto offset = static_cast<Eigen::Index>(b.offset);
    const auto size = static_cast<Eigen::Index>(b.size);
    eigen_diagnostics(J.block(offset, offset, size, size), d);
    d.h = std::nan("");
    d.h_max = std::nan("");
    if (!stepping.empty()) {
      d.method = stepping[i].method;
      d.h = stepping[i].h;
      d.h_max = step_limit(d, stepping[i].method);
      d.h_exceeds_limit = d.h >= d.h_max;
      if (is_exponential(stepping[i].method) && std::isfinite(d.h) && d.h > 0) {
        const Matrix a = J.block(offset, offset, size, size);
        d.halvings = series_halvings(a, d.h);
        for (const double epsilon : kSeriesEpsilons)
          d.unscaled_terms.push_back(unscaled_series_terms(a, d.h, epsilon));
      }
    }
    d.coupling_ratio = coupling_ratio(J, b);
    d.warning = d.coupling_ratio >= 1;
    report.partitions.push_back(std::move(d));
  }
  return report;
}

std::string format_partition_report(const PartitionReport& report) {
  std::vector<std::vector<std::string>> rows = {{"partition", "states", "method", "stiffness",
                                                 "Re(lambda)", "unstable", "stable h <=", "h",
                                                 "kappa"}};
  for (const auto& d : report.partitions) rows.push_back(row_of(d));
  std::string out = format_table(rows, {});
  for (const auto& d : report.partitions)
    for (const auto& note : notes_of(d)) out += note + "\n";
  return out;
}

}  // namespace kausal
