#include "monitor/deploy/block_processes.hpp"

#include <algorithm>
#include <cstring>

#include "common/request_limits.hpp"
#include "idl/block_convert.hpp"
#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/sync/block_stepper.hpp"

namespace kausal {

CorbaBlockPort::CorbaBlockPort(const LaunchedComponent& component, idl::Block_ptr ref,
                               std::size_t first, std::size_t last, const Heartbeat* heartbeat)
    : name_(component.name),
      heartbeat_(heartbeat),
      place_{component.host, component.pid, component.cpu, component.node},
      ref_(idl::Block::_duplicate(ref)),
      first_(first),
      pendulums_(last - first),
      shadow_(last - first) {}

std::uint64_t CorbaBlockPort::steps_per_call(std::size_t pendulums) const {
  return limits::steps_within(std::uint64_t{1} << 22, pendulums * sizeof(PendulumState));
}

idl::BlockAdvance CorbaBlockPort::request(std::uint64_t m, std::span<const PendulumState> mine) {
  idl::BlockAdvance r;
  r.from = m;
  r.restart = !(known_ && at_ == m);
  r.steps = 1;
  r.limit = 0;  // (an IDL struct leaves its numbers uninitialised)
  if (r.restart) {
    r.states = states_to_idl(mine.data(), mine.size());
    return r;
  }
  // Bit for bit: an impulse changes ω, and nothing else changes a state here.
  std::vector<std::uint32_t> changed;
  for (std::size_t i = 0; i < pendulums_; ++i)
    if (std::memcmp(&mine[i], &shadow_[i], sizeof(PendulumState)) != 0)
      changed.push_back(static_cast<std::uint32_t>(i));
  r.changed = to_idl(changed);
  r.states.length(static_cast<CORBA::ULong>(2 * changed.size()));
  for (std::size_t k = 0; k < changed.size(); ++k) {
    r.states[static_cast<CORBA::ULong>(2 * k)] = mine[changed[k]][0];
    r.states[static_cast<CORBA::ULong>(2 * k + 1)] = mine[changed[k]][1];
  }
  return r;
}

std::uint64_t CorbaBlockPort::call(const idl::BlockAdvance& request, std::uint64_t steps,
                                   idl::BlockSteps_var& reply) {
  known_ = false;  // until a reply says where the block is
  reply = Heartbeat::call(heartbeat_, name_, [&] { return ref_->advance(request); });
  const std::size_t states = state_count(name_, "the reply's states", reply->states);
  const std::uint64_t taken = reply->impacts.length();
  if (taken < 1 || taken > steps || states != taken * pendulums_)
    throw ProtocolError(name_, "answered " + std::to_string(taken) + " steps of " +
                                   std::to_string(states) + " states, asked for up to " +
                                   std::to_string(steps) + " steps of " +
                                   std::to_string(pendulums_));
  for (CORBA::ULong k = 0; k < reply->left.length(); ++k)
    if (reply->left[k] >= pendulums_ || (k > 0 && reply->left[k] <= reply->left[k - 1]))
      throw ProtocolError(name_, "left a pendulum it does not hold, or out of order");
  if (!all_finite(reply->states)) throw ModelError(name_, "sent a non-finite state");
  // What crossed the wire: 8 bytes a double or step, 4 an index.
  bytes_ += 8 * (request.states.length() + reply->states.length() + reply->impacts.length()) +
            4 * (request.changed.length() + request.edge.length() + reply->left.length());
  calc_calls_ = reply->calc_calls;
  discarded_calc_calls_ = reply->discarded_calc_calls;
  computed_ = std::chrono::nanoseconds(reply->computed_ns);
  std::memcpy(shadow_.data(), reply->states.get_buffer() + 2 * (taken - 1) * pendulums_,
              pendulums_ * sizeof(PendulumState));
  at_ = request.from + taken;
  known_ = true;
  return taken;
}

std::uint64_t CorbaBlockPort::step_once(std::uint64_t m, std::span<PendulumState> mine,
                                        std::span<const std::uint32_t> edge,
                                        std::vector<std::uint32_t>& left) {
  idl::BlockAdvance r = request(m, mine);
  r.edge.length(static_cast<CORBA::ULong>(edge.size()));
  for (CORBA::ULong k = 0; k < r.edge.length(); ++k)
    r.edge[k] = static_cast<CORBA::ULong>(edge[k] - first_);
  idl::BlockSteps_var reply;
  call(r, 1, reply);
  std::copy(shadow_.begin(), shadow_.end(), mine.begin());
  for (CORBA::ULong k = 0; k < reply->left.length(); ++k)
    left.push_back(static_cast<std::uint32_t>(first_ + reply->left[k]));
  return reply->impacts[0];
}

std::uint64_t CorbaBlockPort::run_steps(std::uint64_t m, std::span<PendulumState> mine,
                                        std::uint64_t steps, std::uint64_t limit,
                                        std::vector<PendulumState>& states,
                                        std::vector<std::uint64_t>& impacts) {
  idl::BlockAdvance r = request(m, mine);
  r.steps = steps;
  r.limit = limit;
  idl::BlockSteps_var reply;
  const std::uint64_t taken = call(r, steps, reply);
  states.resize(taken * pendulums_);
  states_from_idl(reply->states, states.data());
  impacts.assign(reply->impacts.get_buffer(), reply->impacts.get_buffer() + taken);
  std::copy(shadow_.begin(), shadow_.end(), mine.begin());
  return taken;
}

BlockProcesses::BlockProcesses(const std::vector<BlockPlan>& plan, OrbRuntime& orb,
                               const LaunchOptions& options)
    : plan_(plan), set_(orb, Layout::process) {
  std::vector<std::string> names;
  for (const BlockPlan& block : plan) names.push_back(block.name);
  set_.start_each(ComponentRole::block, "kausal-block", names, options,
                  {"blocks", "--layout blocks:K, which runs them on threads"});
  heartbeat_ = watch_components(set_, options);
}

BlockProcesses::~BlockProcesses() = default;

void BlockProcesses::shutdown() {
  heartbeat_.reset();  // blocks about to exit are no failure
  set_.shutdown();
}

std::unique_ptr<BlockPort> BlockProcesses::port(std::size_t k, std::size_t first,
                                                std::size_t last) {
  const BlockPlan& planned = plan_.at(k);
  const LaunchedComponent& c = set_.named(planned.name);
  if (planned.first != first || planned.last != last)
    throw ProtocolError(c.name, "was placed for pendulums " + std::to_string(planned.first + 1) +
                                    " to " + std::to_string(planned.last) + ", not " +
                                    std::to_string(first + 1) + " to " + std::to_string(last));
  idl::Block_var ref = narrow<idl::Block>(c.name, c.ref);
  const idl::BlockSetup setup = to_idl(planned.spec);
  Heartbeat::call(heartbeat_.get(), c.name, [&] { ref->set_up(setup); });
  return std::make_unique<CorbaBlockPort>(c, ref, first, last, heartbeat_.get());
}

}  // namespace kausal
