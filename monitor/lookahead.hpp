#pragma once
// A provably safe lookahead for the conservative monitor (design.md §3, "conservative with
// lookahead"): how many steps the chain can certainly take without any contact, from an
// enclosure of every pendulum's state propagated through the integrator's own update formulas
// with outward rounding (and, as a fallback, a bound on the bobs' displacement). The proof is
// in docs/lookahead.md.
#include <cstddef>
#include <cstdint>
#include <span>

#include "integrator/stepper.hpp"  // Method
#include "system/chain.hpp"        // ChainSpec, PendulumState

namespace kausal {

// Steps S >= 0 such that, moving freely from `states` (all at the same step m), no
// neighbour pair is in contact at any step m+1 .. m+S; at most max_steps.
std::uint64_t safe_free_steps(const ChainSpec& chain, Method method, double h,
                              std::span<const PendulumState> states, std::uint64_t max_steps);

// The same for one pair (left index i, right i+1).
std::uint64_t safe_free_steps_for_pair(const ChainSpec& chain, std::size_t i, Method method,
                                       double h, std::span<const PendulumState> states,
                                       std::uint64_t max_steps);

}  // namespace kausal
