// Prediction of a coupling input (integrator/prediction.hpp): the order chosen a posteriori,
// polynomials reproduced exactly by calibration, the least-squares fit, Hermite blends that
// join C¹ across communication points, and order reduction for a receiver.
#include "integrator/prediction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kausal {
namespace {

using Signal = std::function<double(double)>;

std::vector<TimedSample> sampled(const Signal& f, const std::vector<double>& times) {
  std::vector<TimedSample> samples;
  for (double t : times) samples.push_back({t, f(t)});
  return samples;
}

// Sample times the calibration must not care about: unit spacing from 0, fine and coarse
// spacing near t = 1000 s (where a fit in t itself loses digits), and uneven spacing.
std::vector<std::vector<double>> time_sets() {
  return {
      {0, 1, 2, 3, 4, 5},
      {1000, 1000.01, 1000.02, 1000.03, 1000.04, 1000.05},
      {997.5, 998, 998.5, 999, 999.5, 1000},
      {0, 0.5, 0.6, 2.0, 2.25, 3.0},
      {1000, 1000.3, 1000.4, 1001.2, 1001.25, 1001.9},
  };
}

constexpr Calibration calibrations[] = {Calibration::extrapolation, Calibration::least_squares};

const char* name(Calibration how) {
  return how == Calibration::extrapolation ? "extrapolation" : "least_squares";
}

// A polynomial of `degree` in (t − origin), with coefficients of order one.
Signal polynomial(int degree, double origin) {
  return [=](double t) {
    const double x = t - origin;
    const double c[] = {1.25, -0.75, 0.5};
    double v = 0;
    for (int k = degree; k >= 0; --k) v = v * x + c[k];
    return v;
  };
}

// A fixed pseudo-random sequence in [−1, 1] (no dependence on the library's generators).
std::vector<double> noise(std::size_t n) {
  std::uint64_t state = 0x9E3779B97F4A7C15u;
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    v.push_back(static_cast<double>(state >> 11) / static_cast<double>(1ull << 53) * 2 - 1);
  }
  return v;
}

TEST(PredictionOrder, ChoosesTheDegreeOfAPolynomialSignal) {
  for (Calibration how : calibrations) {
    for (const auto& times : time_sets()) {
      const double origin = times.front();
      for (int degree = 0; degree <= 2; ++degree) {
        const auto samples = sampled(polynomial(degree, origin), times);
        const OrderChoice choice = choose_order(samples, 2, how, 1e-6);
        EXPECT_EQ(choice.order, degree) << name(how) << " t0 = " << origin;
        for (int k = degree; k <= 2; ++k) EXPECT_LT(choice.score[k], 1e-11);
        for (int k = 0; k < degree; ++k) EXPECT_GT(choice.score[k], 1e-6);
      }
    }
  }
}

TEST(PredictionOrder, ChoosesTheDegreeOfAPolynomialInTItself) {
  // Values near 2.5e5 whose second difference is 5e-5: only the scaled coordinate and a tie
  // relative to the data's magnitude keep the choice right.
  const Signal parabola = [](double t) { return 3 + 0.5 * t + 0.25 * t * t; };
  const Signal ramp = [](double t) { return 3 + 0.5 * t; };
  const std::vector<double> times{1000, 1000.01, 1000.02, 1000.03, 1000.04};
  for (Calibration how : calibrations) {
    EXPECT_EQ(choose_order(sampled(ramp, times), 2, how, 1e-3).order, 1) << name(how);
    EXPECT_EQ(choose_order(sampled(parabola, times), 2, how, 1e-3).order, 2) << name(how);
  }
}

TEST(PredictionOrder, RoundingDoesNotPromoteARampToOrderTwo) {
  // A ramp in t near 1000 s with uneven spacing: orders 1 and 2 both score rounding of the
  // values' size, sometimes order 2 exactly 0. The tie relative to the data keeps order 1.
  const auto r = noise(7 * 200);
  for (std::size_t trial = 0; trial < 200; ++trial) {
    const double* x = &r[7 * trial];
    const Signal ramp = [=](double t) { return 2 * x[0] + 2 * x[1] * t; };
    std::vector<double> times{1000};
    for (int i = 1; i < 5; ++i) times.push_back(times.back() + 0.15 + 0.1 * x[1 + i]);
    for (Calibration how : calibrations)
      EXPECT_EQ(choose_order(sampled(ramp, times), 2, how, 1e-6).order, 1)
          << name(how) << " trial " << trial;
  }
}

TEST(PredictionOrder, NoiseAboveTheThresholdChoosesOrderZero) {
  const auto values = noise(8);
  std::vector<TimedSample> samples;
  for (std::size_t i = 0; i < values.size(); ++i)
    samples.push_back({1000 + 0.1 * static_cast<double>(i), values[i]});
  for (Calibration how : calibrations) {
    const OrderChoice choice = choose_order(samples, 2, how, 1e-3);
    for (double score : choice.score) EXPECT_GT(score, 1e-3) << name(how);
    EXPECT_EQ(choice.order, 0) << name(how);
  }
}

