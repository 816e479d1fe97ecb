#include "integrator/prediction.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kausal {
namespace {

// Two scores tie within 1e-12 relative to themselves or to the data's magnitude: a fit that
// reproduces the samples scores rounding of the values' size, which must not make a higher
// order win over a lower one that is exact too. Exact zeros always tie.
bool within_rounding(double a, double b, double magnitude) {
  return std::abs(a - b) <= 1e-12 * std::max({std::abs(a), std::abs(b), magnitude}) + 1e-300;
}

void check_samples(std::span<const TimedSample> samples) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i].t))
      throw std::invalid_argument("prediction: a sample time is not finite");
    if (i > 0 && !(samples[i - 1].t < samples[i].t))
      throw std::invalid_argument("prediction: sample times are not strictly ascending");
  }
}

// c1..cn of the polynomial through (0, y_newest) that fits the other used samples: exactly
// if there are n of them, in the least-squares sense if more. The columns s^k are well
// conditioned in the scaled coordinate (s between −(used − 1) and 0 for even spacing).
void fit_higher_coefficients(std::span<const TimedSample> used, Prediction& p) {
  const int n = p.order;
  const auto rows = static_cast<Eigen::Index>(used.size() - 1);
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 2>;
  using Vector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;
  Matrix a(rows, n);
  Vector b(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const TimedSample& sample = used[static_cast<std::size_t>(i)];
    const double s = (sample.t - p.t_ref) / p.scale;
    double power = 1;
    for (int k = 0; k < n; ++k) {
      power *= s;
      a(i, k) = power;
    }
    b[i] = sample.value - p.c[0];
  }
  const Vector x = a.householderQr().solve(b);
  for (int k = 0; k < n; ++k) p.c[static_cast<std::size_t>(k + 1)] = x[k];
}

Prediction constant(double value, double t_ref, double valid_from, double valid_to) {
  Prediction p;
  p.c[0] = value;
  p.t_ref = t_ref;
  p.valid_from = valid_from;
  p.valid_to = valid_to;
  return p;
}

// The quadratic through p's values at the ends and the middle of its validity interval.
Prediction quadratic_on_interval(const Prediction& p) {
  const double width = p.valid_to - p.valid_from;
  const double y0 = p.value(p.valid_from);
  const double ym = p.value(p.valid_from + 0.5 * width);
  const double y1 = p.value(p.valid_to);
  Prediction q = constant(y0, p.valid_from, p.valid_from, p.valid_to);
  q.scale = width;
  q.order = 2;
  q.c[1] = 4 * ym - 3 * y0 - y1;
  q.c[2] = 2 * (y0 + y1) - 4 * ym;
  return q;
}

}  // namespace

double Prediction::value(double t) const {
  const double s = (t - t_ref) / scale;
  double v = 0;
  for (int k = std::clamp(order, 0, 3); k >= 0; --k) v = v * s + c[static_cast<std::size_t>(k)];
  return v;
}

double Prediction::slope(double t) const {
  return derivative(t, 1);
}

double Prediction::derivative(double t, int k) const {
  const double s = (t - t_ref) / scale;
  double d = 0;
  for (int m = std::clamp(order, 0, 3); m >= k; --m) {
    double falling = 1;  // m! / (m - k)!
    for (int j = 0; j < k; ++j) falling *= m - j;
    d = d * s + falling * c[static_cast<std::size_t>(m)];
  }
  return d / std::pow(scale, k);
}

