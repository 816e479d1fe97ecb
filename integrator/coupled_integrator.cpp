#include "integrator/coupled_integrator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "integrator/stepper.hpp"
#include "system/errors.hpp"
#include "system/request_limits.hpp"

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

Eigen::Index idx(std::size_t i) {
  return static_cast<Eigen::Index>(i);
}

}  // namespace

std::uint64_t held_steps_within_budget(const CoupledConfig& c) {
  const std::uint64_t n = static_cast<std::uint64_t>(c.x0.size());
  const std::uint64_t saved =
      StateList::entry_bytes(c.x0.size(), c.indicator_count, c.method == OdeMethod::ab3);
  const std::uint64_t shipped = 8 * (n + c.output_size);
  return std::min(limits::steps_within(limits::held_bytes, saved + shipped),
                  limits::steps_within(limits::reply_bytes, shipped));
}

// f(t, x) of the partition with the inputs of the current stencil bound.
class CoupledIntegrator::BoundRhs final : public RightHandSide {
 public:
  explicit BoundRhs(CoupledIntegrator& owner)
      : owner_(owner), u_(idx(owner.config_.channels.size())) {}
  void derivative(double t, VectorView x, VectorOut dx) override {
    owner_.input_at(t, u_);
    const auto start = ActivityClock::Clock::now();
    owner_.link_.derivative(t, x, u_, dx);
    owner_.derivative_wait_ += ActivityClock::Clock::now() - start;
  }
  void jacobian(double t, VectorView x, MatrixOut J) override {
    owner_.input_at(t, u_);
    owner_.link_.jacobian(t, x, u_, J);
  }

 private:
  CoupledIntegrator& owner_;
  Vector u_;
};

CoupledIntegrator::CoupledIntegrator(CoupledConfig config, ModelLink& link)
    : config_(std::move(config)),
      link_(link),
      stepper_(config_.method, static_cast<std::size_t>(config_.x0.size()), config_.blocks),
      x_(config_.x0) {
  if (config_.speculate) clock_.trace().set_speculative();
  if (!(config_.tick > 0) || config_.ticks_per_step == 0)
    throw ModelError(config_.name, "step size must be > 0");
  if (!x_.allFinite()) throw ModelError(config_.name, "initial state is not finite");
  if (!(config_.tolerance >= 0)) throw ModelError(config_.name, "tolerance must be >= 0");
  if (config_.window == 0) throw ModelError(config_.name, "window must be >= 1");
  for (const auto& spec : config_.channels) {
    if (spec.hold < 0 || spec.hold > 2)
      throw ModelError(config_.name, spec.name + ": hold order must be 0, 1 or 2");
    if (spec.period_ticks == 0 || spec.period_ticks % config_.ticks_per_step != 0)
      throw ModelError(config_.name, spec.name + ": sample period is not a whole number of steps");
    channels_.push_back({spec, {}, 0, 0});
  }
  stencil_j_.resize(channels_.size());
  stencil_order_.resize(channels_.size());
}

double CoupledIntegrator::time_of_step(std::uint64_t n) const {
  return step_time(config_.t0, config_.tick, n * config_.ticks_per_step);
}

std::uint64_t CoupledIntegrator::sample_for_step(const Channel& c, std::uint64_t n) const {
  return n * config_.ticks_per_step / c.spec.period_ticks;
}

int CoupledIntegrator::order_at(const Channel& c, std::uint64_t j) const {
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(c.spec.hold), j));
}

CoupledIntegrator::Sample& CoupledIntegrator::sample(Channel& c, std::uint64_t j) {
  return c.samples.at(j - c.base);
}

const CoupledIntegrator::Sample& CoupledIntegrator::sample(const Channel& c,
                                                           std::uint64_t j) const {
  return c.samples.at(j - c.base);
}

// From the newest real samples, with the channel's own hold polynomial.
double CoupledIntegrator::predict(const Channel& c, std::uint64_t j) const {
  const std::uint64_t newest = c.arrived - 1;
  const int order = order_at(c, newest);
  auto value = [&](int back) { return back <= order ? sample(c, newest - back).value : 0.0; };
  return hold_polynomial(order, static_cast<double>(j - newest), value(0), value(1), value(2));
}

std::uint64_t CoupledIntegrator::final_step() const {
  std::uint64_t f = step_;
  for (const auto& c : channels_)
    if (c.arrived < c.base + c.samples.size()) f = std::min(f, sample(c, c.arrived).first_use);
  return f;
}

