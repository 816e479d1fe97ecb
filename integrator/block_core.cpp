#include "integrator/block_core.hpp"

#include <algorithm>
#include <cmath>

#include "system/errors.hpp"
#include "system/request_limits.hpp"

namespace kausal {
namespace {

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

}  // namespace

void BlockCore::set_up(BlockSpec spec) {
  block_.reset();
  at_.reset();
  const auto& p = spec.chain.pendulums;
  limits::within(name_, "pendulums", p.size(), kMaxBlockPendulums, "a chain's most pendulums");
  if (p.empty()) throw ProtocolError(name_, "a block holds at least one pendulum");
  if (spec.method != OdeMethod::euler && spec.method != OdeMethod::rk4)
    throw ModelError(name_, "a chain steps with euler or rk4, not " +
                                std::string(ode_method_name(spec.method)));
  if (!std::isfinite(spec.t0)) throw ModelError(name_, "t0 must be finite");
  if (!(std::isfinite(spec.h) && spec.h > 0)) throw ModelError(name_, "h must be finite and > 0");
  if (!(spec.chain.restitution >= 0 && spec.chain.restitution <= 1))
    throw ModelError(name_, "restitution must be in [0, 1]");
  if (spec.chain.max_sweeps < 1 || spec.chain.max_sweeps > 1'000'000)
    throw ModelError(name_, "max_sweeps must be in [1, 1000000]");
  for (std::size_t i = 0; i < p.size(); ++i) {
    // The pendulum model's own checks, with its messages naming the parameter.
    pendulum_params_from(name_ + ": " + pendulum_label(i), to_parameters(p[i]));
    if (i > 0 && !(p[i].pivot_x > p[i - 1].pivot_x))
      throw ModelError(name_, pendulum_label(i) + ": pivot_x must be greater than the one " +
                                  "before (pendulums stand left to right)");
  }
  spec_ = std::move(spec);
  block_ = std::make_unique<PendulumBlock>(spec_.chain, spec_.method, spec_.t0, spec_.h, 0,
                                           spec_.chain.pendulums.size());
  states_.assign(spec_.chain.pendulums.size(), PendulumState{0, 0});
}

void BlockCore::check(const BlockRequest& r) const {
  if (!block_) throw ProtocolError(name_, "advance before set_up");
  const std::size_t n = pendulums();
  if (r.steps < 1) throw ProtocolError(name_, "steps must be at least 1");
  limits::within(name_, "steps", r.steps,
                 limits::steps_within(limits::reply_bytes, n * sizeof(PendulumState)),
                 "the states one reply carries");
  if (r.from > std::uint64_t{1} << 62) throw ProtocolError(name_, "from is beyond any run");
  if (!r.edge.empty() && r.steps != 1)
    throw ProtocolError(name_, "a step that leaves edge clusters is one step (steps 1)");
  check_indices(name_, "edge", r.edge, n);
  if (r.restart) {
    if (r.states.size() != n || !r.changed.empty())
      throw ProtocolError(name_, "a restart gives all " + std::to_string(n) +
                                     " states and no changed indices");
  } else {
    if (!at_ || *at_ != r.from)
      throw ProtocolError(name_, "asked to continue from step " + std::to_string(r.from) +
                                     ", but the block is " +
                                     (at_ ? "at step " + std::to_string(*at_) : "not started") +
                                     " (restart it with its states)");
    check_indices(name_, "changed", r.changed, n);
    if (r.states.size() != r.changed.size())
      throw ProtocolError(name_, "one state per changed pendulum");
  }
  for (std::size_t k = 0; k < r.states.size(); ++k)
    if (!std::isfinite(r.states[k][0]) || !std::isfinite(r.states[k][1]))
      throw ModelError(name_, "state " + std::to_string(k) + " is not finite");
}

BlockReply BlockCore::advance(const BlockRequest& r) {
  check(r);
  if (r.restart)
    std::copy(r.states.begin(), r.states.end(), states_.begin());
  else
    for (std::size_t k = 0; k < r.changed.size(); ++k) states_[r.changed[k]] = r.states[k];
  at_.reset();  // until the steps are through: a step that throws leaves no known step
  BlockReply out;
  const auto begin = ActivityClock::Clock::now();
  const auto deadline = begin + limits::work_per_call;
  std::uint64_t taken = 0;
  while (taken < r.steps) {
    const std::uint64_t m = r.from + taken;
    const auto step_begin = ActivityClock::Clock::now();
    out.impacts.push_back(block_->step_own(m, states_, r.edge, out.left));
    out.states.insert(out.states.end(), states_.begin(), states_.end());
    const auto step_end = ActivityClock::Clock::now();
    clock_.add(ActivityKind::busy, step_begin, step_end,
               {r.edge.empty() ? ActivityCall::run_ahead : ActivityCall::advance, m + 1});
    ++taken;
    if (step_end >= deadline) break;
  }
  at_ = r.from + taken;
  out.calc_calls = block_->calc_calls();
  out.computed =
      std::chrono::duration_cast<std::chrono::nanoseconds>(ActivityClock::Clock::now() - begin);
  return out;
}

}  // namespace kausal
