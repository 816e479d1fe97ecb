#include "system/impact_sweep.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "system/errors.hpp"

namespace kausal {
namespace {

// Sorts `order` by key[order[k]]; insertion sort, because from one step to the next the bobs
// keep almost the same order (the cost is N plus the number of bobs that passed each other).
void insertion_sort(std::vector<std::uint32_t>& order, const std::vector<double>& key) {
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::uint32_t moving = order[k];
    const double at = key[moving];
    std::size_t j = k;
    for (; j > 0 && key[order[j - 1]] > at; --j) order[j] = order[j - 1];
    order[j] = moving;
  }
}

// Calls visit(a, b) for every a, b whose intervals [left, right] overlap, given `order` sorted
// by left: the sweep of a sweep-and-prune, O(N + overlapping pairs).
template <typename Visit>
void overlapping(const std::vector<std::uint32_t>& order, const std::vector<double>& left,
                 const std::vector<double>& right, Visit&& visit) {
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint32_t a = order[k];
    for (std::size_t l = k + 1; l < order.size() && left[order[l]] <= right[a]; ++l)
      visit(a, order[l]);
  }
}

BobPair ordered(std::uint32_t a, std::uint32_t b) {
  return a < b ? BobPair{a, b} : BobPair{b, a};
}

}  // namespace

std::vector<BobPair> pairs_within_reach(const ChainSpec& chain) {
  const auto& p = chain.pendulums;
  std::vector<double> left(p.size()), right(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double reach = p[i].length + half_reach(p[i]);
    left[i] = p[i].pivot_x - reach;
    right[i] = p[i].pivot_x + reach;
  }
  std::vector<std::uint32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return left[a] < left[b]; });
  std::vector<BobPair> pairs;
  overlapping(order, left, right, [&](std::uint32_t a, std::uint32_t b) {
    // The bobs stay within l of their pivots (both at y = 0): farther apart than this, never.
    const double apart = std::abs(p[b].pivot_x - p[a].pivot_x);
    if (apart <= p[a].length + p[b].length + reach_with_margin(p[a], p[b]))
      pairs.push_back(ordered(a, b));
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

ImpactSweep::ImpactSweep(const ChainSpec& chain)
    : chain_(chain),
      half_reach_(chain.pendulums.size()),
      left_(chain.pendulums.size()),
      right_(chain.pendulums.size()),
      order_(chain.pendulums.size()) {
  if (chain.pendulums.size() > std::numeric_limits<std::uint32_t>::max())
    throw SimulationError("impact sweep: more than 2^32 - 1 pendulums");
  for (std::size_t i = 0; i < chain.pendulums.size(); ++i)
    half_reach_[i] = half_reach(chain.pendulums[i]);
  std::iota(order_.begin(), order_.end(), 0u);
}

void ImpactSweep::sort_by_left_edge() {
  insertion_sort(order_, left_);
}

std::span<const BobPair> ImpactSweep::candidates(std::span<const PendulumState> states) {
  const auto& p = chain_.pendulums;
  if (states.size() != p.size())
    throw SimulationError("impact sweep: " + std::to_string(states.size()) + " states for " +
                          std::to_string(p.size()) + " pendulums");
  for (std::size_t i = 0; i < states.size(); ++i) {
    const XBounds x = bob_x_bounds(p[i], states[i][0]);
    left_[i] = x.low - half_reach_[i];
    right_[i] = x.high + half_reach_[i];
  }
  sort_by_left_edge();
  pairs_.clear();
  // Sideways overlap of the widened extents means the gap between the bobs' x-bounds is at
  // most ρ_a + ρ_b = reach_with_margin (up to a few roundings, far below the margin); may_touch
  // then looks at heights too.
  overlapping(order_, left_, right_, [&](std::uint32_t a, std::uint32_t b) {
    const BobPair pair = ordered(a, b);
    if (may_touch(p[pair.i], p[pair.j], states[pair.i][0], states[pair.j][0]))
      pairs_.push_back(pair);
  });
  if (pairs_.size() > 1) std::sort(pairs_.begin(), pairs_.end());
  return pairs_;
}

BobPair ImpactSweep::first_contact(std::span<const PendulumState> states) {
  const auto& p = chain_.pendulums;
  for (const BobPair& pair : candidates(states))
    if (bob_distance(p[pair.i], p[pair.j], states[pair.i].data(), states[pair.j].data()) <=
        p[pair.i].radius + p[pair.j].radius)
      return pair;
  return {0, 0};
}

void ImpactSweep::throw_unsettled(std::uint64_t step) const {
  throw SimulationError("impacts at step " + std::to_string(step) + " did not settle after " +
                        std::to_string(chain_.max_sweeps) + " sweeps (raise model.max_sweeps?)");
}

}  // namespace kausal
