#include "monitor/sync/block_port.hpp"

#include <unistd.h>

namespace kausal {

BlockSpec block_spec(const Scenario& scenario, std::size_t first, std::size_t last,
                     bool rollback_check) {
  const auto& p = scenario.chain.pendulums;
  BlockSpec spec;
  spec.chain.pendulums.assign(p.begin() + static_cast<std::ptrdiff_t>(first),
                              p.begin() + static_cast<std::ptrdiff_t>(last));
  spec.chain.restitution = scenario.chain.restitution;
  spec.chain.max_sweeps = scenario.chain.max_sweeps;
  spec.method = scenario.method;
  spec.t0 = scenario.t0();
  spec.h = scenario.h;
  spec.rollback_check = rollback_check;
  return spec;
}

BlockPlace BlockPort::place() const {
  return {"local", static_cast<long>(getpid()), -1, ""};
}

std::uint64_t LocalBlockPort::step_once(std::uint64_t m, std::span<PendulumState> mine,
                                        std::span<const std::uint32_t> edge,
                                        std::vector<std::uint32_t>& left) {
  const auto begin = std::chrono::steady_clock::now();
  const std::uint64_t impacts = block_.step_own(m, mine, edge, left);
  computed_ = std::chrono::steady_clock::now() - begin;
  return impacts;
}

std::uint64_t LocalBlockPort::run_steps(std::uint64_t m, std::span<PendulumState> mine,
                                        std::uint64_t steps, std::uint64_t /*limit*/,
                                        std::vector<PendulumState>& states,
                                        std::vector<std::uint64_t>& impacts) {
  const auto begin = std::chrono::steady_clock::now();
  std::vector<std::uint32_t> nothing_left;  // running ahead, a block settles all it holds
  states.clear();
  impacts.clear();
  for (std::uint64_t s = 0; s < steps; ++s) {
    impacts.push_back(block_.step_own(m + s, mine, {}, nothing_left));
    states.insert(states.end(), mine.begin(), mine.end());
  }
  computed_ = std::chrono::steady_clock::now() - begin;
  return steps;
}

}  // namespace kausal
