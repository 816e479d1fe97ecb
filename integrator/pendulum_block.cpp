#include "integrator/pendulum_block.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/errors.hpp"

namespace kausal {

void step_pendulums(OdeMethod method, std::span<const PendulumCoefficients> coefficients, double t,
                    double h, std::span<PendulumState> states, StepWork<PendulumState>& work) {
  for (std::size_t i = 0; i < states.size(); ++i) {
    auto rhs = [&c = coefficients[i]](double, const PendulumState& x, PendulumState& dx) {
      pendulum_rhs(c, x.data(), dx.data());
    };
    take_step(method, rhs, t, h, states[i], work);
  }
}

namespace {

ChainSpec part_of(const ChainSpec& chain, std::size_t first, std::size_t last) {
  if (!(first < last && last <= chain.pendulums.size()))
    throw SimulationError("a block of pendulums " + std::to_string(first + 1) + " .. " +
                          std::to_string(last) + " in a chain of " +
                          std::to_string(chain.pendulums.size()));
  return {{chain.pendulums.begin() + static_cast<std::ptrdiff_t>(first),
           chain.pendulums.begin() + static_cast<std::ptrdiff_t>(last)},
          chain.restitution,
          chain.max_sweeps};
}

}  // namespace

PendulumBlock::PendulumBlock(const ChainSpec& chain, OdeMethod method, double t0, double h,
                             std::size_t first, std::size_t last, bool rollback_check)
    : first_(first),
      last_(last),
      method_(method),
      t0_(t0),
      h_(h),
      chain_(part_of(chain, first, last)),
      sweep_(chain_),
      work_(PendulumState{}),
      parent_(last - first),
      held_(last - first, 0),
      rollback_check_(rollback_check) {
  for (const auto& p : chain_.pendulums) coefficients_.push_back(coefficients_of(p));
  std::iota(parent_.begin(), parent_.end(), 0u);
}

std::uint32_t PendulumBlock::root(std::uint32_t i) {
  while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
  return i;
}

std::uint64_t PendulumBlock::step_own(std::uint64_t m, std::span<PendulumState> mine,
                                      std::span<const std::uint32_t> edge,
                                      std::vector<std::uint32_t>& left) {
  if (!rollback_check_) return step_once(m, mine, edge, left);
  before_.assign(mine.begin(), mine.end());
  const std::size_t kept = left.size();
  const std::uint64_t impacts = step_once(m, mine, edge, left);
  after_.assign(mine.begin(), mine.end());
  left_first_.assign(left.begin() + static_cast<std::ptrdiff_t>(kept), left.end());
  // Restored: the states from before the step; what the step left to the monitor goes too.
  std::copy(before_.begin(), before_.end(), mine.begin());
  left.resize(kept);
  const std::uint64_t again = step_once(m, mine, edge, left);
  const bool same_states =
      std::memcmp(after_.data(), mine.data(), mine.size() * sizeof(PendulumState)) == 0;
  if (again != impacts || !same_states ||
      !std::equal(left_first_.begin(), left_first_.end(),
                  left.begin() + static_cast<std::ptrdiff_t>(kept), left.end()))
    throw SimulationError("rollback check: the block of pendulums " + std::to_string(first_ + 1) +
                          " .. " + std::to_string(last_) + ", re-stepping from step " +
                          std::to_string(m) + " after a restore, gave other " +
                          (same_states ? "impacts" : "bits"));
  return impacts;
}

std::uint64_t PendulumBlock::step_once(std::uint64_t m, std::span<PendulumState> mine,
                                       std::span<const std::uint32_t> edge,
                                       std::vector<std::uint32_t>& left) {
  step_pendulums(method_, coefficients_, step_time(t0_, h_, m), h_, mine, work_);
  calc_calls_ += mine.size() * static_cast<std::uint64_t>(calcs_per_step(method_));
  return resolve_inside(m + 1, mine, edge, left);
}

std::uint64_t PendulumBlock::resolve_inside(std::uint64_t step, std::span<PendulumState> mine,
                                            std::span<const std::uint32_t> edge,
                                            std::vector<std::uint32_t>& left) {
  const std::span<const BobPair> pairs = sweep_.candidates(mine);
  std::span<const BobPair> resolved = pairs;
  if (!edge.empty()) {
    // The clusters: bobs linked by candidate pairs. Those holding an edge bob stay as they are.
    for (const BobPair& p : pairs) {
      touched_.push_back(p.i);
      touched_.push_back(p.j);
      parent_[root(p.i)] = root(p.j);
    }
    for (const std::uint32_t e : edge) {
      const auto local = static_cast<std::uint32_t>(e - first_);
      touched_.push_back(local);
      held_[root(local)] = 1;
    }
    kept_.clear();
    for (const BobPair& p : pairs)
      if (!held_[root(p.i)]) kept_.push_back(p);
    const std::size_t from = left.size();
    for (const std::uint32_t b : touched_)
      if (held_[root(b)]) left.push_back(static_cast<std::uint32_t>(b + first_));
    std::sort(left.begin() + static_cast<std::ptrdiff_t>(from), left.end());
    left.erase(std::unique(left.begin() + static_cast<std::ptrdiff_t>(from), left.end()),
               left.end());
    for (const std::uint32_t b : touched_) held_[root(b)] = 0;
    for (const std::uint32_t b : touched_) parent_[b] = b;
    touched_.clear();
    resolved = kept_;
  }
  const auto& p = chain_.pendulums;
  return sweep_.resolve_pairs(mine, step, resolved, [&](const BobPair& pair, const Impact& impact) {
    apply_pendulum_impulse(p[pair.i], impact.left_impulse, mine[pair.i].data());
    apply_pendulum_impulse(p[pair.j], impact.right_impulse, mine[pair.j].data());
  });
}

}  // namespace kausal
