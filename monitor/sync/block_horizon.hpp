#pragma once
// A lookahead per block boundary for conservative blocks (--layout blocks:K --guarantee
// lookahead). The proof is docs/lookahead.md, Part IV; in short:
//
// - A block's kinetic norm Q = sqrt(Σ m l² ω²) (the square root of twice its kinetic energy)
//   never grows by an impact inside it (restitution <= 1), and one free step raises it by at
//   most a known affine amount (the per-bob bounds of §8–§9, summed by Minkowski's
//   inequality; gravity's part scaled by a bound on |sin φ| <= |φ|, which follows from the
//   committed angles and Q̄ itself). So, as long as nothing outside the block kicks it, Q
//   after j steps is at most a bound Q̄(j) computed from the committed states alone, and every
//   bob's |ω| at most Q̄(j) / (sqrt(m) l): an edge bob cannot outrun that, whatever happens
//   inside its block.
// - A pair across a boundary is then safe for S_pair steps (the magnitude bound of §7 with
//   those speeds), and block a may compute alone H_a = min(L_a, min over neighbours b of
//   H_b + 1) steps, L_a the least S_pair of its pairs: a neighbour kicked after its own
//   horizon moves its bobs one step later.
// - Rounding inside impacts is the one thing the proof cannot bound beforehand (a contact
//   almost along both strings turns rounding into energy). So the blocks measure Q at every
//   step they compute alone, and the stepper stops the run if Q ever exceeds Q̄
//   (check_kinetic), rather than go on without a guarantee.
#include <cstdint>
#include <span>
#include <vector>

#include "integrator/method.hpp"
#include "monitor/sync/block_stepper.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {

// Extra relative room per step and at the start of Q̄: far above the rounding of the measured
// norm (2u per pendulum) and of the impacts, and still nothing against a window's growth.
inline constexpr double kKineticSlack = 1e-9;

class BlockHorizon {
 public:
  BlockHorizon(const ChainSpec& chain, OdeMethod method, double h, const ChainBlocks& blocks);

  // Q̄ of one block, step by step from a grant's committed states (docs/lookahead.md §17).
  struct KineticBound {
    double q = 0;         // Q̄ at the grant's step + t
    double sum = 0;       // Σ Q̄ over the steps before
    std::uint64_t t = 0;  // steps since the grant's step
    // Σ w b² α², Σ w b² α s, Σ w b² α over the block's pendulums: w = m l², b gravity's
    // share of a step's |ω| bound, α = |φ| at the grant's step, s = 1 / sqrt(w).
    double aa = 0, as = 0, a = 0;
  };
  // What the monitor grants at the committed step `from`: per block the steps after it that
  // the block computes alone, and the bound Q̄ its kinetic norm must stay within.
  struct Grant {
    std::uint64_t from = 0;
    std::vector<std::uint64_t> steps;
    std::vector<KineticBound> kinetic;  // per block, as far as checked
  };
  // From the committed states of every pendulum at step m; no block more than max_steps.
  Grant grant(std::uint64_t m, std::span<const PendulumState> states,
              std::uint64_t max_steps) const;

  // An upper bound on the exact kinetic norm of block k's states (mine[0] is its first
  // pendulum), the rounding of the computed sum included.
  double kinetic_norm(std::size_t k, std::span<const PendulumState> mine) const;
  // Block k's bound one step further.
  void advance(std::size_t k, KineticBound& bound) const;
  // Advances `grant`'s bound of block k to `step` and compares the measured norm with it:
  // SimulationError if the norm exceeds it within the block's granted steps (the guarantee
  // would not hold). Steps outside the grant are not its business.
  void check_kinetic(Grant& grant, std::size_t k, std::uint64_t step, double measured) const;

 private:
  // L per block (into grant.steps): the least window of its pairs across a boundary.
  void windows(std::span<const PendulumState> states, Grant& grant, std::uint64_t max_steps) const;

  // Per block, from its pendulums' parameters (every coefficient for |sin| <= 1).
  struct Growth {
    double grow = 1;       // the largest a of |ω'| <= a |ω| + b
    double gravity = 0;    // Σ w b²: the sum of squares of gravity's shares, |sin| <= 1
    double ss = 0, s = 0;  // Σ w b² s², Σ w b² s
    double travel = 0, travel_gravity = 0;  // |Δφ| <= travel·|ω| + travel_gravity, the most
    double stage = 0, stage_gravity = 0;    // the same for RK4's stage angles off φ
    std::size_t pendulums = 0;
  };

  const ChainSpec& chain_;
  OdeMethod method_;
  double h_;
  const ChainBlocks& blocks_;
  std::vector<Growth> growth_;                        // per block
  std::vector<double> speed_per_norm_;                // per pendulum: 1 / (sqrt(m) l), rounded up
  std::vector<double> gravity_share_;                 // per pendulum: w b²
  std::vector<std::vector<std::size_t>> neighbours_;  // per block: blocks it shares a pair with
};

}  // namespace kausal