TEST(PredictionOrder, AlternatingNoiseOnARampFallsBackToZeroThoughOrderOneScoresBest) {
  std::vector<TimedSample> samples;
  for (int i = 0; i < 6; ++i)
    samples.push_back({static_cast<double>(i), 10.0 * i + (i % 2 ? 1 : -1)});
  const OrderChoice strict = choose_order(samples, 1, Calibration::extrapolation, 0.1);
  EXPECT_LT(strict.score[1], strict.score[0]);  // the ramp is visible through the noise ...
  EXPECT_GT(strict.score[1], 0.1);              // ... but not within the threshold
  EXPECT_EQ(strict.order, 0);
  EXPECT_EQ(choose_order(samples, 1, Calibration::extrapolation, 100).order, 1);
}

TEST(PredictionOrder, OrdersTheSamplesCannotScoreAreSkipped) {
  const auto ramp = sampled(polynomial(1, 0), {0, 1, 2});
  const OrderChoice choice = choose_order(ramp, 2, Calibration::extrapolation, 1e-6);
  EXPECT_EQ(choice.order, 1);
  EXPECT_EQ(choice.score[2], std::numeric_limits<double>::infinity());

  const OrderChoice one =
      choose_order(sampled(polynomial(2, 0), {5}), 2, Calibration::least_squares, 1e-6);
  EXPECT_EQ(one.order, 0);
  for (double score : one.score) EXPECT_EQ(score, std::numeric_limits<double>::infinity());
}

TEST(PredictionCalibrate, ReproducesPolynomialsOfItsOrderAheadOfTheNewestSample) {
  for (Calibration how : calibrations) {
    for (const auto& times : time_sets()) {
      const double origin = times.front();
      for (int order = 0; order <= 2; ++order) {
        for (int degree = 0; degree <= order; ++degree) {
          const Signal f = polynomial(degree, origin);
          const Prediction p = calibrate(sampled(f, times), order, how);
          EXPECT_EQ(p.order, order);
          EXPECT_EQ(p.t_ref, times.back());
          EXPECT_EQ(p.valid_from, times.back());
          EXPECT_EQ(p.valid_to, times.back());
          const double h = times.back() - times[times.size() - 2];
          for (double ahead : {0.0, 0.5, 1.0, 2.0, 3.0}) {
            const double t = times.back() + ahead * h;
            EXPECT_NEAR(p.value(t), f(t), 1e-12 * std::max(1.0, std::abs(f(t))))
                << name(how) << " order " << order << " degree " << degree << " t = " << t;
          }
        }
      }
    }
  }
}

TEST(PredictionCalibrate, ScaleIsTheSpacingOfTheSamplesUsed) {
  const auto samples = sampled(polynomial(2, 0), {0, 1, 1000, 1000.01, 1000.02, 1000.04});
  const Prediction extrapolated = calibrate(samples, 2, Calibration::extrapolation);
  EXPECT_NEAR(extrapolated.scale, 0.015, 1e-12);  // (1000.04 − 1000.01)/2
  const Prediction fitted = calibrate(samples, 2, Calibration::least_squares);
  EXPECT_NEAR(fitted.scale, 0.04 / 3, 1e-12);  // (1000.04 − 1000)/3
  EXPECT_EQ(calibrate(samples, 0, Calibration::extrapolation).scale, 1);
}

TEST(PredictionCalibrate, FewerSamplesGiveTheHighestOrderTheyAllow) {
  const Signal f = polynomial(2, 0);
  EXPECT_EQ(calibrate(sampled(f, {3}), 2, Calibration::extrapolation).order, 0);
  EXPECT_EQ(calibrate(sampled(f, {2, 3}), 2, Calibration::extrapolation).order, 1);
  EXPECT_EQ(calibrate(sampled(f, {2, 3}), 2, Calibration::least_squares).order, 1);
  // Three samples for a least-squares parabola: the interpolating one.
  const auto three = sampled(f, {1, 2, 3});
  const Prediction fitted = calibrate(three, 2, Calibration::least_squares);
  const Prediction through = calibrate(three, 2, Calibration::extrapolation);
  EXPECT_EQ(fitted.order, 2);
  EXPECT_NEAR(fitted.value(4), through.value(4), 1e-12);
}

TEST(PredictionLeastSquares, PassesExactlyThroughTheNewestSample) {
  const auto values = noise(6);
  std::vector<TimedSample> samples;
  for (std::size_t i = 0; i < values.size(); ++i)
    samples.push_back({1000 + 0.3 * static_cast<double>(i) * (1 + 0.1 * i), values[i]});
  for (int order = 0; order <= 2; ++order) {
    const Prediction p = calibrate(samples, order, Calibration::least_squares);
    EXPECT_EQ(p.value(samples.back().t), samples.back().value);
    EXPECT_EQ(p.c[0], samples.back().value);
  }
}

