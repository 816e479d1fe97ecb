#pragma once
// The co-simulation master's error-controlled macro step (docs/cosimulation.md): the next
// communication step from how far the predictions of the last one missed the outputs.
#include <cstdint>
#include <span>

namespace kausal {

// How a prediction error e of an output with value y is measured against the tolerance.
enum class ErrorNorm : std::uint8_t {
  absolute,  // e / atol
  relative,  // e / (rtol·|y|)  (atol where y = 0)
  mixed,     // e / (atol + rtol·|y|)
};

// How the per-output step factors are combined into one.
enum class ErrorAggregation : std::uint8_t { min, mean };

struct MacroStepControl {
  double rtol = 1e-3;
  double atol = 1e-6;
  double safety = 0.9;
  double exponent = 0;      // 0: 1/(n + 1), n the prediction order
  double max_growth = 2.0;  // the factor never exceeds this
  double max_shrink = 0.2;  // ... and never falls below this
  ErrorNorm norm = ErrorNorm::mixed;
  ErrorAggregation aggregation = ErrorAggregation::min;
};

// The error of one output, normalised: 1 means at the tolerance. Never NaN (0 error: 0).
double normalised_error(double error, double value, const MacroStepControl& c);

// The factor for the next macro step: per output safety·(1/r)^exponent, clamped to
// [max_shrink, max_growth] (r = 0: max_growth), aggregated as c.aggregation says. errors and
// values have one entry per output (no outputs: max_growth). `order` is the prediction order
// the exponent defaults from. std::invalid_argument for sizes that differ or settings out of
// range (safety in (0, 1], 0 < max_shrink ≤ 1 ≤ max_growth, tolerances > 0, exponent ≥ 0).
double macro_step_factor(std::span<const double> errors, std::span<const double> values, int order,
                         const MacroStepControl& c);

// Checks settings as macro_step_factor does; std::invalid_argument naming the field.
void check(const MacroStepControl& c);

}  // namespace kausal
