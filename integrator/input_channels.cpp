#include "integrator/input_channels.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "integrator/stepper.hpp"

namespace kausal {
namespace {

// The polynomial through (0, y0), (−1, y1), (−2, y2) of the given order (Newton's backward
// form), at θ (in sample periods after y0's time).
double hold_polynomial(int order, double theta, double y0, double y1, double y2) {
  if (order == 0) return y0;
  const double first = y0 - y1;
  if (order == 1) return y0 + theta * first;
  const double second = y0 - 2 * y1 + y2;
  return y0 + theta * first + 0.5 * theta * (theta + 1) * second;
}

// The plain hold polynomial (the default): kept on its own so that its bits never change.
bool plain(const InputPredictor& p) {
  return !p.choose_order && p.calibration == Calibration::extrapolation && !p.smooth;
}

// How many samples before the newest one a predictor reads: the order's stencil, one more to
// score the orders, one more for least squares, and the previous sample point's polynomial
// for the blend.
std::uint64_t stencil_depth(const InputChannel& spec) {
  const InputPredictor& p = spec.predictor;
  return static_cast<std::uint64_t>(spec.hold) + (p.choose_order ? 1 : 0) +
         (p.calibration == Calibration::least_squares ? 1 : 0) + (p.smooth ? 1 : 0);
}

// The highest derivative of a channel's input over a step that is not zero: the master's and
// the blended predictions are cubics, the others polynomials of the hold order.
Eigen::Index derivative_order_of(const InputChannel& spec) {
  if (spec.source == InputSource::predictions || spec.predictor.smooth)
    return max_input_derivative_order;
  return spec.hold;
}

}  // namespace

InputChannels::InputChannels(const std::string& component, std::vector<InputChannel> specs,
                             Timing timing, bool speculate, double tolerance)
    : component_(component), timing_(timing), speculate_(speculate), tolerance_(tolerance) {
  if (!(tolerance >= 0)) throw ModelError(component, "tolerance must be >= 0");
  for (auto& spec : specs) {
    if (spec.source == InputSource::predictions) {
      channels_.push_back({std::move(spec), {}, 0, 0, {}});
      continue;
    }
    if (spec.hold < 0 || spec.hold > 2)
      throw ModelError(component, spec.name + ": hold order must be 0, 1 or 2");
    if (!(spec.predictor.threshold > 0))
      throw ModelError(component, spec.name + ": the order threshold must be > 0");
    if (spec.period_ticks == 0 || spec.period_ticks % timing.ticks_per_step != 0)
      throw ModelError(component, spec.name + ": sample period is not a whole number of steps");
    channels_.push_back({std::move(spec), {}, 0, 0, {}});
  }
  for (const Channel& c : channels_)
    derivative_order_ = std::max(derivative_order_, derivative_order_of(c.spec));
  stencil_j_.resize(channels_.size());
  stencil_polynomial_.resize(channels_.size());
  stencil_order_.resize(channels_.size());
  // A sample is held twice at most: queued by a worker (ChannelSample), then kept (Sample).
  held_limit_ =
      limits::steps_within(limits::held_bytes, (sizeof(Sample) + sizeof(ChannelSample)) *
                                                   std::max<std::size_t>(1, channels_.size()));
  kept_from_ = std::make_unique<std::atomic<std::uint64_t>[]>(channels_.size());
}

void InputChannels::keep_from(Channel& c, std::uint64_t first) {
  c.base = first;
  kept_from_[&c - channels_.data()].store(first, std::memory_order_relaxed);
}

std::uint64_t InputChannels::sample_for_step(const Channel& c, std::uint64_t n) const {
  return n * timing_.ticks_per_step / c.spec.period_ticks;
}

std::uint64_t InputChannels::first_needed(const InputChannel& spec, std::uint64_t ticks_per_step,
                                          std::uint64_t n) {
  const std::uint64_t j = n * ticks_per_step / spec.period_ticks;
  // A speculating partition predicts sample j from the newest real one, which may be j − 1:
  // one sample more than the stencil of j itself.
  const std::uint64_t back = std::max<std::uint64_t>(2, stencil_depth(spec)) + 1;
  return j >= back ? j - back : 0;
}

void InputChannels::restore(const std::vector<ChannelHistory>& history, std::uint64_t n) {
  if (history.size() > channels_.size())
    throw ModelError(component_, std::to_string(history.size()) + " input histories for " +
                                     std::to_string(channels_.size()) + " channels");
  for (std::size_t i = 0; i < history.size(); ++i) {
    Channel& c = channels_[i];
    const ChannelHistory& h = history[i];
    if (h.values.empty()) continue;
    const std::uint64_t needed = first_needed(c.spec, timing_.ticks_per_step, n);
    if (h.first > needed)
      throw ModelError(component_, c.spec.name + ": the restored samples start at " +
                                       std::to_string(h.first) + ", step " + std::to_string(n) +
                                       " needs sample " + std::to_string(needed));
    c.samples.clear();
    for (double v : h.values) {
      if (!std::isfinite(v))
        throw ModelError(component_, c.spec.name + ": a restored sample is not finite");
      c.samples.push_back({v, false, never});
    }
    keep_from(c, h.first);
    c.arrived = h.first + h.values.size();
  }
}

int InputChannels::order_at(const Channel& c, std::uint64_t j) const {
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(c.spec.hold), j));
}

