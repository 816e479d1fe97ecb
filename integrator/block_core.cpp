#include "integrator/block_core.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"
#include "common/request_limits.hpp"

namespace kausal {
namespace {

using Clock = ActivityClock::Clock;

std::string pendulum_label(std::size_t i) {
  return "pendulum " + std::to_string(i + 1) + " of the block";
}

// Indices strictly ascending and below n.
void check_indices(const std::string& component, const char* field,
                   const std::vector<std::uint32_t>& indices, std::size_t n) {
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] >= n)
      throw ProtocolError(component, std::string(field) + "[" + std::to_string(k) + "] = " +
                                         std::to_string(indices[k]) + " is not a pendulum of " +
                                         "the block (it holds " + std::to_string(n) + ")");
    if (k > 0 && indices[k] <= indices[k - 1])
      throw ProtocolError(component, std::string(field) + " must be strictly ascending");
  }
}

// The pendulums and settings a chain may have, or a ModelError naming what is wrong.
void check_spec(const std::string& name, const BlockSpec& spec) {
  const auto& p = spec.chain.pendulums;
  limits::within(name, "pendulums", p.size(), kMaxBlockPendulums, "a chain's most pendulums");
  if (p.empty()) throw ProtocolError(name, "a block holds at least one pendulum");
  if (spec.method != OdeMethod::euler && spec.method != OdeMethod::rk4)
    throw ModelError(
        name, "a chain steps with euler or rk4, not " + std::string(ode_method_name(spec.method)));
  if (!std::isfinite(spec.t0)) throw ModelError(name, "t0 must be finite");
  if (!(std::isfinite(spec.h) && spec.h > 0)) throw ModelError(name, "h must be finite and > 0");
  if (!(spec.chain.restitution >= 0 && spec.chain.restitution <= 1))
    throw ModelError(name, "restitution must be in [0, 1]");
  if (spec.chain.max_sweeps < 1 || spec.chain.max_sweeps > 1'000'000)
    throw ModelError(name, "max_sweeps must be in [1, 1000000]");
  for (std::size_t i = 0; i < p.size(); ++i) {
    // The pendulum model's own checks, with its messages naming the parameter.
    pendulum_params_from(name + ": " + pendulum_label(i), to_parameters(p[i]));
    if (i > 0 && !(p[i].pivot_x > p[i - 1].pivot_x))
      throw ModelError(name, pendulum_label(i) + ": pivot_x must be greater than the one " +
                                 "before (pendulums stand left to right)");
  }
}

}  // namespace

BlockCore::BlockCore(std::string name) : name_(std::move(name)) {
  thread_ = std::thread([this] { run_ahead(); });
}

BlockCore::~BlockCore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void BlockCore::set_up(BlockSpec spec) {
  check_spec(name_, spec);
  std::unique_lock lock(mutex_);
  halt(lock);
  n_ = spec.chain.pendulums.size();
  // The rollback check takes every step twice.
  calcs_per_step_ =
      static_cast<std::uint64_t>(calcs_per_step(spec.method)) * (spec.rollback_check ? 2 : 1);
  most_ahead_ = limits::steps_within(limits::held_bytes, computed_bytes(n_));
  block_ = std::make_unique<PendulumBlock>(spec.chain, spec.method, spec.t0, spec.h, 0, n_,
                                           spec.rollback_check);
  states_.assign(n_, PendulumState{0, 0});
  at_.reset();
  next_ = 1;  // (nothing to compute before a request: next_ > limit_)
  limit_ = 0;
  calcs_ = discarded_calcs_ = 0;
}

void BlockCore::check(const BlockRequest& r) const {
  if (!block_) throw ProtocolError(name_, "advance before set_up");
  if (r.steps < 1) throw ProtocolError(name_, "steps must be at least 1");
  limits::within(name_, "steps", r.steps,
                 limits::steps_within(limits::reply_bytes, n_ * sizeof(PendulumState)),
                 "the states one reply carries");
  if (r.from > std::uint64_t{1} << 62) throw ProtocolError(name_, "from is beyond any run");
  if (!r.edge.empty() && r.steps != 1)
    throw ProtocolError(name_, "a step that leaves edge clusters is one step (steps 1)");
  check_indices(name_, "edge", r.edge, n_);
  if (r.restart) {
    if (r.states.size() != n_ || !r.changed.empty())
      throw ProtocolError(
          name_, "a restart gives all " + std::to_string(n_) + " states and no changed indices");
  } else {
    if (!at_ || *at_ != r.from)
      throw ProtocolError(name_, "asked to continue from step " + std::to_string(r.from) +
                                     ", but the block is " +
                                     (at_ ? "at step " + std::to_string(*at_) : "not started") +
                                     " (restart it with its states)");
    check_indices(name_, "changed", r.changed, n_);
    if (r.states.size() != r.changed.size())
      throw ProtocolError(name_, "one state per changed pendulum");
  }
  for (std::size_t k = 0; k < r.states.size(); ++k)
    if (!std::isfinite(r.states[k][0]) || !std::isfinite(r.states[k][1]))
      throw ModelError(name_, "state " + std::to_string(k) + " is not finite");
}

