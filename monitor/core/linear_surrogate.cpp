#include "monitor/core/linear_surrogate.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kausal {

LinearSurrogate::LinearSurrogate(std::size_t inputs, std::size_t outputs, std::size_t window)
    : inputs_(inputs), outputs_(outputs), window_(window), gains_(inputs * outputs, 0.0) {
  if (window == 0) throw std::invalid_argument("a surrogate's window must be at least 1 step");
}

void LinearSurrogate::learn(std::span<const double> input_deviation,
                            std::span<const double> output_deviation) {
  if (input_deviation.size() != inputs_ || output_deviation.size() != outputs_)
    throw std::invalid_argument("a surrogate of " + std::to_string(inputs_) + " inputs and " +
                                std::to_string(outputs_) + " outputs was given " +
                                std::to_string(input_deviation.size()) + " and " +
                                std::to_string(output_deviation.size()));
  const auto finite = [](double v) { return std::isfinite(v); };
  if (!std::all_of(input_deviation.begin(), input_deviation.end(), finite) ||
      !std::all_of(output_deviation.begin(), output_deviation.end(), finite))
    return;
  samples_.push_back({{input_deviation.begin(), input_deviation.end()},
                      {output_deviation.begin(), output_deviation.end()}});
  if (samples_.size() > window_) samples_.pop_front();
  fit();
}

// D = Y Uᵀ (U Uᵀ + λ I)⁻¹ with the samples as the columns of U and Y. λ is a millionth of the
// inputs' mean square: it only decides directions the samples never moved in (and keeps them
// at 0), not the ones they did.
void LinearSurrogate::fit() {
  if (inputs_ == 0 || outputs_ == 0) return;
  const auto n = static_cast<Eigen::Index>(samples_.size());
  Eigen::MatrixXd u(static_cast<Eigen::Index>(inputs_), n),
      y(static_cast<Eigen::Index>(outputs_), n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const Sample& s = samples_[static_cast<std::size_t>(k)];
    u.col(k) = Eigen::Map<const Eigen::VectorXd>(s.input.data(), u.rows());
    y.col(k) = Eigen::Map<const Eigen::VectorXd>(s.output.data(), y.rows());
  }
  Eigen::MatrixXd gram = u * u.transpose();
  const double scale = gram.trace() / static_cast<double>(inputs_);
  if (!(scale > 0)) {
    std::fill(gains_.begin(), gains_.end(), 0.0);
    return;
  }
  gram.diagonal().array() += 1e-6 * scale;
  // gram is symmetric positive definite: D ᵀ = gram⁻¹ (U Yᵀ).
  const Eigen::MatrixXd gains_t = gram.ldlt().solve(u * y.transpose());
  for (std::size_t j = 0; j < outputs_; ++j)
    for (std::size_t i = 0; i < inputs_; ++i)
      gains_[j * inputs_ + i] = gains_t(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
}

std::vector<double> LinearSurrogate::correction(std::span<const double> input_deviation) const {
  if (input_deviation.size() != inputs_)
    throw std::invalid_argument("a surrogate of " + std::to_string(inputs_) + " inputs was given " +
                                std::to_string(input_deviation.size()));
  std::vector<double> out(outputs_, 0.0);
  for (std::size_t j = 0; j < outputs_; ++j)
    for (std::size_t i = 0; i < inputs_; ++i)
      out[j] += gains_[j * inputs_ + i] * input_deviation[i];
  return out;
}

}  // namespace kausal