double InputChannels::sample_time(const Channel& c, std::uint64_t j) const {
  return step_time(timing_.t0, timing_.tick, j * c.spec.period_ticks);
}

// The channel's predictor calibrated on the samples up to `newest` (arrived or predicted).
Prediction InputChannels::polynomial_through(const Channel& c, std::uint64_t newest) const {
  const std::uint64_t depth = stencil_depth(c.spec);
  const std::uint64_t first = std::max(c.base, newest >= depth ? newest - depth : 0);
  std::vector<TimedSample> samples;
  for (std::uint64_t j = first; j <= newest; ++j)
    samples.push_back({sample_time(c, j), sample(c, j).value});
  const InputPredictor& how = c.spec.predictor;
  const int order = how.choose_order
                        ? choose_order(samples, c.spec.hold, how.calibration, how.threshold).order
                        : c.spec.hold;
  return calibrate(samples, order, how.calibration);
}

// Over sample period j: the predictor's polynomial, blended from the previous period's.
Prediction InputChannels::polynomial_for_period(const Channel& c, std::uint64_t j) const {
  const Prediction p = polynomial_through(c, j);
  if (!c.spec.predictor.smooth || j == 0 || j - 1 < c.base) return p;
  const Prediction before = polynomial_through(c, j - 1);
  const double from = sample_time(c, j), to = sample_time(c, j + 1);
  return hermite(from, before.value(from), before.slope(from), to, p.value(to), p.slope(to));
}

// From the newest real samples, with the channel's own predictor.
double InputChannels::predict(const Channel& c, std::uint64_t j) const {
  const std::uint64_t newest = c.arrived - 1;
  if (!plain(c.spec.predictor)) return polynomial_through(c, newest).value(sample_time(c, j));
  const int order = order_at(c, newest);
  auto value = [&](int back) { return back <= order ? sample(c, newest - back).value : 0.0; };
  return hold_polynomial(order, static_cast<double>(j - newest), value(0), value(1), value(2));
}

std::ptrdiff_t InputChannels::segment_for_step(const Channel& c, std::uint64_t n) const {
  const std::uint64_t begin = n * timing_.ticks_per_step;
  const std::uint64_t end = begin + timing_.ticks_per_step;
  for (std::size_t k = c.segments.size(); k-- > 0;)
    if (c.segments[k].from_tick <= begin && end <= c.segments[k].to_tick)
      return static_cast<std::ptrdiff_t>(k);
  return -1;
}

bool InputChannels::ready_for(std::uint64_t n) const {
  for (const auto& c : channels_) {
    if (c.spec.source == InputSource::predictions) {
      if (segment_for_step(c, n) < 0) return false;
      continue;
    }
    if (sample_for_step(c, n) < c.arrived) continue;
    if (!speculate_ || c.arrived == 0) return false;
  }
  return true;
}

