#pragma once
// A utilisation strip: what share of each pixel column (or bin) of the interval [t0, t1]
// (seconds since the run started) one component spent busy, rolling back and waiting.
#include <cstddef>
#include <vector>

#include "animation/view_types.hpp"

namespace kausal {

struct Utilisation {
  double busy = 0;  // fractions of the bin; waiting = 1 - busy - rollback
  double rollback = 0;
  double waiting = 1;
};

class Timeline {
 public:
  // InputError unless t0 < t1 are finite and columns > 0.
  Timeline(double t0, double t1, std::size_t columns);

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
