#pragma once
// A utilisation strip: what one component was doing in each pixel column (or bin) of the
// interval [t0, t1] (seconds since the run started).
#include <cstddef>
#include <vector>

#include "animation/view_types.hpp"

namespace kausal {

enum class ColumnState { waiting, busy, rollback };

struct Utilisation {
  double busy = 0;  // fractions of the bin; waiting = 1 - busy - rollback
  double rollback = 0;
  double waiting = 1;
};

class Timeline {
 public:
  // InputError unless t0 < t1 are finite and columns > 0.
  Timeline(double t0, double t1, std::size_t columns);

  // Column c covers [t0 + c·w, t0 + (c+1)·w), w = (t1 - t0) / columns. A column touched by
  // any rollback span is rollback, else one touched by any busy span is busy, else waiting:
  // rare short rollbacks must stay visible even when a column holds mostly busy time, and
  // any work at all shows, however narrow the strip. Spans may come in any order.
  std::vector<ColumnState> classify(const std::vector<TimelineSpan>& spans) const;

  // The share of each of `bins` equal bins of [t0, t1] spent busy, rolling back and
  // waiting. Overlapping spans are not double-counted beyond the bin (clamped to 1).
  std::vector<Utilisation> utilisation(const std::vector<TimelineSpan>& spans,
                                       std::size_t bins) const;

  // The column that time t falls into, clamped to the strip.
  std::size_t column_of(double t) const;
  double t0() const { return t0_; }
  double t1() const { return t1_; }
  std::size_t columns() const { return columns_; }

 private:
  double t0_, t1_;
  std::size_t columns_;
};

}  // namespace kausal
