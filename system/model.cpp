#include "system/model.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

namespace kausal {

void Model::derivative_rows(double t, VectorView x, VectorView u, VectorOut dx,
                            const std::vector<bool>&) const {
  derivative(t, x, u, dx);
}

void Model::output(double, VectorView x, VectorOut y) const {
  if (y.size() != x.size())
    throw ModelError("model", "outputs differ from the state; the model must define output()");
  y = x;
}

// Central differences with a step scaled to each component (cube root of the machine
// epsilon balances truncation against rounding for a second-order formula).
void Model::jacobian(double t, VectorView x, VectorView u, MatrixOut J) const {
  const Eigen::Index n = x.size();
  Vector probe = x;
  Vector plus(n), minus(n);
  const double scale = std::cbrt(std::numeric_limits<double>::epsilon());
  for (Eigen::Index j = 0; j < n; ++j) {
    const double step = scale * std::max(1.0, std::abs(x[j]));
    probe[j] = x[j] + step;
    derivative(t, probe, u, plus);
    probe[j] = x[j] - step;
    derivative(t, probe, u, minus);
    probe[j] = x[j];
    J.col(j) = (plus - minus) / (2 * step);
  }
}

void Model::indicators(double, VectorView, VectorView, VectorOut) const {}

void Model::on_crossing(std::size_t indicator, double, VectorOut) const {
  throw ModelError("model", "no handler for zero crossing " + std::to_string(indicator));
}

void Model::completed_step(double, VectorOut) const {}

void Model::handle_event(const Event& event, std::span<double>) const {
  throw ModelError("model", "unknown event '" + event.kind + "'");
}

Bytes Model::save_internal() const {
  throw ModelError("model", "has no internal state to save");
}

void Model::restore_internal(std::span<const std::uint8_t>) const {
  throw ModelError("model", "has no internal state to restore");
}

void Model::step(double, double, VectorView, MatrixView, VectorOut) const {
  throw ModelError("model", "does not step itself: it is integrated through derivative()");
}

double input_over_step(VectorView u, MatrixView du, Eigen::Index i, double s) {
  double factorial = 1;
  for (Eigen::Index k = 1; k <= du.cols(); ++k) factorial *= static_cast<double>(k);
  double acc = 0;
  for (Eigen::Index k = du.cols(); k >= 1; --k) {
    acc = du(i, k - 1) / factorial + s * acc;
    factorial /= static_cast<double>(k);
  }
  return u[i] + s * acc;
}

}  // namespace kausal
