#include "monitor/scenario/scenario_limits.hpp"

#include <cmath>
#include <sstream>

#include "common/errors.hpp"
#include "common/number_with_unit.hpp"

namespace kausal {
namespace {

// The longest number trajectory.csv holds (shortest round-trip form, -1.2345678901234567e-300)
// and its separator.
constexpr double kBytesPerValue = 25;

}  // namespace

std::optional<std::uint64_t> whole_multiple(double value, double unit) {
  const double k = value / unit;
  const double rounded = std::round(k);
  // Written so that nan fails every test: no cast below sees a value out of range.
  if (!(rounded >= 1 && rounded <= static_cast<double>(kMaxSteps))) return std::nullopt;
  if (!(std::abs(k - rounded) <= 1e-9 * rounded)) return std::nullopt;
  return static_cast<std::uint64_t>(rounded);
}

std::optional<std::uint64_t> steps_covering(double duration, double h) {
  const double k = std::max(1.0, std::ceil(duration / h - 1e-9));
  if (!(k <= static_cast<double>(kMaxSteps))) return std::nullopt;
  return static_cast<std::uint64_t>(k);
}

std::string output_over_limit(double rows, double columns, double other_bytes,
                              const ScenarioLimits& limits) {
  const double bytes = rows * columns * kBytesPerValue + other_bytes;
  if (bytes <= static_cast<double>(limits.max_output_bytes)) return "";
  std::ostringstream m;
  m << "gives " << format_number(rows) << " rows of " << format_number(columns)
    << " numbers: the run would write about " << format_size(bytes) << ", more than the limit of "
    << format_size(static_cast<double>(limits.max_output_bytes))
    << " (a coarser output interval, a shorter run, or --max-output SIZE)";
  return m.str();
}

std::uint64_t parse_size(const std::string& text, const std::string& what) {
  const auto [value, unit] = number_with_unit(text).value_or(std::make_pair(0.0, std::string()));
  double scale = 0;
  if (unit.empty())
    scale = 1;
  else if (unit == "K")
    scale = 0x1p10;
  else if (unit == "M")
    scale = 0x1p20;
  else if (unit == "G")
    scale = 0x1p30;
  else if (unit == "T")
    scale = 0x1p40;
  const double bytes = value * scale;
  if (scale == 0 || !(bytes >= 1 && bytes <= 0x1p60))
    throw InputError(what + ": '" + text +
                     "' is not a size (bytes, or a number with K, M, G or T: 500M, 20G; at "
                     "least 1 byte, at most 1024 P)");
  return static_cast<std::uint64_t>(bytes);
}

std::string format_size(double bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  std::ostringstream s;
  s.precision(u == 0 ? 0 : 1);
  s << std::fixed << bytes;
  std::string out = s.str();
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  return out + " " + units[u];
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace kausal
