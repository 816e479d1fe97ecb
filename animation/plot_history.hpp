#pragma once
// The points a plot view has shown so far, in bounded memory: at most `max_points` per
// series however long the run. While there is room every frame is kept; when the history is
// full every second point is dropped and from then on only every 2nd frame is kept (then
// every 4th, 8th, ...), so the points stay evenly spaced over the frames and the first one
// stays. A run of any length costs at most max_points × (series + 1) doubles. (No Qt.)
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "animation/view_types.hpp"

namespace kausal {

class PlotHistory {
 public:
  static constexpr std::size_t default_max_points = 2048;

  // max_points is at least 2.
  explicit PlotHistory(std::size_t series = 0, std::size_t max_points = default_max_points);

  // One frame: its time (not before the previous one) and one value per series. The caller
  // has checked both (Playback does); a frame of another size is ignored.
  void add(double t, std::span<const double> values);

  std::size_t series() const { return values_.size(); }
  std::size_t points() const { return t_.size(); }
  std::size_t max_points() const { return max_points_; }
  // Frames added so far, and every how many of them one is kept now (a power of two).
  std::uint64_t frames() const { return frames_; }
  std::uint64_t stride() const { return stride_; }

  // The kept points; with `newest` (a frame not in the history yet, e.g. the one shown)
  // appended when it is later than the last kept point.
  PlotPoints snapshot(const double* newest_t = nullptr,
                      std::span<const double> newest_values = {}) const;

 private:
  void halve();

  std::size_t max_points_;
  std::uint64_t frames_ = 0;
  std::uint64_t stride_ = 1;
  std::vector<double> t_;
  std::vector<std::vector<double>> values_;  // per series
};

// The y range plot `plot` of `spec` shows: every point of its series, padded by 5 % on each
// side; a flat series gets ±1 (±10 % of its value if larger) around it; no points: [-1, 1].
struct ValueRange {
  double lo = -1;
  double hi = 1;
};
ValueRange plot_value_range(const PlotSpec& spec, const PlotPoints& points, std::size_t plot);
// The same for one series (index into spec.series and points.values).
ValueRange series_value_range(const PlotPoints& points, std::size_t series);
// Its least and greatest finite values, unpadded (none: lo > hi).
ValueRange series_extent(const PlotPoints& points, std::size_t series);
// Whether plot `plot` draws each series against its own range (normalised) rather than one
// scale for all: when the widest of its series' ranges is more than `max_ratio` times the
// narrowest (a level near 0.2 beside a pressure near 100 would be a flat line on one scale).
inline constexpr double max_range_ratio = 50;
bool plot_is_normalised(const PlotSpec& spec, const PlotPoints& points, std::size_t plot);

}  // namespace kausal