bool CoupledIntegrator::has_final_sample_point() const {
  if (config_.publish_every == 0 || !has_final()) return false;
  const std::uint64_t next =
      (published_ + config_.publish_every - 1) / config_.publish_every * config_.publish_every;
  return next <= final_step();
}

bool CoupledIntegrator::can_step() const {
  if (done()) return false;
  for (const auto& c : channels_) {
    if (sample_known(c, sample_for_step(c, step_))) continue;
    if (!config_.speculate || c.arrived == 0) return false;
  }
  if (!config_.speculate) return true;
  return step_ - final_step() < config_.window;
}

void CoupledIntegrator::prepare_inputs(std::uint64_t n) {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    Channel& c = channels_[i];
    const std::uint64_t j = sample_for_step(c, n);
    while (c.base + c.samples.size() <= j) {
      const std::uint64_t next = c.base + c.samples.size();
      c.samples.push_back({predict(c, next), true, n});
      ++stats_.predictions;
    }
    stencil_j_[i] = j;
    stencil_order_[i] = order_at(c, j);
  }
}

void CoupledIntegrator::input_at(double t, Vector& u) const {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const Channel& c = channels_[i];
    const std::uint64_t j = stencil_j_[i];
    const int order = stencil_order_[i];
    const double period = static_cast<double>(c.spec.period_ticks) * config_.tick;
    const double theta =
        (t - step_time(config_.t0, config_.tick, j * c.spec.period_ticks)) / period;
    auto value = [&](int back) { return back <= order ? sample(c, j - back).value : 0.0; };
    u[idx(i)] = hold_polynomial(order, theta, value(0), value(1), value(2));
  }
}

void CoupledIntegrator::step_once() {
  if (!can_step()) throw ProtocolError(config_.name, "step requested while inputs are missing");
  const auto started = ActivityClock::Clock::now();
  const std::uint64_t n = step_;
  prepare_inputs(n);
  if (config_.indicator_count > 0 && indicators_.size() == 0) {
    indicators_.resize(idx(config_.indicator_count));
    Vector u(idx(channels_.size()));
    input_at(time_of_step(n), u);
    link_.indicators(time_of_step(n), x_, u, indicators_);
  }
  list_.save({n, x_, stepper_.memory(), indicators_, {}, 0});
  const std::uint64_t before = stepper_.derivative_calls();
  compute_step(n);
  if (config_.rollback_check) check_rollback_reproduces_step(n);
  list_.back().derivative_calls = stepper_.derivative_calls() - before;
  clock_.count_calc(list_.back().derivative_calls);
  stats_.derivative_calls = stepper_.derivative_calls();
  stats_.jacobian_calls = stepper_.jacobian_calls();
  step_ = n + 1;
  if (config_.indicator_count > 0) handle_crossings(time_of_step(step_));
  ++stats_.steps_computed;
  const auto ended = ActivityClock::Clock::now();
  // Tagged by the step reached.
  clock_.add(ActivityKind::busy, started, ended, {ActivityCall::partition_step, step_});
  list_.back().work = ended - started;
}

void CoupledIntegrator::compute_step(std::uint64_t n) {
  BoundRhs rhs(*this);
  try {
    stepper_.step(rhs, time_of_step(n), static_cast<double>(config_.ticks_per_step) * config_.tick,
                  x_);
  } catch (const SimulationError& e) {
    throw ModelError(config_.name, e.what());
  }
}

// With the same inputs: the stencil of step n is still bound.
void CoupledIntegrator::check_rollback_reproduces_step(std::uint64_t n) {
  check_restep_reproduces(config_.name, list_.back(), stepper_, x_, [&] { compute_step(n); });
}

// An indicator that changed sign across the step fires its handler at the step's end.
void CoupledIntegrator::handle_crossings(double t) {
  Vector u(idx(channels_.size()));
  input_at(t, u);
  Vector g(idx(config_.indicator_count));
  link_.indicators(t, x_, u, g);
  bool fired = false;
  for (Eigen::Index i = 0; i < g.size(); ++i) {
    const bool crossed = (indicators_[i] > 0 && g[i] <= 0) || (indicators_[i] < 0 && g[i] >= 0);
    if (!crossed) continue;
    link_.on_crossing(static_cast<std::size_t>(i), t, x_);
    ++stats_.events;
    fired = true;
  }
  if (fired) {
    stepper_.restart();
    link_.indicators(t, x_, u, g);
  }
  indicators_ = g;
}

