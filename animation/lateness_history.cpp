#include "animation/lateness_history.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace kausal {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

LatenessHistory::LatenessHistory(std::uint64_t last_step, std::size_t columns,
                                 std::size_t max_samples)
    : last_step_(last_step),
      columns_(std::max<std::size_t>(columns, 1)),
      samples_(1, max_samples) {}

void LatenessHistory::add(std::uint64_t step, double lateness_s, std::uint64_t overruns) {
  overruns_ = std::max(overruns_, overruns);
  if (!std::isfinite(lateness_s)) return;
  const std::size_t n = columns_.size();
  const auto column = static_cast<std::size_t>(
      std::min<long double>(n - 1, static_cast<long double>(std::min(step, last_step_)) * n /
                                       std::max<std::uint64_t>(last_step_, 1)));
  auto& c = columns_[column];
  if (!c) c = LatenessView::Column{lateness_s};
  c->latest_s = std::max(c->latest_s, lateness_s);
  max_s_ = samples_.frames() == 0 ? lateness_s : std::max(max_s_, lateness_s);
  samples_.add(static_cast<double>(step), std::span<const double>(&lateness_s, 1));
}

LatenessView LatenessHistory::view() const {
  LatenessView v;
  v.columns = columns_;
  v.last_step = last_step_;
  v.steps = samples_.frames();
  v.overruns = overruns_;
  const PlotPoints sample = samples_.snapshot();
  v.p50_s = quantile(sample.values[0], 0.5);
  v.p99_s = quantile(sample.values[0], 0.99);
  v.max_s = max_s_;
  return v;
}

}  // namespace kausal
