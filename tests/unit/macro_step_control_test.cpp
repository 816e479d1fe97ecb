// The co-simulation master's macro step control (monitor/core/macro_step_control.hpp): the
// factor at the tolerance, its clamps, the aggregation over outputs and the settings check.
#include "monitor/core/macro_step_control.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kausal {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

double factor(double error, double value, int order, const MacroStepControl& c) {
  const std::vector<double> errors{error};
  const std::vector<double> values{value};
  return macro_step_factor(errors, values, order, c);
}

TEST(MacroStepControl, AnErrorAtTheRelativeToleranceGivesTheSafetyFactor) {
  MacroStepControl c;
  c.norm = ErrorNorm::relative;
  c.rtol = 1e-3;
  c.safety = 0.8;
  for (int order = 0; order <= 2; ++order) {
    EXPECT_EQ(normalised_error(c.rtol, 1.0, c), 1.0);
    EXPECT_DOUBLE_EQ(factor(c.rtol, 1.0, order, c), c.safety) << "order " << order;
    EXPECT_DOUBLE_EQ(factor(-2 * c.rtol, -2.0, order, c), c.safety) << "order " << order;
  }
}

TEST(MacroStepControl, TheNormsMeasureAgainstTheirTolerance) {
  MacroStepControl c;
  c.rtol = 1e-2;
  c.atol = 1e-4;
  c.norm = ErrorNorm::absolute;
  EXPECT_DOUBLE_EQ(normalised_error(1e-3, 50, c), 10);
  c.norm = ErrorNorm::relative;
  EXPECT_DOUBLE_EQ(normalised_error(1e-3, 50, c), 2e-3);
  EXPECT_DOUBLE_EQ(normalised_error(1e-3, 0, c), 10);  // y = 0: against atol
  c.norm = ErrorNorm::mixed;
  EXPECT_DOUBLE_EQ(normalised_error(1e-3, 0.09, c), 1);
}

TEST(MacroStepControl, TheFactorIsClamped) {
  MacroStepControl c;
  for (ErrorNorm norm : {ErrorNorm::absolute, ErrorNorm::relative, ErrorNorm::mixed}) {
    c.norm = norm;
    EXPECT_EQ(factor(1e6, 1.0, 1, c), c.max_shrink);
    EXPECT_EQ(factor(inf, 1.0, 1, c), c.max_shrink);
    EXPECT_EQ(factor(1e-30, 1.0, 1, c), c.max_growth);
    EXPECT_EQ(factor(1e-316, 1.0, 0, c), c.max_growth);  // 1/r may overflow
  }
}

TEST(MacroStepControl, ZeroErrorGivesMaxGrowthNotInfinity) {
  MacroStepControl c;
  for (ErrorAggregation aggregation : {ErrorAggregation::min, ErrorAggregation::mean}) {
    c.aggregation = aggregation;
    for (ErrorNorm norm : {ErrorNorm::absolute, ErrorNorm::relative, ErrorNorm::mixed}) {
      c.norm = norm;
      for (double value : {0.0, 1.0, -1e300, inf}) {
        EXPECT_EQ(normalised_error(0, value, c), 0);
        for (int order = 0; order <= 2; ++order) {
          const double f = factor(0, value, order, c);
          EXPECT_TRUE(std::isfinite(f));
          EXPECT_EQ(f, c.max_growth);
        }
      }
    }
  }
  EXPECT_EQ(macro_step_factor({}, {}, 1, c), c.max_growth);  // no outputs
}

TEST(MacroStepControl, MinAggregationNeverExceedsTheMean) {
  std::mt19937_64 random(20240611);
  std::uniform_real_distribution<double> exponent(-12, 4);
  std::uniform_real_distribution<double> value(-10, 10);
  std::uniform_int_distribution<int> size(1, 8);
  std::uniform_int_distribution<int> order(0, 2);
  MacroStepControl by_min;
  by_min.aggregation = ErrorAggregation::min;
  MacroStepControl by_mean = by_min;
  by_mean.aggregation = ErrorAggregation::mean;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> errors;
    std::vector<double> values;
    for (int i = size(random); i > 0; --i) {
      errors.push_back(trial % 7 == 0 && i == 1 ? 0.0 : std::pow(10.0, exponent(random)));
      values.push_back(value(random));
    }
    const int n = order(random);
    const double smallest = macro_step_factor(errors, values, n, by_min);
    const double mean = macro_step_factor(errors, values, n, by_mean);
    EXPECT_LE(smallest, mean) << "trial " << trial;
    EXPECT_GE(smallest, by_min.max_shrink);
    EXPECT_LE(mean, by_min.max_growth);
  }
}

