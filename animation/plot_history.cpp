#include "animation/plot_history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kausal {

PlotHistory::PlotHistory(std::size_t series, std::size_t max_points)
    : max_points_(std::max<std::size_t>(max_points, 2)), values_(series) {}

void PlotHistory::add(double t, std::span<const double> values) {
  if (values.size() != values_.size()) return;
  const std::uint64_t index = frames_++;
  if (index % stride_ != 0) return;
  if (t_.size() == max_points_) {
    halve();
    if (index % stride_ != 0) return;
  }
  t_.push_back(t);
  for (std::size_t i = 0; i < values.size(); ++i) values_[i].push_back(values[i]);
}

// Keeps the points at even positions: frame indices that are multiples of twice the stride.
void PlotHistory::halve() {
  auto keep_even = [](std::vector<double>& v) {
    std::size_t out = 0;
    for (std::size_t k = 0; k < v.size(); k += 2) v[out++] = v[k];
    v.resize(out);
  };
  keep_even(t_);
  for (auto& v : values_) keep_even(v);
  stride_ *= 2;
}

PlotPoints PlotHistory::snapshot(const double* newest_t,
                                 std::span<const double> newest_values) const {
  PlotPoints p{t_, values_};
  if (newest_t && newest_values.size() == values_.size() && (t_.empty() || *newest_t > t_.back())) {
    p.t.push_back(*newest_t);
    for (std::size_t i = 0; i < newest_values.size(); ++i) p.values[i].push_back(newest_values[i]);
  }
  return p;
}

namespace {

// Extends lo..hi by the finite values.
void extend(double& lo, double& hi, const std::vector<double>& values) {
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

ValueRange padded(double lo, double hi) {
  if (lo > hi) return {};
  if (!std::isfinite(hi - lo)) return {lo, hi};  // no room to pad
  if (hi - lo <= 1e-12 * std::max(std::abs(lo), std::abs(hi))) {
    const double pad = std::max(1.0, 0.1 * std::abs(lo));
    return {lo - pad, hi + pad};
  }
  const double pad = 0.05 * (hi - lo);
  return {lo - pad, hi + pad};
}

constexpr double none = std::numeric_limits<double>::infinity();

}  // namespace

ValueRange plot_value_range(const PlotSpec& spec, const PlotPoints& points, std::size_t plot) {
  double lo = none, hi = -none;
  for (std::size_t i = 0; i < spec.series.size() && i < points.values.size(); ++i)
    if (spec.series[i].plot == plot) extend(lo, hi, points.values[i]);
  return padded(lo, hi);
}

ValueRange series_extent(const PlotPoints& points, std::size_t series) {
  double lo = none, hi = -none;
  if (series < points.values.size()) extend(lo, hi, points.values[series]);
  return {lo, hi};
}

ValueRange series_value_range(const PlotPoints& points, std::size_t series) {
  const ValueRange e = series_extent(points, series);
  return padded(e.lo, e.hi);
}

bool plot_is_normalised(const PlotSpec& spec, const PlotPoints& points, std::size_t plot) {
  double narrowest = none, widest = 0;
  std::size_t series = 0;
  for (std::size_t i = 0; i < spec.series.size() && i < points.values.size(); ++i) {
    if (spec.series[i].plot != plot || points.values[i].empty()) continue;
    const ValueRange r = series_value_range(points, i);
    const double width = r.hi - r.lo;
    if (!std::isfinite(width) || !(width > 0)) continue;
    narrowest = std::min(narrowest, width);
    widest = std::max(widest, width);
    ++series;
  }
  return series > 1 && widest > max_range_ratio * narrowest;
}

}  // namespace kausal