void InputChannels::bind(std::uint64_t n) {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    Channel& c = channels_[i];
    if (c.spec.source == InputSource::predictions) {
      const std::ptrdiff_t k = segment_for_step(c, n);
      if (k < 0)
        throw ProtocolError(component_, c.spec.name + ": no prediction covers step " +
                                            std::to_string(n) + " (causal synchronisation)");
      stencil_polynomial_[i] = c.segments[static_cast<std::size_t>(k)].polynomial;
      continue;
    }
    const std::uint64_t j = sample_for_step(c, n);
    while (c.base + c.samples.size() <= j) {
      const std::uint64_t next = c.base + c.samples.size();
      c.samples.push_back({predict(c, next), true, n});
      ++stats_.predictions;
    }
    stencil_j_[i] = j;
    stencil_order_[i] = order_at(c, j);
    if (!plain(c.spec.predictor)) stencil_polynomial_[i] = polynomial_for_period(c, j);
  }
}

void InputChannels::input_at(double t, Vector& u) const {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const Channel& c = channels_[i];
    const std::uint64_t j = stencil_j_[i];
    if (c.spec.source == InputSource::predictions || !plain(c.spec.predictor)) {
      u[static_cast<Eigen::Index>(i)] = stencil_polynomial_[i].value(t);
      continue;
    }
    const int order = stencil_order_[i];
    const double period = static_cast<double>(c.spec.period_ticks) * timing_.tick;
    const double theta =
        (t - step_time(timing_.t0, timing_.tick, j * c.spec.period_ticks)) / period;
    auto value = [&](int back) { return back <= order ? sample(c, j - back).value : 0.0; };
    u[static_cast<Eigen::Index>(i)] = hold_polynomial(order, theta, value(0), value(1), value(2));
  }
}

void InputChannels::input_derivatives_at(double t, MatrixOut du) const {
  du.setZero();
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const Channel& c = channels_[i];
    const auto row = static_cast<Eigen::Index>(i);
    if (c.spec.source == InputSource::predictions || !plain(c.spec.predictor)) {
      for (Eigen::Index k = 1; k <= du.cols(); ++k)
        du(row, k - 1) = stencil_polynomial_[i].derivative(t, static_cast<int>(k));
      continue;
    }
    // hold_polynomial's derivatives in θ, divided by the period once per order.
    const int order = stencil_order_[i];
    if (order == 0 || du.cols() == 0) continue;
    const std::uint64_t j = stencil_j_[i];
    const double period = static_cast<double>(c.spec.period_ticks) * timing_.tick;
    const double theta =
        (t - step_time(timing_.t0, timing_.tick, j * c.spec.period_ticks)) / period;
    const double y0 = sample(c, j).value, y1 = sample(c, j - 1).value;
    const double first = y0 - y1;
    if (order == 1) {
      du(row, 0) = first / period;
      continue;
    }
    const double second = y0 - 2 * y1 + sample(c, j - 2).value;
    du(row, 0) = (first + 0.5 * (2 * theta + 1) * second) / period;
    if (du.cols() >= 2) du(row, 1) = second / (period * period);
  }
}

void InputChannels::check(const ChannelSample& s, std::uint64_t arrived) const {
  if (s.channel >= channels_.size())
    throw ProtocolError(component_, "sample for channel " + std::to_string(s.channel) +
                                        ", the partition has " + std::to_string(channels_.size()));
  const InputChannel& spec = channels_[s.channel].spec;
  if (spec.source == InputSource::predictions)
    throw ProtocolError(component_, spec.name + ": a sample for a channel the master feeds");
  if (s.index != arrived)
    throw ProtocolError(component_, spec.name + ": sample " + std::to_string(s.index) +
                                        " arrived, expected " + std::to_string(arrived));
  if (!std::isfinite(s.value))
    throw ModelError(component_,
                     spec.name + ": sample " + std::to_string(s.index) + " is not finite");
  const std::uint64_t kept = kept_from_[s.channel].load(std::memory_order_relaxed);
  if (s.index >= kept && s.index - kept >= held_limit_)
    throw ProtocolError(component_, spec.name + ": sample " + std::to_string(s.index) + " is " +
                                        std::to_string(s.index - kept) +
                                        " samples ahead of the oldest one a step still needs; "
                                        "a channel holds at most " +
                                        std::to_string(held_limit_) + " (the memory budget)");
}

