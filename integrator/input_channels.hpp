#pragma once
// The inputs a partition receives from other partitions (docs/model.md §4), without the
// stepping: one channel of samples per input.
//
// Time is counted in ticks (the scenario's smallest step); the partition steps every
// `ticks_per_step` ticks. Sample j of a channel is the producer's output at tick
// j·period (period = the larger of the two steps, so multirate couplings sample at the
// slower rate). Over step n the input is the polynomial of order `hold` through the newest
// samples at or before the step's start (j, j−1, j−2), evaluated at each stage time (order 0
// holds, 1 and 2 extrapolate; fewer samples at the start lower the order).
//
// Conservative: step n may be taken only when every sample it needs has arrived.
// Optimistic (speculate): a missing sample is predicted from the arrived ones with the same
// polynomial. When the sample arrives it is compared with the prediction; if they differ by
// more than `tolerance` (with tolerance 0: by any bit) the partition must roll back to the
// first step that used the prediction.
//
// A channel fed by the co-simulation master (monitor/sync/cosim_master.hpp) has no samples:
// the master ships the input itself, one polynomial per macro step with the ticks it is valid
// on (causal synchronisation: a step is taken only inside a shipped interval), and ships it
// again for the same interval when it repeats the macro step.
#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "integrator/ode_method.hpp"
#include "integrator/prediction.hpp"

namespace kausal {

// Where a channel's input over a step comes from.
enum class InputSource : std::uint8_t {
  samples,      // the producer's samples, held or extrapolated here (every method)
  predictions,  // polynomials the co-simulation master ships, each valid over its macro step
};

// How a sample channel predicts (integrator/prediction.hpp): the hold order is the order, or
// with choose_order the highest order, chosen anew at every sample point.
struct InputPredictor {
  bool choose_order = false;
  Calibration calibration = Calibration::extrapolation;
  double threshold = std::numeric_limits<double>::infinity();  // choose_order: beyond it, 0
  bool smooth = false;  // Hermite C¹ blend from the previous period's polynomial
};

struct InputChannel {
  std::string name;  // "turbine.power -> machine.pm", for messages
  int hold = 0;
  std::uint64_t period_ticks = 1;
  InputSource source = InputSource::samples;
  InputPredictor predictor;
  // A prediction stands only when it is the sample bit for bit, whatever the tolerance (a
  // lane of a coupled String: system/fmu/text_lanes.hpp).
  bool exact = false;
};

// The master's input for channel `channel` over ticks [from_tick, to_tick].
struct ChannelPrediction {
  std::size_t channel = 0;
  std::uint64_t from_tick = 0;
  std::uint64_t to_tick = 0;
  Prediction polynomial;
};

struct ChannelSample {
  std::size_t channel = 0;
  std::uint64_t index = 0;
  double value = 0;
};

// The real samples a channel already holds when its partition starts (a resumed run):
// samples first, first + 1, ..., in order.
struct ChannelHistory {
  std::uint64_t first = 0;
  std::vector<double> values;
};

struct PredictionStats {
  std::uint64_t predictions = 0;           // samples predicted before they arrived
  std::uint64_t accepted_predictions = 0;  // predictions kept (within tolerance)
  double max_accepted_error = 0;           // largest |prediction − sample| kept
};

class InputChannels {
 public:
  static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();

  struct Timing {
    double t0 = 0;
    double tick = 0;  // s
    std::uint64_t ticks_per_step = 1;
  };
  // ModelError naming `component` for a hold order or period that cannot work.
  InputChannels(const std::string& component, std::vector<InputChannel> specs, Timing timing,
                bool speculate, double tolerance);

  // The oldest sample of a channel that steps from n on may use: what a partition resumed at
  // step n must be given (restore()) and what forget_before(n) keeps.
  static std::uint64_t first_needed(const InputChannel& spec, std::uint64_t ticks_per_step,
                                    std::uint64_t n);
  // Before the first step n of a resumed run: the samples each channel held (at most one
  // history per channel, each starting at or before first_needed(n)). ModelError naming the
  // channel for a history that does not reach back far enough or holds a non-finite value.
  void restore(const std::vector<ChannelHistory>& history, std::uint64_t n);