void CoupledIntegrator::provide(const ChannelSample& s) {
  BusyScope busy(clock_, {ActivityCall::provide});
  if (s.channel >= channels_.size())
    throw ProtocolError(config_.name, "sample for channel " + std::to_string(s.channel) +
                                          ", the partition has " +
                                          std::to_string(channels_.size()));
  Channel& c = channels_[s.channel];
  if (s.index != c.arrived)
    throw ProtocolError(config_.name, c.spec.name + ": sample " + std::to_string(s.index) +
                                          " arrived, expected " + std::to_string(c.arrived));
  if (!std::isfinite(s.value))
    throw ModelError(config_.name,
                     c.spec.name + ": sample " + std::to_string(s.index) + " is not finite");
  if (s.index < c.base + c.samples.size()) {
    Sample& p = sample(c, s.index);
    const bool same =
        std::bit_cast<std::uint64_t>(p.value) == std::bit_cast<std::uint64_t>(s.value);
    const double error = std::abs(s.value - p.value);
    if (same || (config_.tolerance > 0 && error <= config_.tolerance)) {
      ++stats_.accepted_predictions;
      stats_.max_accepted_error = std::max(stats_.max_accepted_error, error);
      p = {s.value, false, never};
    } else {
      rollback_to(p.first_use);
    }
  }
  if (s.index == c.base + c.samples.size()) c.samples.push_back({s.value, false, never});
  c.arrived = s.index + 1;
}

ActivityTotals CoupledIntegrator::totals() const {
  ActivityTotals t = clock_.totals();
  t.state_list_peak = list_.peak();
  t.calc_wait_s = std::chrono::duration<double>(derivative_wait_).count();
  return t;
}

const StateList::Entry& CoupledIntegrator::saved_at(std::uint64_t n) const {
  const StateList::Entry* entry = list_.last_at(n);
  if (entry == nullptr)
    throw ProtocolError(config_.name, "step " + std::to_string(n) + " is not in the state list");
  return *entry;
}

// Back to step n, and every prediction first used at or after it forgotten (the steps
// that recompute will predict again, from newer samples).
void CoupledIntegrator::rollback_to(std::uint64_t n) {
  if (n < step_) restore_step(n);
  for (auto& c : channels_)
    while (c.base + c.samples.size() > c.arrived && c.samples.back().first_use >= n)
      c.samples.pop_back();
}

// The state, stepper memory and indicators saved before step n; the time spent on the
// discarded steps becomes rollback time.
void CoupledIntegrator::restore_step(std::uint64_t n) {
  saved_at(n);  // throws if it is not there
  StateList::Rewound r = list_.rewind_to(n);
  x_ = std::move(r.entry.x);
  stepper_.restore(r.entry.memory);
  indicators_ = std::move(r.entry.indicators);
  stats_.wasted_derivative_calls += r.derivative_calls;
  clock_.reclassify_as_rollback(r.work);
  clock_.mark_rolled_back_after(n);
  ++stats_.rollbacks;
  stats_.rolled_back_steps += step_ - n;
  step_ = n;
}

OutputBatch CoupledIntegrator::take_final() {
  OutputBatch batch;
  const std::uint64_t f = final_step();
  if (published_ > f || published_ > config_.last_step) return batch;
  BusyScope busy(clock_, {ActivityCall::outputs, f});
  batch.first_step = published_;
  batch.state_size = static_cast<std::size_t>(x_.size());
  batch.output_size = config_.output_size;
  Vector y(idx(config_.output_size));
  for (std::uint64_t m = published_; m <= f; ++m) {
    const Vector& x = m == step_ ? x_ : saved_at(m).x;
    link_.output(time_of_step(m), x, y);
    batch.states.insert(batch.states.end(), x.data(), x.data() + x.size());
    batch.outputs.insert(batch.outputs.end(), y.data(), y.data() + y.size());
  }
  published_ = f + 1;
  forget_before(f);
  return batch;
}

// Nothing before the final step can be rolled back to or published again; samples older
// than the stencil of that step are no longer needed.
void CoupledIntegrator::forget_before(std::uint64_t n) {
  clock_.trace().settle(n);  // steps up to a final one are never rolled back
  list_.fossil_collect(n);
  for (auto& c : channels_) {
    const std::uint64_t j = sample_for_step(c, n);
    const std::uint64_t keep = j >= 2 ? j - 2 : 0;
    while (c.base < keep && c.base < c.arrived && !c.samples.empty()) {
      c.samples.pop_front();
      ++c.base;
    }
  }
}

}  // namespace kausal