std::optional<std::uint64_t> InputChannels::provide(const ChannelSample& s) {
  check(s, s.channel < channels_.size() ? channels_[s.channel].arrived : 0);
  Channel& c = channels_[s.channel];
  std::optional<std::uint64_t> rollback;
  if (s.index < c.base + c.samples.size()) {
    Sample& p = sample(c, s.index);
    const bool same =
        std::bit_cast<std::uint64_t>(p.value) == std::bit_cast<std::uint64_t>(s.value);
    const double error = std::abs(s.value - p.value);
    if (same || (tolerance_ > 0 && !c.spec.exact && error <= tolerance_)) {
      ++stats_.accepted_predictions;
      stats_.max_accepted_error = std::max(stats_.max_accepted_error, error);
      p = {s.value, false, never};
    } else {
      rollback = p.first_use;
      forget_predictions_from(p.first_use);
    }
  }
  if (s.index == c.base + c.samples.size()) c.samples.push_back({s.value, false, never});
  c.arrived = s.index + 1;
  return rollback;
}

void InputChannels::provide_prediction(const ChannelPrediction& p) {
  if (p.channel >= channels_.size())
    throw ProtocolError(component_, "prediction for channel " + std::to_string(p.channel) +
                                        ", the partition has " + std::to_string(channels_.size()));
  Channel& c = channels_[p.channel];
  const std::string interval =
      "[" + std::to_string(p.from_tick) + ", " + std::to_string(p.to_tick) + "]";
  if (c.spec.source != InputSource::predictions)
    throw ProtocolError(component_, c.spec.name + ": a prediction for a channel fed by samples");
  const Prediction& poly = p.polynomial;
  bool finite = std::isfinite(poly.t_ref) && std::isfinite(poly.scale) && poly.scale > 0;
  for (double k : poly.c) finite = finite && std::isfinite(k);
  if (p.to_tick <= p.from_tick || !finite || poly.order < 0 || poly.order > 3)
    throw ProtocolError(component_, c.spec.name + ": the prediction for ticks " + interval +
                                        " is not a finite polynomial over a non-empty interval");
  while (!c.segments.empty() && c.segments.back().from_tick >= p.from_tick) c.segments.pop_back();
  if (!c.segments.empty() && c.segments.back().to_tick != p.from_tick)
    throw ProtocolError(component_, c.spec.name + ": the prediction for ticks " + interval +
                                        " does not continue the one ending at tick " +
                                        std::to_string(c.segments.back().to_tick));
  if (c.segments.size() >= held_limit_)
    throw ProtocolError(component_, c.spec.name + ": the prediction for ticks " + interval +
                                        " is more than " + std::to_string(held_limit_) +
                                        " intervals ahead of the steps taken (the memory budget)");
  c.segments.push_back({p.from_tick, p.to_tick, poly});
}

std::uint64_t InputChannels::first_unconfirmed_use() const {
  std::uint64_t first = never;
  for (const auto& c : channels_)
    if (c.arrived < c.base + c.samples.size())
      first = std::min(first, sample(c, c.arrived).first_use);
  return first;
}

void InputChannels::forget_predictions_from(std::uint64_t n) {
  for (auto& c : channels_)
    while (c.base + c.samples.size() > c.arrived && c.samples.back().first_use >= n)
      c.samples.pop_back();
}

void InputChannels::forget_before(std::uint64_t n) {
  for (auto& c : channels_) {
    while (!c.segments.empty() && c.segments.front().to_tick <= n * timing_.ticks_per_step)
      c.segments.pop_front();
    const std::uint64_t keep = first_needed(c.spec, timing_.ticks_per_step, n);
    std::uint64_t base = c.base;
    while (base < keep && base < c.arrived && !c.samples.empty()) {
      c.samples.pop_front();
      ++base;
    }
    keep_from(c, base);
  }
}

}  // namespace kausal