BlockReply BlockCore::advance(const BlockRequest& r) {
  std::unique_lock lock(mutex_);
  clock_.count_request();
  check(r);
  return r.edge.empty() ? take_ahead(r, lock) : step_here(r, lock);
}

void BlockCore::halt(std::unique_lock<std::mutex>& lock) {
  limit_ = std::min(limit_, next_ == 0 ? 0 : next_ - 1);
  changed_.wait(lock, [&] { return !computing_; });
  discarded_calcs_ += ahead_.size() * n_ * calcs_per_step_;
  ahead_.clear();
  failure_ = nullptr;
}

void BlockCore::take_states(const BlockRequest& r, std::unique_lock<std::mutex>& lock) {
  halt(lock);
  if (r.restart) {
    std::copy(r.states.begin(), r.states.end(), states_.begin());
  } else {
    states_ = base_;
    for (std::size_t k = 0; k < r.changed.size(); ++k) states_[r.changed[k]] = r.states[k];
  }
  at_.reset();  // until a step is through: a step that throws leaves no known step
  next_ = r.from + 1;
  limit_ = r.from;
}

BlockReply BlockCore::step_here(const BlockRequest& r, std::unique_lock<std::mutex>& lock) {
  take_states(r, lock);
  BlockReply out;
  // The thread is halted (limit_ < next_): the block and its states are this call's.
  lock.unlock();
  const auto begin = Clock::now();
  out.impacts.push_back(block_->step_own(r.from, states_, r.edge, out.left));
  const auto end = Clock::now();
  lock.lock();
  clock_.add(ActivityKind::busy, begin, end, {ActivityCall::advance, r.from + 1});
  calcs_ += n_ * calcs_per_step_;
  out.states = states_;
  out.computed = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin);
  base_ = states_;
  at_ = r.from + 1;
  next_ = r.from + 2;
  limit_ = r.from + 1;
  out.calc_calls = calcs_;
  out.discarded_calc_calls = discarded_calcs_;
  return out;
}

BlockReply BlockCore::take_ahead(const BlockRequest& r, std::unique_lock<std::mutex>& lock) {
  // Continuing with nothing changed keeps what the thread computed ahead.
  if (r.restart || !r.changed.empty()) take_states(r, lock);
  limit_ = std::max(limit_, std::min(std::max(r.limit, r.from + r.steps), r.from + most_ahead_));
  changed_.notify_all();
  changed_.wait(lock, [&] { return !ahead_.empty() || failure_; });
  if (ahead_.empty()) {  // computing step from + 1 failed: the block needs a restart
    const std::exception_ptr failure = failure_;
    failure_ = nullptr;
    at_.reset();
    std::rethrow_exception(failure);
  }
  BlockReply out;
  const std::size_t taken = std::min<std::size_t>(r.steps, ahead_.size());
  out.states.reserve(taken * n_);
  for (std::size_t k = 0; k < taken; ++k) {
    Computed& c = ahead_.front();
    out.states.insert(out.states.end(), c.states.begin(), c.states.end());
    out.impacts.push_back(c.impacts);
    out.computed += c.took;
    if (k + 1 == taken) base_ = std::move(c.states);
    ahead_.pop_front();
  }
  at_ = r.from + taken;
  out.calc_calls = calcs_;
  out.discarded_calc_calls = discarded_calcs_;
  return out;
}

ActivityTotals BlockCore::totals() {
  std::lock_guard lock(mutex_);
  ActivityTotals t = clock_.totals();
  t.calc_calls = calcs_;
  return t;
}

void BlockCore::run_ahead() {
  // Nothing escapes the thread: a failed step waits in failure_ until a request needs it,
  // and a restart clears it.
  for (;;) {
    try {
      run_ahead_until_stopped();
      return;
    } catch (...) {
      std::lock_guard lock(mutex_);
      computing_ = false;
      failure_ = std::current_exception();
      changed_.notify_all();
    }
  }
}

void BlockCore::run_ahead_until_stopped() {
  std::unique_lock lock(mutex_);
  std::vector<std::uint32_t> nothing_left;  // running ahead, a block settles all it holds
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || (!failure_ && block_ && next_ <= limit_); });
    if (stopping_) return;
    computing_ = true;
    const std::uint64_t step = next_;
    lock.unlock();
    Computed c;
    const auto begin = Clock::now();
    c.impacts = block_->step_own(step - 1, states_, {}, nothing_left);
    c.states = states_;
    const auto end = Clock::now();
    c.took = std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin);
    lock.lock();
    computing_ = false;
    clock_.add(ActivityKind::busy, begin, end, {ActivityCall::run_ahead, step});
    calcs_ += n_ * calcs_per_step_;
    ahead_.push_back(std::move(c));
    ++next_;
    changed_.notify_all();
  }
}

}  // namespace kausal
