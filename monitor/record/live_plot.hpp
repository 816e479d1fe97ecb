#pragma once
// What the live view plots of a partitioned model (docs/model.md §4, `kausal run --animate`):
// one plot per partition, titled with its name, showing the first `max_per_plot` of its
// recorded states ("member.state", the columns of trajectory.csv). No omniORB.
#include <cstddef>
#include <string>
#include <vector>

#include "monitor/sync/partitioned_plan.hpp"

namespace kausal {

struct LivePlot {
  static constexpr std::size_t default_max_per_plot = 8;

  struct Series {
    std::string name;        // "tank1.level"
    std::size_t plot = 0;    // its partition
    std::size_t column = 0;  // index into the committed values (RunObserver::committed)
  };
  std::vector<std::string> plots;  // partition names
  std::vector<Series> series;
};

LivePlot live_plot(const PartitionedScenario& s, const PartitionedPlan& plan,
                   std::size_t max_per_plot = LivePlot::default_max_per_plot);

}  // namespace kausal