TEST(PredictionLeastSquares, MatchesTheSlopeWorkedByHand) {
  // Through (2, 0); c1 minimises (1 + c1)² + (0 + 2 c1)²: c1 = −1/5 per unit spacing.
  const std::vector<TimedSample> samples{{0, 0}, {1, 1}, {2, 0}};
  const Prediction p = calibrate(samples, 1, Calibration::least_squares);
  EXPECT_NEAR(p.slope(2), -0.2, 1e-15);
  EXPECT_NEAR(p.value(3), -0.2, 1e-15);
}

TEST(PredictionLeastSquares, OnNoisyDataDiffersFromExtrapolationAndFitsTheOthersBetter) {
  const auto values = noise(6);
  std::vector<TimedSample> samples;
  for (std::size_t i = 0; i < values.size(); ++i)
    samples.push_back({1000 + 0.25 * static_cast<double>(i), 0.5 * i + values[i]});
  for (int order = 1; order <= 2; ++order) {
    const Prediction fitted = calibrate(samples, order, Calibration::least_squares);
    const Prediction through = calibrate(samples, order, Calibration::extrapolation);
    const double ahead = samples.back().t + 0.25;
    EXPECT_GT(std::abs(fitted.value(ahead) - through.value(ahead)), 1e-3) << "order " << order;
    // The interpolating polynomial is one candidate of the least-squares problem (it passes
    // through the newest sample too), so it cannot fit the older samples better.
    auto residual = [&](const Prediction& p) {
      double sum = 0;
      for (std::size_t i = samples.size() - static_cast<std::size_t>(order) - 2;
           i + 1 < samples.size(); ++i)
        sum += std::pow(p.value(samples[i].t) - samples[i].value, 2);
      return sum;
    };
    EXPECT_LT(residual(fitted), residual(through)) << "order " << order;
  }
}

TEST(PredictionHermite, MatchesValueAndSlopeAtBothEnds) {
  const std::vector<std::pair<double, double>> intervals{
      {0.0, 1.0}, {1000.0, 1000.25}, {999.9, 1003.7}};
  for (const auto& [t0, t1] : intervals) {
    const double v0 = 1.5, d0 = -0.25, v1 = -2.0, d1 = 4.0;
    const Prediction p = hermite(t0, v0, d0, t1, v1, d1);
    EXPECT_EQ(p.order, 3);
    EXPECT_EQ(p.valid_from, t0);
    EXPECT_EQ(p.valid_to, t1);
    EXPECT_EQ(p.value(t0), v0);
    EXPECT_NEAR(p.value(t1), v1, 1e-12);
    EXPECT_NEAR(p.slope(t0), d0, 1e-9);
    EXPECT_NEAR(p.slope(t1), d1, 1e-9);
  }
}

TEST(PredictionHermite, AChainOfBlendsIsC1AtEveryCommunicationPoint) {
  // The input a consumer uses: up to each communication time the blend from the previous
  // one, then a new blend from it into the prediction calibrated on the samples so far.
  const Signal g = [](double t) { return std::sin(3 * t) + 0.1 * t; };
  std::vector<double> times;
  for (double t = 1000, h = 0.1; times.size() < 14; t += h, h = h == 0.1 ? 0.17 : 0.1)
    times.push_back(t);
  std::vector<TimedSample> samples = sampled(g, {times[0], times[1], times[2]});
  Prediction input = calibrate(samples, 2, Calibration::extrapolation);
  double largest_jump = 0;  // between the input so far and the new prediction: the blend's work
  for (std::size_t k = 2; k + 1 < times.size(); ++k) {
    const double now = times[k];
    const double next = times[k + 1];
    const Prediction target = calibrate(samples, 2, Calibration::least_squares);
    const Prediction blend = hermite(now, input.value(now), input.slope(now), next,
                                     target.value(next), target.slope(next));
    EXPECT_LT(std::abs(blend.value(now) - input.value(now)), 1e-12) << "t = " << now;
    EXPECT_LT(std::abs(blend.slope(now) - input.slope(now)), 1e-9) << "t = " << now;
    EXPECT_NEAR(blend.value(next), target.value(next), 1e-12);
    EXPECT_NEAR(blend.slope(next), target.slope(next), 1e-9);
    largest_jump = std::max(largest_jump, std::abs(target.value(now) - input.value(now)));
    input = blend;
    samples.push_back({next, g(next)});
  }
  EXPECT_GT(largest_jump, 1e-4);
}

