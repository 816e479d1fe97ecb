#include "system/impact_sweep.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "common/errors.hpp"

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

// The gap between [a_low, a_high] and [b_low, b_high]; 0 if they overlap.
double gap(double a_low, double a_high, double b_low, double b_high) {
  return std::max(0.0, std::max(b_low - a_high, a_low - b_high));
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
      pivot_(chain.pendulums.size()),
      length_(chain.pendulums.size()),
      half_reach_(chain.pendulums.size()),
      x_low_(chain.pendulums.size()),
      x_high_(chain.pendulums.size()),
      y_low_(chain.pendulums.size()),
      y_high_(chain.pendulums.size()),
      left_(chain.pendulums.size()),
      right_(chain.pendulums.size()),
      order_(chain.pendulums.size()) {
  if (chain.pendulums.size() > std::numeric_limits<std::uint32_t>::max())
    throw SimulationError("impact sweep: more than 2^32 - 1 pendulums");
  for (std::size_t i = 0; i < chain.pendulums.size(); ++i) {
    pivot_[i] = chain.pendulums[i].pivot_x;
    length_[i] = chain.pendulums[i].length;
    half_reach_[i] = half_reach(chain.pendulums[i]);
  }
  std::iota(order_.begin(), order_.end(), 0u);
}

std::span<const BobPair> ImpactSweep::candidates(std::span<const PendulumState> states) {
  if (states.size() != chain_.pendulums.size())
    throw SimulationError("impact sweep: " + std::to_string(states.size()) + " states for " +
                          std::to_string(chain_.pendulums.size()) + " pendulums");
  for (std::size_t i = 0; i < states.size(); ++i) place(i, states[i][0]);
  insertion_sort(order_, left_);
  collect_pairs(order_);
  return pairs_;
}

void ImpactSweep::place(std::size_t i, double phi) {
  // A box around each bob centre (pivot + l sin φ, −l cos φ), without trigonometry and
  // without branches (this loop runs for every bob at every step): sin φ lies between φ and
  // φ − φ³/6, and 1 − φ²/2 <= cos φ <= 1 − φ²/2 + φ⁴/24, for every φ; both are clipped to
  // [−1, 1]. std::max(−1, v) is −1 and std::min(1, v) is 1 for a NaN v: a NaN angle gets the
  // whole swing.
  const double l = length_[i];
  const double phi2 = phi * phi;
  const double cubic = phi * (1 - phi2 * (1.0 / 6));
  const double sin_low = std::max(-1.0, std::min(phi, cubic));
  const double sin_high = std::min(1.0, std::max(phi, cubic));
  const double cos_low = 1 - phi2 * 0.5;
  const double cos_high = std::min(1.0, cos_low + phi2 * phi2 * (1.0 / 24));
  x_low_[i] = pivot_[i] + l * sin_low;
  x_high_[i] = pivot_[i] + l * sin_high;
  y_low_[i] = -l * cos_high;
  y_high_[i] = -l * std::max(-1.0, cos_low);
  left_[i] = x_low_[i] - half_reach_[i];
  right_[i] = x_high_[i] + half_reach_[i];
}

void ImpactSweep::collect_pairs(const std::vector<std::uint32_t>& order) {
  pairs_.clear();
  // Sideways overlap of the widened extents: the x-gap of the boxes is at most ρ_a + ρ_b.
  // The pair is kept if the gap between the boxes, both ways, is within that reach.
  overlapping(order, left_, right_, [&](std::uint32_t a, std::uint32_t b) {
    const double dx = gap(x_low_[a], x_high_[a], x_low_[b], x_high_[b]);
    const double dy = gap(y_low_[a], y_high_[a], y_low_[b], y_high_[b]);
    const double reach = half_reach_[a] + half_reach_[b];
    if (dx * dx + dy * dy <= reach * reach) pairs_.push_back(ordered(a, b));
  });
  // The bobs mostly keep the order of their pivots, and then so do the pairs.
  if (!std::is_sorted(pairs_.begin(), pairs_.end())) std::sort(pairs_.begin(), pairs_.end());
}

std::span<const BobPair> ImpactSweep::candidates_among(std::span<const PendulumState> states,
                                                       std::span<const std::uint32_t> members) {
  if (states.size() != chain_.pendulums.size())
    throw SimulationError("impact sweep: " + std::to_string(states.size()) + " states for " +
                          std::to_string(chain_.pendulums.size()) + " pendulums");
  among_.assign(members.begin(), members.end());
  for (const std::uint32_t i : among_) {
    if (i >= states.size())
      throw SimulationError("impact sweep: no pendulum " + std::to_string(i + 1));
    place(i, states[i][0]);
  }
  std::sort(among_.begin(), among_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return left_[a] < left_[b]; });
  collect_pairs(among_);
  return pairs_;
}

std::optional<BobPair> ImpactSweep::first_contact(std::span<const PendulumState> states) {
  const auto& p = chain_.pendulums;
  for (const BobPair& pair : candidates(states))
    if (bob_distance(p[pair.i], p[pair.j], states[pair.i].data(), states[pair.j].data()) <=
        p[pair.i].radius + p[pair.j].radius)
      return pair;
  return std::nullopt;
}

void ImpactSweep::throw_unsettled(std::uint64_t step) const {
  throw SimulationError("impacts at step " + std::to_string(step) + " did not settle after " +
                        std::to_string(chain_.max_sweeps) + " sweeps (raise model.max_sweeps?)");
}

}  // namespace kausal
