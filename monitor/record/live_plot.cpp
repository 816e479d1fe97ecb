#include "monitor/record/live_plot.hpp"

#include <algorithm>

namespace kausal {

LivePlot live_plot(const PartitionedScenario& s, const PartitionedPlan& plan,
                   std::size_t max_per_plot) {
  LivePlot out;
  std::size_t column = 0;  // the committed values: every partition's states, in order
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    out.plots.push_back(s.partitions[p].name);
    const auto& names = plan.state_names.at(p);
    for (std::size_t k = 0; k < std::min(names.size(), max_per_plot); ++k)
      out.series.push_back({names[k], p, column + k});
    column += names.size();
  }
  return out;
}

}  // namespace kausal
