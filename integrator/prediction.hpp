#pragma once
// Prediction of a coupling input from the producer's past samples (docs/cosimulation.md): a
// polynomial of order 0, 1 or 2 (3 for a Hermite blend) with the interval it is valid on.
// The same code serves the consumer that extrapolates between samples (integrator/
// input_channels.hpp) and the co-simulation master that ships predictions to the partitions
// (monitor/sync/cosim_master.hpp).
//
// Polynomials are kept in a local, scaled coordinate s = (t − t_ref)/scale, with t_ref the
// newest sample's time and scale the spacing of the samples: coefficients of a fit in t
// itself lose digits at t = 1000 s.
#include <array>
#include <cstdint>
#include <span>

namespace kausal {

// How a polynomial of order n is fitted to a coupling's samples.
enum class Calibration : std::uint8_t {
  extrapolation,  // through the newest n + 1 samples
  least_squares,  // the newest n + 2 samples in the least-squares sense, exactly through the newest
};

struct TimedSample {
  double t = 0;
  double value = 0;
};

struct Prediction {
  std::array<double, 4> c{};  // value = c0 + c1·s + c2·s² + c3·s³
  double t_ref = 0;
  double scale = 1;  // > 0
  int order = 0;     // the highest power with a meaning (0..3)
  // Where it may be evaluated: a master's prediction is valid up to the sender's next
  // communication time (causal synchronisation); a consumer's own extrapolation everywhere.
  double valid_from = 0;
  double valid_to = 0;

  double value(double t) const;
  double slope(double t) const;              // d value / dt
  double derivative(double t, int k) const;  // d^k value / dt^k (k ≥ 1; 0 above order)
  bool valid_at(double t) const { return t >= valid_from && t <= valid_to; }
};

// The polynomial of `order` (0..2) fitted to `samples` (times strictly ascending, oldest
// first) as `how` says, valid on [samples.back().t, samples.back().t] until the caller sets
// the interval. Fewer samples than the order needs: the highest order they allow (one sample:
// order 0). std::invalid_argument for no samples, an order outside 0..2 or times not ascending.
Prediction calibrate(std::span<const TimedSample> samples, int order, Calibration how);

struct OrderChoice {
  int order = 0;
  // Per order 0..2: |p(t_newest) − y_newest| of the polynomial calibrated without the
  // newest sample; +inf for an order the samples cannot score.
  std::array<double, 3> score{};
};

// The order chosen a posteriori: each order up to max_order is calibrated without the newest
// sample and scored against it; the best score wins (the lower order on a tie within
// 1e-12 relative), and order 0 when every score exceeds `threshold`. With too few samples to
// score an order, that order is skipped; with too few to score any, order 0.
OrderChoice choose_order(std::span<const TimedSample> samples, int max_order, Calibration how,
                         double threshold);

// The cubic on [t0, t1] with value v0 and slope d0 at t0, v1 and d1 at t1 (valid on [t0, t1]):
// the C¹ blend from the input used so far into a new prediction.
Prediction hermite(double t0, double v0, double d0, double t1, double v1, double d1);

// What a receiver accepting polynomials up to `accepted_order` gets instead of p, on p's
// validity interval: p itself if its order is accepted; order 1: the affine function through
// p's values at valid_from and valid_to; order 0: p's value at valid_from.
Prediction reduce_order(const Prediction& p, int accepted_order);

}  // namespace kausal