  std::size_t size() const { return channels_.size(); }
  // Step n may be taken now: every sample it needs has arrived or (speculating) can be
  // predicted from arrived ones.
  bool ready_for(std::uint64_t n) const;
  // Binds the inputs of step n for input_at(), predicting the samples still missing.
  void bind(std::uint64_t n);
  // The inputs of the bound step at time t (u has one entry per channel).
  void input_at(double t, Vector& u) const;
  // Their time derivatives at t, for a model that steps itself (Model::step): du(i, k - 1) =
  // d^k u_i / dt^k for k up to du.cols(); du has a row per channel (or more: left zero).
  void input_derivatives_at(double t, MatrixOut du) const;
  // The highest derivative any channel's input can have that is not zero (its hold order; 3
  // for the master's or a blended prediction): how many columns input_derivatives_at fills.
  Eigen::Index derivative_order() const { return derivative_order_; }
  // A sample arrived (in order per channel, within held_limit() of the oldest sample a step
  // still needs; ProtocolError / ModelError otherwise). Returns
  // the step to roll back to when it refutes a prediction that step used.
  std::optional<std::uint64_t> provide(const ChannelSample& sample);
  // Throws what provide() would if `sample` came after `arrived` samples of its channel,
  // reading only what set-up fixed and the oldest sample kept (an atomic: safe beside a
  // provide() or forget_before() on another thread): a started Integrator's worker checks
  // samples so as they are queued (worker.hpp).
  void check(const ChannelSample& sample, std::uint64_t arrived) const;
  // The samples of `channel` that have arrived.
  std::uint64_t arrived(std::size_t channel) const { return channels_.at(channel).arrived; }
  // The master's input over an interval: replaces what was shipped from from_tick on.
  // ProtocolError for a channel fed by samples, an interval that leaves a gap after the
  // shipped ones, a polynomial that is not finite, or more than held_limit() intervals ahead.
  void provide_prediction(const ChannelPrediction& prediction);
  // The first step that used a prediction not yet confirmed; `never` if there is none.
  std::uint64_t first_unconfirmed_use() const;
  // After a rollback to step n: predictions first used at or after n are forgotten (the
  // steps that recompute predict again, from newer samples).
  void forget_predictions_from(std::uint64_t n);
  // Step n is final: samples older than its stencil are no longer needed.
  void forget_before(std::uint64_t n);
  const PredictionStats& stats() const { return stats_; }
  // How many samples (or master's intervals) one channel may hold ahead of the oldest a step
  // still needs: its share of limits::held_bytes. A producer is never that far ahead of its
  // consumer (both keep to windows within the same budget); a caller that sends further
  // ahead is refused rather than let grow the memory without bound.
  std::uint64_t held_limit() const { return held_limit_; }

 private:
  struct Sample {
    double value = 0;
    bool predicted = false;
    std::uint64_t first_use = never;  // the first step that used it (predictions only)
  };
  struct Segment {
    std::uint64_t from_tick = 0, to_tick = 0;
    Prediction polynomial;
  };
  struct Channel {
    InputChannel spec;
    std::deque<Sample> samples;  // samples[k] is sample `base + k`
    std::uint64_t base = 0;
    std::uint64_t arrived = 0;     // samples below this index are real
    std::deque<Segment> segments;  // InputSource::predictions: in time order, contiguous
  };

  // Channel c keeps its samples from `first` on (sets base and kept_from_).
  void keep_from(Channel& c, std::uint64_t first);
  std::uint64_t sample_for_step(const Channel& c, std::uint64_t n) const;
  int order_at(const Channel& c, std::uint64_t j) const;
  Sample& sample(Channel& c, std::uint64_t j) { return c.samples.at(j - c.base); }
  const Sample& sample(const Channel& c, std::uint64_t j) const { return c.samples.at(j - c.base); }
  double predict(const Channel& c, std::uint64_t j) const;
  double sample_time(const Channel& c, std::uint64_t j) const;
  Prediction polynomial_through(const Channel& c, std::uint64_t newest) const;
  Prediction polynomial_for_period(const Channel& c, std::uint64_t j) const;
  // InputSource::predictions: the segment step n lies in, or -1.
  std::ptrdiff_t segment_for_step(const Channel& c, std::uint64_t n) const;

  std::string component_;
  Timing timing_;
  bool speculate_;
  double tolerance_;
  std::vector<Channel> channels_;
  // The stencil of the bound step: per channel its newest sample index and order.
  std::vector<std::uint64_t> stencil_j_;
  std::vector<int> stencil_order_;
  // The bound step's input where it is a polynomial: the master's, or a predictor's that is
  // not the plain hold.
  std::vector<Prediction> stencil_polynomial_;
  PredictionStats stats_;
  Eigen::Index derivative_order_ = 0;
  std::uint64_t held_limit_ = 0;
  // Per channel: its oldest sample kept (Channel::base), for check() on another thread.
  std::unique_ptr<std::atomic<std::uint64_t>[]> kept_from_;
};

}  // namespace kausal