Prediction calibrate(std::span<const TimedSample> samples, int order, Calibration how) {
  if (samples.empty()) throw std::invalid_argument("prediction: no samples to calibrate on");
  if (order < 0 || order > 2)
    throw std::invalid_argument("prediction: order " + std::to_string(order) + " is outside 0..2");
  check_samples(samples);
  const std::size_t available = samples.size();
  // Least squares needs one sample more than the order; without it, the polynomial through
  // what there is (which is what least squares would give anyway).
  const bool least_squares =
      how == Calibration::least_squares && available >= static_cast<std::size_t>(order) + 2;
  const std::size_t count = least_squares
                                ? static_cast<std::size_t>(order) + 2
                                : std::min(available, static_cast<std::size_t>(order) + 1);
  const auto used = samples.last(count);
  const TimedSample& newest = used.back();
  Prediction p = constant(newest.value, newest.t, newest.t, newest.t);
  p.order = least_squares ? order : static_cast<int>(count) - 1;
  if (count >= 2) p.scale = (newest.t - used.front().t) / static_cast<double>(count - 1);
  if (p.order > 0) fit_higher_coefficients(used, p);
  return p;
}

OrderChoice choose_order(std::span<const TimedSample> samples, int max_order, Calibration how,
                         double threshold) {
  if (max_order < 0 || max_order > 2)
    throw std::invalid_argument("prediction: max_order " + std::to_string(max_order) +
                                " is outside 0..2");
  if (std::isnan(threshold)) throw std::invalid_argument("prediction: threshold is NaN");
  check_samples(samples);
  OrderChoice choice;
  choice.score.fill(std::numeric_limits<double>::infinity());
  if (samples.size() < 2) return choice;
  const TimedSample& newest = samples.back();
  const auto history = samples.first(samples.size() - 1);
  double magnitude = 0;
  for (const auto& s : samples) magnitude = std::max(magnitude, std::abs(s.value));
  int best = -1;
  bool any_within_threshold = false;
  for (int k = 0; k <= max_order; ++k) {
    // An order the history cannot calibrate at full order is not scored: a lower order's
    // polynomial would be scored under its name.
    if (history.size() < static_cast<std::size_t>(k) + 1) break;
    const double score = std::abs(calibrate(history, k, how).value(newest.t) - newest.value);
    if (std::isnan(score)) continue;  // stays +inf: a NaN never wins
    choice.score[static_cast<std::size_t>(k)] = score;
    if (score <= threshold) any_within_threshold = true;
    if (best < 0) {
      best = k;
      continue;
    }
    const double best_score = choice.score[static_cast<std::size_t>(best)];
    if (score < best_score && !within_rounding(score, best_score, magnitude)) best = k;
  }
  choice.order = best >= 0 && any_within_threshold ? best : 0;
  return choice;
}

Prediction hermite(double t0, double v0, double d0, double t1, double v1, double d1) {
  const double h = t1 - t0;
  if (!(h > 0) || !std::isfinite(h))
    throw std::invalid_argument("prediction: the Hermite interval [t0, t1] is empty or reversed");
  Prediction p = constant(v0, t0, t0, t1);
  p.scale = h;
  p.order = 3;
  p.c[1] = d0 * h;
  p.c[2] = 3 * (v1 - v0) - (2 * d0 + d1) * h;
  p.c[3] = 2 * (v0 - v1) + (d0 + d1) * h;
  return p;
}

Prediction reduce_order(const Prediction& p, int accepted_order) {
  if (accepted_order < 0)
    throw std::invalid_argument("prediction: accepted order " + std::to_string(accepted_order) +
                                " is negative");
  if (p.order <= accepted_order) return p;
  if (!std::isfinite(p.valid_from) || !std::isfinite(p.valid_to) || p.valid_to < p.valid_from)
    throw std::invalid_argument(
        "prediction: reducing the order needs a finite validity interval, not reversed");
  const double start = p.value(p.valid_from);
  const bool empty = !(p.valid_to > p.valid_from);
  if (accepted_order == 0 || empty) return constant(start, p.valid_from, p.valid_from, p.valid_to);
  if (accepted_order >= 2) return quadratic_on_interval(p);
  Prediction q = constant(start, p.valid_from, p.valid_from, p.valid_to);
  q.scale = p.valid_to - p.valid_from;
  q.order = 1;
  q.c[1] = p.value(p.valid_to) - start;
  return q;
}

}  // namespace kausal
