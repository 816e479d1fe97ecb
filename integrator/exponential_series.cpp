#include "integrator/exponential_series.hpp"

#include <cmath>
#include <string>

#include "common/errors.hpp"

namespace kausal {
namespace {

// With ‖τA‖ ≤ 1/2 the first omitted term of series_terms is below half an ulp of 1, so more
// terms would buy no accuracy.
constexpr double scaled_norm_limit = 0.5;

// φ1(X) = Σ_{k=0}^{series_terms−1} X^k/(k+1)!, nested as I + X/2·(I + X/3·(I + …)), in two
// buffers so that the loop allocates nothing.
Matrix phi1_series(const Matrix& X) {
  const Eigen::Index n = X.rows();
  Matrix p = Matrix::Identity(n, n);
  Matrix next(n, n);
  for (int j = series_terms; j >= 2; --j) {
    next.noalias() = X * p;
    next /= static_cast<double>(j);
    next.diagonal().array() += 1.0;
    p.swap(next);
  }
  return p;
}

// φ2(X) = Σ_{k=0}^{series_terms−1} X^k/(k+2)!, nested as I/2 + X/6·(...) likewise: the
// same number of terms as φ1 (its terms are smaller still).
Matrix phi2_series(const Matrix& X) {
  const Eigen::Index n = X.rows();
  Matrix p = Matrix::Identity(n, n);
  Matrix next(n, n);
  for (int j = series_terms + 1; j >= 3; --j) {
    next.noalias() = X * p;
    next /= static_cast<double>(j);
    next.diagonal().array() += 1.0;
    p.swap(next);
  }
  return p / 2.0;
}

// The smallest s ≥ 0 with norm/2^s ≤ scaled_norm_limit.
int halvings_for(double norm) {
  int s = 0;
  while (norm > scaled_norm_limit) {
    norm /= 2;
    ++s;
  }
  return s;
}

// SimulationError naming `what` unless A and h are finite.
void check_finite(const char* what, const Matrix& A, double h) {
  if (!std::isfinite(h) || !A.allFinite())
    throw SimulationError(std::string(what) + ": the Jacobian or the step h=" + std::to_string(h) +
                          " is not finite");
}

// The halvings of h that bring ‖hA‖₁ to scaled_norm_limit.
int halvings(const Matrix& A, double h) {
  const double norm = std::abs(h) * A.cwiseAbs().colwise().sum().maxCoeff();
  return A.rows() == 0 ? 0 : halvings_for(norm);
}

}  // namespace

int series_halvings(const Matrix& A, double h) {
  check_finite("series_halvings", A, h);
  return halvings(A, h);
}

std::optional<UnscaledSeries> unscaled_series_terms(const Matrix& A, double h, double epsilon,
                                                    int most) {
  check_finite("unscaled_series_terms", A, h);
  const Eigen::Index n = A.rows();
  if (n == 0) return UnscaledSeries{1, 0};
  const auto norm = [](const Matrix& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); };
  Matrix term = h * Matrix::Identity(n, n);  // h (hA)^k/(k+1)! for k = 0
  Matrix sum = term;
  const Matrix ha = h * A;
  for (int k = 1; k <= most; ++k) {
    term = (ha * term) / static_cast<double>(k + 1);
    const double size = norm(term);
    if (!std::isfinite(size)) return std::nullopt;
    sum += term;
    if (size <= epsilon * norm(sum)) {
      const Matrix exact = phi1_times_h(A, h);
      return UnscaledSeries{k + 1, norm(sum - exact) / norm(exact)};
    }
  }
  return std::nullopt;
}

ExponentialMatrices phi1_and_phi2(const Matrix& A, double h) {
  check_finite("phi1_and_phi2", A, h);
  const Eigen::Index n = A.rows();
  const int s = halvings(A, h);
  double tau = std::ldexp(h, -s);
  Matrix d = tau * phi1_series(tau * A);
  Matrix b = (tau * tau) * phi2_series(tau * A);
  Matrix factor(n, n), next(n, n);
  for (int i = 0; i < s; ++i) {
    factor.noalias() = A * d;
    factor.diagonal().array() += 2.0;
    next.noalias() = factor * b;
    next += tau * d;
    b.swap(next);
    next.noalias() = d * factor;
    d.swap(next);
    tau *= 2;
  }
  return {std::move(d), std::move(b)};
}

Matrix phi1_times_h(const Matrix& A, double h) {
  check_finite("phi1_times_h", A, h);
  const Eigen::Index n = A.rows();
  const int s = halvings(A, h);
  const double tau = std::ldexp(h, -s);  // exact: a power-of-two scaling
  Matrix d = tau * phi1_series(tau * A);
  Matrix factor(n, n), doubled(n, n);
  for (int i = 0; i < s; ++i) {
    factor.noalias() = A * d;
    factor.diagonal().array() += 2.0;
    doubled.noalias() = d * factor;
    d.swap(doubled);
  }
  return d;
}

}  // namespace kausal
