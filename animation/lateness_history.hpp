#pragma once
// How the steps a paced run's view has shown kept their deadlines (docs/realtime.md), in
// bounded memory however long the run: per column of the run's steps (the x axis of the
// horizon bar) the latest commit against the due time, and a sample of the
// lateness of every shown step for its percentiles, kept as a plot's history keeps its
// points (PlotHistory: every step while there is room, then every 2nd, 4th, ...). The
// overruns are the monitor's count, which also sees the states between frames. (No Qt.)
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "animation/plot_history.hpp"

namespace kausal {

// What the lateness strip draws.
struct LatenessView {
  struct Column {
    double latest_s = 0;  // the largest lateness of its steps: the closest call (> 0: late)
  };
  std::vector<std::optional<Column>> columns;  // empty until a shown step falls in it
  std::uint64_t last_step = 0;                 // columns cover steps 0 .. last_step
  std::uint64_t steps = 0;                     // shown steps with a known lateness
  std::uint64_t overruns = 0;                  // the monitor's count at the newest shown frame
  double p50_s = 0, p99_s = 0, max_s = 0;      // over the shown steps (0 while none)
};

class LatenessHistory {
 public:
  static constexpr std::size_t default_columns = 1024;
  static constexpr std::size_t default_max_samples = 16384;

  explicit LatenessHistory(std::uint64_t last_step = 0, std::size_t columns = default_columns,
                           std::size_t max_samples = default_max_samples);

  // A shown frame: its step, its lateness (NaN: not known; the step is left out) and the
  // overruns counted up to it.
  void add(std::uint64_t step, double lateness_s, std::uint64_t overruns);
  LatenessView view() const;

 private:
  std::uint64_t last_step_;
  std::vector<std::optional<LatenessView::Column>> columns_;
  PlotHistory samples_;  // one series, the lateness, at t = step
  std::uint64_t overruns_ = 0;
  double max_s_ = 0;
};

}  // namespace kausal