TEST(PredictionReduce, OrderTwoToOneIsTheChordOfTheValidityInterval) {
  Prediction p =
      calibrate(sampled(polynomial(2, 1000), {1000, 1000.5, 1001}), 2, Calibration::extrapolation);
  p.valid_to = 1001.75;
  const Prediction affine = reduce_order(p, 1);
  EXPECT_EQ(affine.order, 1);
  EXPECT_EQ(affine.valid_from, p.valid_from);
  EXPECT_EQ(affine.valid_to, p.valid_to);
  EXPECT_EQ(affine.value(p.valid_from), p.value(p.valid_from));
  EXPECT_NEAR(affine.value(p.valid_to), p.value(p.valid_to), 1e-12);
  const double middle = 0.5 * (p.valid_from + p.valid_to);
  EXPECT_NEAR(affine.value(middle), 0.5 * (p.value(p.valid_from) + p.value(p.valid_to)), 1e-12);
  EXPECT_NEAR(affine.slope(middle),
              (p.value(p.valid_to) - p.value(p.valid_from)) / (p.valid_to - p.valid_from), 1e-12);
}

TEST(PredictionReduce, OrderZeroIsTheStartValueAndAnAcceptedOrderIsUnchanged) {
  Prediction p = calibrate(sampled(polynomial(2, 0), {0, 1, 2}), 2, Calibration::extrapolation);
  p.valid_to = 3;
  const Prediction held = reduce_order(p, 0);
  EXPECT_EQ(held.order, 0);
  for (double t : {2.0, 2.5, 3.0}) EXPECT_EQ(held.value(t), p.value(p.valid_from));

  for (int accepted : {2, 3}) {
    const Prediction same = reduce_order(p, accepted);
    EXPECT_EQ(same.order, p.order);
    EXPECT_EQ(same.c, p.c);
    EXPECT_EQ(same.t_ref, p.t_ref);
    EXPECT_EQ(same.scale, p.scale);
    EXPECT_EQ(same.valid_from, p.valid_from);
    EXPECT_EQ(same.valid_to, p.valid_to);
  }
}

TEST(PredictionReduce, AnEmptyIntervalGivesOrderZero) {
  const Prediction p =
      calibrate(sampled(polynomial(2, 0), {0, 1, 2}), 2, Calibration::extrapolation);
  const Prediction affine = reduce_order(p, 1);
  EXPECT_EQ(affine.order, 0);
  EXPECT_EQ(affine.scale, 1);
  EXPECT_EQ(affine.value(2), p.value(2));
}

TEST(PredictionReduce, ACubicToOrderTwoIsTheQuadraticThroughEndsAndMiddle) {
  const Prediction p = hermite(10, 1, 0, 12, 2, 3);
  const Prediction q = reduce_order(p, 2);
  EXPECT_EQ(q.order, 2);
  for (double t : {10.0, 11.0, 12.0}) EXPECT_NEAR(q.value(t), p.value(t), 1e-12);
}

TEST(PredictionInvalid, BadArgumentsThrow) {
  const auto good = sampled(polynomial(1, 0), {0, 1, 2});
  const std::vector<TimedSample> none;
  const std::vector<TimedSample> equal{{1, 0}, {1, 1}};
  const std::vector<TimedSample> descending{{2, 0}, {1, 1}};
  const std::vector<TimedSample> not_a_time{{0, 0}, {std::nan(""), 1}};
  for (Calibration how : calibrations) {
    EXPECT_THROW(calibrate(none, 0, how), std::invalid_argument);
    EXPECT_THROW(calibrate(good, -1, how), std::invalid_argument);
    EXPECT_THROW(calibrate(good, 3, how), std::invalid_argument);
    EXPECT_THROW(calibrate(equal, 1, how), std::invalid_argument);
    EXPECT_THROW(calibrate(descending, 1, how), std::invalid_argument);
    EXPECT_THROW(calibrate(not_a_time, 1, how), std::invalid_argument);
    EXPECT_THROW(choose_order(good, 3, how, 1e-6), std::invalid_argument);
    EXPECT_THROW(choose_order(good, -1, how, 1e-6), std::invalid_argument);
    EXPECT_THROW(choose_order(descending, 1, how, 1e-6), std::invalid_argument);
    EXPECT_THROW(choose_order(good, 1, how, std::nan("")), std::invalid_argument);
  }
  EXPECT_THROW(hermite(1, 0, 0, 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(hermite(2, 0, 0, 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(hermite(0, 0, 0, std::nan(""), 0, 0), std::invalid_argument);

  Prediction p = calibrate(good, 1, Calibration::extrapolation);
  EXPECT_THROW(reduce_order(p, -1), std::invalid_argument);
  p.valid_from = 5;  // after valid_to
  EXPECT_THROW(reduce_order(p, 0), std::invalid_argument);
}

}  // namespace
}  // namespace kausal
