#pragma once
// The contact sweep of the chain (docs/model.md §2): every pair of bobs that can touch is checked
// after every step, in lexicographic order (i ascending, then j), and whole sweeps repeat
// until one applies no impulse. A sorted broad phase keeps the cost about linear in N: only
// pairs whose bobs may overlap sideways are looked at, and a pair it leaves out is certainly
// not in contact (the proof is in docs/lookahead.md, "All pairs").
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "system/chain.hpp"

namespace kausal {

// A pair of pendulums, i < j (so i is the left one: pivots stand left to right).
struct BobPair {
  std::uint32_t i, j;
  friend bool operator==(const BobPair&, const BobPair&) = default;
  friend auto operator<=>(const BobPair&, const BobPair&) = default;
};

// The pairs whose bobs can ever touch, in lexicographic order: pivots no farther apart than
// l_i + l_j + r_i + r_j (with the margin of reach_with_margin). No other pair can ever be in
// contact, whatever the angles.
std::vector<BobPair> pairs_within_reach(const ChainSpec& chain);

class ImpactSweep {
 public:
  explicit ImpactSweep(const ChainSpec& chain);

  // The pairs that may be in contact at these angles, in lexicographic order. A pair left out
  // is certainly apart: the exact contact test of pair_impact says "no contact" for it. The
  // span is valid until the next call.
  std::span<const BobPair> candidates(std::span<const PendulumState> states);

  // The first pair (in sweep order) whose bobs are in contact, by the exact test.
  std::optional<BobPair> first_contact(std::span<const PendulumState> states);

  // The pairs among `members` (pendulum indices, ascending) that may be in contact at these
  // angles, in lexicographic order: the pairs candidates() gives whose both bobs are members.
  // A pair has the same verdict here as there (the test looks at the two bobs only). Costs
  // about the members' count, not N. The span is valid until the next call.
  std::span<const BobPair> candidates_among(std::span<const PendulumState> states,
                                            std::span<const std::uint32_t> members);

  // Sweeps the pairs in lexicographic order, calling on_impact(pair, impact) for every
  // impact due (on_impact must apply both impulses to states[pair.i] and states[pair.j]),
  // and repeats until a sweep applies nothing. Returns the number of impacts. Throws
  // SimulationError after max_sweeps sweeps that still apply impulses. Angles never jump,
  // so the pairs in contact are the same in every sweep of one step: the broad phase runs
  // once.
  template <typename OnImpact>
  std::uint64_t resolve(std::span<PendulumState> states, std::uint64_t step, OnImpact&& on_impact) {
    return resolve_pairs(states, step, candidates(states), on_impact);
  }

  // resolve() for the contacts among `members` only (candidates_among). Pairs that are apart
  // never act, so this equals resolve() when every pair with one bob outside the members is
  // resolved already or apart, and the members' contacts involve no one else.
  template <typename OnImpact>
  std::uint64_t resolve_among(std::span<PendulumState> states, std::uint64_t step,
                              std::span<const std::uint32_t> members, OnImpact&& on_impact) {
    return resolve_pairs(states, step, candidates_among(states, members), on_impact);
  }

  // The sweeps of resolve() over given candidate pairs (in lexicographic order).
  template <typename OnImpact>
  std::uint64_t resolve_pairs(std::span<PendulumState> states, std::uint64_t step,
                              std::span<const BobPair> pairs, OnImpact&& on_impact) const {
    const auto& p = chain_.pendulums;
    std::uint64_t impacts = 0;
    for (int sweep = 0; sweep < chain_.max_sweeps; ++sweep) {
      std::uint64_t in_this_sweep = 0;
      for (const BobPair& pair : pairs) {
        const auto impact = pair_impact(p[pair.i], p[pair.j], chain_.restitution,
                                        states[pair.i].data(), states[pair.j].data());
        if (!impact) continue;
        on_impact(pair, *impact);
        ++in_this_sweep;
      }
      impacts += in_this_sweep;
      if (in_this_sweep == 0) return impacts;
    }
    throw_unsettled(step);
  }

 private:
  [[noreturn]] void throw_unsettled(std::uint64_t step) const;
  // Bob i's box and its widened sideways extent [left_, right_] at angle phi.
  void place(std::size_t i, double phi);
  // pairs_: every pair of `order` (sorted by left edge) whose boxes are within reach.
  void collect_pairs(const std::vector<std::uint32_t>& order);

  const ChainSpec& chain_;
  // Per bob, as arrays so that the boxes of all bobs are computed in one tight loop.
  std::vector<double> pivot_, length_;
  std::vector<double> half_reach_;      // ρ_i: r_i plus bob i's share of the rounding margin
  std::vector<double> x_low_, x_high_;  // a box around bob i's centre
  std::vector<double> y_low_, y_high_;
  std::vector<double> left_, right_;  // x_low − ρ_i, x_high + ρ_i: the broad phase sorts these
  std::vector<std::uint32_t> order_;  // indices by left edge (kept from step to step)
  std::vector<std::uint32_t> among_;  // candidates_among's members by left edge
  std::vector<BobPair> pairs_;
};

}  // namespace kausal
