#include "integrator/integrator.hpp"

#include <cmath>
#include <cstring>

#include "system/errors.hpp"
#include "system/request_limits.hpp"

namespace kausal {
namespace {

bool all_finite(std::span<const double> x) {
  for (double v : x)
    if (!std::isfinite(v)) return false;
  return true;
}

// Busy time of a request: its wall time minus its waits for the System, recorded as the
// pieces between those waits (the Integrator's strip of the utilisation timeline), and the
// whole request as a call span (trace.json draws it around the pieces and the waits).
class RequestScope {
 public:
  RequestScope(Integrator::BusyPieces& pieces, ActivityKind kind, SpanTag tag)
      : pieces_(pieces), call_(pieces.clock, tag) {
    pieces_.begin(kind, tag);
  }
  ~RequestScope() { pieces_.end(); }
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

 private:
  Integrator::BusyPieces& pieces_;
  CallScope call_;  // declared last: recorded after the last piece
};

}  // namespace

Integrator::Integrator(IntegratorConfig config, SystemLink& link)
    : config_(std::move(config)),
      link_(link),
      x_(config_.x0),
      work_(x_),
      step_(config_.first_step) {
  if (!(config_.h > 0) || !std::isfinite(config_.h))
    throw ModelError(config_.name, "step size h must be finite and > 0");
  if (x_.empty() || !all_finite(x_))
    throw ModelError(config_.name, "initial state must be non-empty and finite");
}

// A state-list entry: the state, the entry itself and its step time (deque slots, the
// vector's allocation).
std::uint64_t Integrator::max_uncommitted_steps() const {
  return limits::steps_within(limits::held_bytes, 8 * x_.size() + 96);
}

std::uint64_t Integrator::max_reply_steps() const {
  return limits::steps_within(limits::reply_bytes, 8 * x_.size());
}

void Integrator::require(bool condition, const std::string& what) const {
  if (!condition) throw ProtocolError(config_.name, what);
}

ActivityTotals Integrator::totals() const {
  ActivityTotals t = clock_.totals();
  t.state_list_peak = list_.peak();
  t.calc_wait_s = std::chrono::duration<double>(pieces_.link_wait).count();
  return t;
}

void Integrator::BusyPieces::begin(ActivityKind kind, SpanTag request) {
  clock.count_request();
  kind_ = kind;
  request_ = request;
  step_ = ActivityTrace::untagged;
  start_ = ActivityClock::Clock::now();
}

void Integrator::BusyPieces::close_piece(ActivityClock::Clock::time_point at) {
  clock.add(kind_, start_, at, {request_.call, step_, request_.epoch});
  start_ = at;
}

void Integrator::BusyPieces::tag_step(std::uint64_t step) {
  close_piece(ActivityClock::Clock::now());
  step_ = step;
}

void Integrator::BusyPieces::end() {
  close_piece(ActivityClock::Clock::now());
}

template <typename Call>
void Integrator::BusyPieces::wait_for_system(Call&& call) {
  const auto start = ActivityClock::Clock::now();
  close_piece(start);
  call();
  start_ = ActivityClock::Clock::now();
  link_wait += start_ - start;
}

void Integrator::compute_step() {
  auto rhs = [this](double t, const std::vector<double>& x, std::vector<double>& dx) {
    pieces_.wait_for_system([&] { link_.calc(t, x, dx); });
    clock_.count_calc();
  };
  take_step(config_.method, rhs, step_time(config_.t0, config_.h, step_), config_.h, x_, work_);
  ++step_;
}

// Restores the state just saved before the step, steps again and compares the bits: a
// rollback that does not reproduce the trajectory exactly would break equivalence.
void Integrator::check_rollback_reproduces_step() {
  const std::vector<double> first = x_;
  const std::uint64_t from = step_ - 1;
  x_ = list_.back().x;  // what step_once() saved just before this step (after any event)
  step_ = from;
  compute_step();
  if (x_.size() != first.size() ||
      std::memcmp(x_.data(), first.data(), x_.size() * sizeof(double)) != 0)
    throw ModelError(config_.name, "rollback check: re-stepping from step " + std::to_string(from) +
                                       " after a restore gave other bits");
}

void Integrator::step_once() {
  const auto start = ActivityClock::Clock::now();
  const auto wait_before = pieces_.link_wait;
  pieces_.tag_step(step_ + 1);
  list_.save(step_, x_);
  compute_step();
  if (config_.rollback_check) check_rollback_reproduces_step();
  pieces_.tag_step(ActivityTrace::untagged);
  step_times_.emplace_back(step_,
                           ActivityClock::Clock::now() - start - (pieces_.link_wait - wait_before));
  if (!all_finite(x_))
    throw ModelError(config_.name, "state is no longer finite at step " + std::to_string(step_) +
                                       " (step size too large for the method?)");
}

void Integrator::forget_step_times_before(std::uint64_t gvt) {
  while (!step_times_.empty() && step_times_.front().first <= gvt) step_times_.pop_front();
}

void Integrator::run_ahead_mode() {
  speculative_ = true;
  clock_.trace().set_speculative();
}

StateBatch Integrator::advance(std::uint64_t guarantee, std::uint64_t gvt, Deadline deadline) {
  RequestScope scope(
      pieces_, ActivityKind::busy,
      {speculative_ ? ActivityCall::run_ahead : ActivityCall::advance, step_ + 1, epoch_});
  // (Messages built only when needed: this is every step of a running-ahead Integrator.)
  if (gvt > step_)
    throw ProtocolError(config_.name, "gvt " + std::to_string(gvt) +
                                          " lies after the current step " + std::to_string(step_));
  if (guarantee > gvt && guarantee - gvt > max_uncommitted_steps())
    throw ProtocolError(config_.name, "guarantee " + std::to_string(guarantee) +
                                          " lies more than " +
                                          std::to_string(max_uncommitted_steps()) +
                                          " steps past gvt " + std::to_string(gvt) +
                                          " (the state list's budget for this state size; "
                                          "commit first)");
  list_.fossil_collect(gvt);
  forget_step_times_before(gvt);
  clock_.trace().settle(gvt);
  StateBatch batch{epoch_, step_ + 1, x_.size(), {}};
  const std::uint64_t steps =
      guarantee > step_ ? std::min(guarantee - step_, max_reply_steps()) : 0;
  batch.states.reserve(steps * x_.size());
  for (std::uint64_t k = 0; k < steps; ++k) {
    step_once();
    batch.states.insert(batch.states.end(), x_.begin(), x_.end());
    if (deadline != Deadline::max() && std::chrono::steady_clock::now() >= deadline) break;
  }
  return batch;
}

std::vector<double> Integrator::apply_event(const Event& event) {
  RequestScope scope(pieces_, ActivityKind::busy, {ActivityCall::apply_event, event.step, epoch_});
  require(event.step == step_, "event for step " + std::to_string(event.step) +
                                   " arrived at step " + std::to_string(step_));
  // Rollback restores the first state saved at a step (as stepping produced it); a second
  // event at the same step needs no second copy.
  if (list_.first_at(step_) == nullptr) list_.save(step_, x_);
  pieces_.wait_for_system([&] { link_.handle_event(event, x_); });
  if (!all_finite(x_))
    throw ModelError(config_.name, "event '" + event.kind + "' made the state non-finite");
  return x_;
}

StateBatch Integrator::states_since(std::uint64_t from_step) const {
  require(from_step <= step_, "states asked from step " + std::to_string(from_step) +
                                  " beyond the current step " + std::to_string(step_));
  require(from_step == step_ || list_.first_at(from_step) != nullptr,
          "step " + std::to_string(from_step) + " is no longer in the state list");
  StateBatch batch{epoch_, from_step, x_.size(), {}};
  list_.append_last_per_step(from_step, step_, batch.states);
  batch.states.insert(batch.states.end(), x_.begin(), x_.end());
  return batch;
}

RollbackResult Integrator::rollback(std::uint64_t step, std::span<const double> x) {
  RequestScope scope(pieces_, ActivityKind::rollback, {ActivityCall::rollback, step, epoch_});
  require(step <= step_, "rollback to step " + std::to_string(step) + " after the current step " +
                             std::to_string(step_));
  // The first entry saved at `step` is the state as stepping produced it, before any event.
  if (const auto* saved = list_.first_at(step)) {
    x_ = saved->x;
    list_.truncate_after_first_at(step);
  } else {
    require(step == step_,
            "rollback to step " + std::to_string(step) + ", which is no longer in the state list");
  }
  if (!x.empty()) {
    require(x.size() == x_.size(), "rollback state has " + std::to_string(x.size()) +
                                       " values, expected " + std::to_string(x_.size()));
    x_.assign(x.begin(), x.end());
  }
  const std::uint64_t discarded = step_ - step;
  while (!step_times_.empty() && step_times_.back().first > step) {
    clock_.reclassify_as_rollback(step_times_.back().second);
    step_times_.pop_back();
  }
  clock_.mark_rolled_back_after(step);
  step_ = step;
  return {++epoch_, discarded};
}

void Integrator::commit(std::uint64_t gvt) {
  CallScope call(clock_, {ActivityCall::commit, gvt, epoch_});
  require(gvt <= step_, "commit at gvt " + std::to_string(gvt) + " after the current step " +
                            std::to_string(step_));
  list_.fossil_collect(gvt);
  forget_step_times_before(gvt);
  clock_.trace().settle(gvt);
}

}  // namespace kausal
