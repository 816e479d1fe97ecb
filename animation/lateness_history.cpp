#include "animation/lateness_history.hpp"

#include <algorithm>
#include <cmath>

namespace kausal {
namespace {

double quantile(std::vector<float> v, double q) {
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
      max_samples_(std::max<std::size_t>(max_samples & ~std::size_t{1}, 2)) {
}  // even: halving keeps the stride

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
  max_s_ = seen_ == 0 ? lateness_s : std::max(max_s_, lateness_s);
  if (seen_++ % stride_ != 0) return;
  samples_.push_back(static_cast<float>(lateness_s));
  if (samples_.size() < max_samples_) return;
  // Full: keep every second sample from now on, and of those kept so far.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < samples_.size(); i += 2) samples_[kept++] = samples_[i];
  samples_.resize(kept);
  stride_ *= 2;
}

LatenessView LatenessHistory::view() const {
  LatenessView v;
  v.columns = columns_;
  v.last_step = last_step_;
  v.steps = seen_;
  v.overruns = overruns_;
  v.p50_s = quantile(samples_, 0.5);
  v.p99_s = quantile(samples_, 0.99);
  v.max_s = max_s_;
  return v;
}

}  // namespace kausal
