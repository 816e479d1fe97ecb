#include "system/input_table.hpp"

#include <algorithm>
#include <cmath>

namespace kausal {

double InputTable::operator()(double t) const {
  // The first row after t: the one before it is the last row at or before t (the later of
  // two rows at the same time).
  const auto after = std::upper_bound(times.begin(), times.end(), t);
  if (after == times.begin()) return values.front();
  const auto k = static_cast<std::size_t>(after - times.begin()) - 1;
  if (after == times.end() || interpolation == Interpolation::hold) return values[k];
  // times[k] <= t < times[k + 1]: the denominator is positive.
  return values[k] + (values[k + 1] - values[k]) * ((t - times[k]) / (times[k + 1] - times[k]));
}

double InputTable::slope(double t) const {
  const auto after = std::upper_bound(times.begin(), times.end(), t);
  if (interpolation == Interpolation::hold || after == times.begin() || after == times.end())
    return 0;
  const auto k = static_cast<std::size_t>(after - times.begin()) - 1;
  return (values[k + 1] - values[k]) / (times[k + 1] - times[k]);
}

std::string InputTable::problem(const std::string& where) const {
  if (times.empty()) return where + ": no rows";
  if (times.size() != values.size())
    return where + ": " + std::to_string(times.size()) + " times and " +
           std::to_string(values.size()) + " values";
  if (times.size() > max_input_table_rows)
    return where + ": " + std::to_string(times.size()) + " rows, more than " +
           std::to_string(max_input_table_rows);
  for (std::size_t k = 0; k < times.size(); ++k) {
    const std::string row = where + ": row " + std::to_string(k + 1);
    if (!std::isfinite(times[k]) || !std::isfinite(values[k])) return row + " is not finite";
    if (k > 0 && times[k] < times[k - 1]) return row + ": its time goes back";
  }
  return {};
}

}  // namespace kausal
