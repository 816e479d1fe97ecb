#include "monitor/core/macro_step_control.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kausal {
namespace {

// Each condition says what is allowed, so that a NaN setting fails it too.
void require(bool ok, const char* message) {
  if (!ok) throw std::invalid_argument(std::string("macro step control: ") + message);
}

// normalised_error once the settings are known to be good.
double normalised(double error, double value, const MacroStepControl& c) {
  if (std::isnan(error)) throw std::invalid_argument("prediction error is not a number");
  if (std::isnan(value)) throw std::invalid_argument("output value is not a number");
  const double e = std::abs(error);
  if (e == 0) return 0;  // also where the tolerance below is infinite
  const double y = std::abs(value);
  double tolerance = c.atol;
  switch (c.norm) {
    case ErrorNorm::absolute:
      break;
    case ErrorNorm::relative:
      tolerance = y == 0 ? c.atol : c.rtol * y;
      break;
    case ErrorNorm::mixed:
      tolerance = c.atol + c.rtol * y;
      break;
  }
  const double r = e / tolerance;
  // Only an infinite error against an infinite value's tolerance gets here as NaN.
  if (std::isnan(r)) throw std::invalid_argument("prediction error and output are both infinite");
  return r;
}

double factor(double r, double exponent, const MacroStepControl& c) {
  if (r == 0) return c.max_growth;
  // 1/r overflows to inf for a denormal r and pow(0, e > 0) is 0: the clamp catches both.
  return std::clamp(c.safety * std::pow(1 / r, exponent), c.max_shrink, c.max_growth);
}

}  // namespace

void check(const MacroStepControl& c) {
  require(c.rtol > 0 && std::isfinite(c.rtol), "rtol must be > 0 and finite");
  require(c.atol > 0 && std::isfinite(c.atol), "atol must be > 0 and finite");
  require(c.safety > 0 && c.safety <= 1, "safety must be in (0, 1]");
  require(c.exponent >= 0 && std::isfinite(c.exponent), "exponent must be >= 0 and finite");
  require(c.max_shrink > 0 && c.max_shrink <= 1, "max_shrink must be in (0, 1]");
  require(c.max_growth >= 1 && std::isfinite(c.max_growth), "max_growth must be >= 1 and finite");
  require(
      c.norm == ErrorNorm::absolute || c.norm == ErrorNorm::relative || c.norm == ErrorNorm::mixed,
      "norm is not absolute, relative or mixed");
  require(c.aggregation == ErrorAggregation::min || c.aggregation == ErrorAggregation::mean,
          "aggregation is not min or mean");
}

double normalised_error(double error, double value, const MacroStepControl& c) {
  check(c);
  return normalised(error, value, c);
}

double macro_step_factor(std::span<const double> errors, std::span<const double> values, int order,
                         const MacroStepControl& c) {
  check(c);
  if (errors.size() != values.size())
    throw std::invalid_argument("macro step control: " + std::to_string(errors.size()) +
                                " errors for " + std::to_string(values.size()) + " outputs");
  if (order < 0)
    throw std::invalid_argument("macro step control: prediction order " + std::to_string(order) +
                                " is negative");
  if (errors.empty()) return c.max_growth;
  const double exponent = c.exponent > 0 ? c.exponent : 1.0 / (order + 1);
  double smallest = c.max_growth;
  double largest = c.max_shrink;
  double sum = 0;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    const double f = factor(normalised(errors[i], values[i], c), exponent, c);
    smallest = std::min(smallest, f);
    largest = std::max(largest, f);
    sum += f;
  }
  if (c.aggregation == ErrorAggregation::min) return smallest;
  // The sum's rounding must not put the mean outside the factors it averages (below the min
  // aggregation, above max_growth).
  return std::clamp(sum / static_cast<double>(errors.size()), smallest, largest);
}

}  // namespace kausal
