#pragma once
// A provably safe lookahead for the conservative monitor (docs/model.md §3, "conservative with
// lookahead"): how many steps the chain can certainly take without any contact, from an
// enclosure of every pendulum's state propagated through the integrator's own update formulas
// with outward rounding (and, as a fallback, a bound on the bobs' displacement). The proof is
// in docs/lookahead.md.
#include <cstddef>
#include <cstdint>
#include <span>

#include "integrator/method.hpp"
#include "system/impact_sweep.hpp"  // BobPair, pairs_within_reach

namespace kausal {

// Steps S >= 0 such that, moving freely from `states` (all at the same step m), no pair of
// `pairs` is in contact at any step m+1 .. m+S; at most max_steps. With
// pairs = pairs_within_reach(chain) that is every pair that can ever touch, so no pair at all.
std::uint64_t safe_free_steps(const ChainSpec& chain, std::span<const BobPair> pairs,
                              OdeMethod method, double h, std::span<const PendulumState> states,
                              std::uint64_t max_steps);

// The same for every pair of the chain (computes pairs_within_reach; a monitor that grants
// often keeps that list and calls the overload above).
std::uint64_t safe_free_steps(const ChainSpec& chain, OdeMethod method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps);

}  // namespace kausal
