#include "animation/timeline.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

namespace kausal {
Timeline::Timeline(double t0, double t1, std::size_t columns)
    : t0_(t0), t1_(t1), columns_(columns) {
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t0 < t1))
    throw InputError("timeline: the interval must be finite and not empty");
  if (columns == 0) throw InputError("timeline: no columns");
}

std::vector<Utilisation> Timeline::utilisation(const std::vector<TimelineSpan>& spans,
                                               std::size_t bins) const {
  if (bins == 0) throw InputError("timeline: no bins");
  std::vector<Utilisation> out(bins, Utilisation{0, 0, 1});
  const double width = (t1_ - t0_) / static_cast<double>(bins);
  for (const auto& s : spans) {
    const double begin = std::max(s.begin_s, t0_), end = std::min(s.end_s, t1_);
    if (!(end > begin)) continue;
    const auto first = std::min(bins - 1, static_cast<std::size_t>((begin - t0_) / width));
    for (std::size_t b = first; b < bins; ++b) {
      const double lo = t0_ + static_cast<double>(b) * width;
      if (lo >= end) break;
      const double share = (std::min(end, lo + width) - std::max(begin, lo)) / width;
      (s.kind == ActivityKind::rollback ? out[b].rollback : out[b].busy) += share;
    }
  }
  for (auto& u : out) {
    u.busy = std::min(u.busy, 1.0);
    u.rollback = std::min(u.rollback, 1.0 - u.busy);
    u.waiting = 1.0 - u.busy - u.rollback;
  }
  return out;
}

std::size_t Timeline::column_of(double t) const {
  const double c = std::floor((t - t0_) / (t1_ - t0_) * static_cast<double>(columns_));
  return static_cast<std::size_t>(std::clamp(c, 0.0, static_cast<double>(columns_ - 1)));
}

}  // namespace kausal