TEST(MacroStepControl, TheMeanAveragesTheClampedFactors) {
  MacroStepControl c;
  c.aggregation = ErrorAggregation::mean;
  c.norm = ErrorNorm::absolute;
  const std::vector<double> errors{0, 1e9 * c.atol};
  const std::vector<double> values{1, 1};
  EXPECT_DOUBLE_EQ(macro_step_factor(errors, values, 0, c), 0.5 * (c.max_growth + c.max_shrink));
}

TEST(MacroStepControl, TheDefaultExponentIsOneOverOrderPlusOne) {
  MacroStepControl c;
  c.norm = ErrorNorm::absolute;
  c.safety = 1;
  c.max_growth = 100;
  const double error = c.atol / 64;  // r = 1/64
  EXPECT_DOUBLE_EQ(factor(error, 1, 0, c), 64);
  EXPECT_DOUBLE_EQ(factor(error, 1, 1, c), 8);
  EXPECT_DOUBLE_EQ(factor(error, 1, 2, c), 4);
  c.exponent = 0.5;  // set: the order no longer matters
  for (int order = 0; order <= 2; ++order) EXPECT_DOUBLE_EQ(factor(error, 1, order, c), 8);
}

// Throws std::invalid_argument with `field` in its message.
void expect_rejected(const std::function<void(MacroStepControl&)>& spoil,
                     const std::string& field) {
  MacroStepControl c;
  spoil(c);
  try {
    check(c);
    ADD_FAILURE() << field << ": accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
  EXPECT_THROW(factor(1e-3, 1, 1, c), std::invalid_argument) << field;
  EXPECT_THROW(normalised_error(1e-3, 1, c), std::invalid_argument) << field;
}

TEST(MacroStepControl, BadSettingsThrowNamingTheField) {
  EXPECT_NO_THROW(check(MacroStepControl{}));
  const double nan = std::nan("");
  for (double bad : {0.0, -1e-3, nan, inf}) {
    expect_rejected([=](MacroStepControl& c) { c.rtol = bad; }, "rtol");
    expect_rejected([=](MacroStepControl& c) { c.atol = bad; }, "atol");
  }
  for (double bad : {0.0, -0.5, 1.01, nan})
    expect_rejected([=](MacroStepControl& c) { c.safety = bad; }, "safety must be in (0, 1]");
  for (double bad : {-0.1, nan, inf})
    expect_rejected([=](MacroStepControl& c) { c.exponent = bad; }, "exponent");
  for (double bad : {0.0, -0.2, 1.5, nan})
    expect_rejected([=](MacroStepControl& c) { c.max_shrink = bad; }, "max_shrink");
  for (double bad : {0.99, nan, inf})
    expect_rejected([=](MacroStepControl& c) { c.max_growth = bad; }, "max_growth");
  expect_rejected([](MacroStepControl& c) { c.norm = static_cast<ErrorNorm>(7); }, "norm");
  expect_rejected([](MacroStepControl& c) { c.aggregation = static_cast<ErrorAggregation>(7); },
                  "aggregation");
  // The bounds themselves are allowed.
  MacroStepControl edges;
  edges.safety = 1;
  edges.max_shrink = 1;
  edges.max_growth = 1;
  EXPECT_NO_THROW(check(edges));
}

TEST(MacroStepControl, BadInputsThrow) {
  const MacroStepControl c;
  const std::vector<double> two{1e-3, 1e-3};
  const std::vector<double> one{1};
  EXPECT_THROW(macro_step_factor(two, one, 1, c), std::invalid_argument);
  EXPECT_THROW(factor(1e-3, 1, -1, c), std::invalid_argument);
  try {
    factor(std::nan(""), 1, 1, c);
    ADD_FAILURE() << "a NaN error was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "prediction error is not a number");
  }
  EXPECT_THROW(normalised_error(std::nan(""), 1, c), std::invalid_argument);
  EXPECT_THROW(normalised_error(1, std::nan(""), c), std::invalid_argument);
}

}  // namespace
}  // namespace kausal
