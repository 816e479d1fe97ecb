#pragma once
// A block of the chain: contiguous pendulums first .. last − 1 that one component steps and
// whose contacts it resolves itself (docs/architecture.md, "Blocks"). Only contacts that may
// cross the block's edges are left to the monitor, and only at the steps it says so.
//
// Why this is exact: at one step, the sweep of docs/model.md §2 falls apart into clusters,
// the groups of bobs linked by candidate pairs. An impulse changes two bobs of one cluster,
// so each cluster settles as if it were swept alone, in the same lexicographic order, with the
// same impacts. A block resolves its clusters that touch no edge; the monitor sweeps the rest
// (ImpactSweep::resolve_among), which gives the bits of the one sweep over the whole chain.
#include <cstdint>
#include <span>
#include <vector>

#include "integrator/stepper.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {

// Steps every pendulum of `states` from t to t + h, pendulum i with coefficients[i]: the
// sequential reference's fast path (fixed-size arrays, the model inlined).
void step_pendulums(OdeMethod method, std::span<const PendulumCoefficients> coefficients, double t,
                    double h, std::span<PendulumState> states, StepWork<PendulumState>& work);

class PendulumBlock {
 public:
  // Pendulums first .. last − 1 of `chain` (first < last <= its size). rollback_check: every
  // step is taken, the states restored and the step taken again, and both must give the same
  // bits, impacts and pendulums left (`--rollback-check`; twice the work).
  PendulumBlock(const ChainSpec& chain, OdeMethod method, double t0, double h, std::size_t first,
                std::size_t last, bool rollback_check = false);
  // Its sweep refers to its own copy of the pendulums: it stays where it was made.
  PendulumBlock(const PendulumBlock&) = delete;
  PendulumBlock& operator=(const PendulumBlock&) = delete;

  std::size_t first() const { return first_; }
  std::size_t last() const { return last_; }

  // Steps the block's pendulums of `states` (the whole chain's) from step m to m + 1 and
  // resolves their contacts at m + 1, except the clusters that hold a pendulum of `edge`
  // (indices into the chain, in this block): those are left as stepped, and their pendulums
  // are appended to `left` in ascending order. Returns the impacts applied. Throws
  // SimulationError as the sweep does.
  std::uint64_t step(std::uint64_t m, std::span<PendulumState> states,
                     std::span<const std::uint32_t> edge, std::vector<std::uint32_t>& left) {
    return step_own(m, states.subspan(first_, last_ - first_), edge, left);
  }
  // step() on the block's own states only: mine[0] is pendulum first(). With the rollback
  // check, SimulationError if the step taken again differs.
  std::uint64_t step_own(std::uint64_t m, std::span<PendulumState> mine,
                         std::span<const std::uint32_t> edge, std::vector<std::uint32_t>& left);

  std::uint64_t calc_calls() const { return calc_calls_; }

 private:
  std::uint64_t step_once(std::uint64_t m, std::span<PendulumState> mine,
                          std::span<const std::uint32_t> edge, std::vector<std::uint32_t>& left);
  std::uint32_t root(std::uint32_t i);
  std::uint64_t resolve_inside(std::uint64_t step, std::span<PendulumState> mine,
                               std::span<const std::uint32_t> edge,
                               std::vector<std::uint32_t>& left);

  std::size_t first_, last_;
  OdeMethod method_;
  double t0_, h_;
  ChainSpec chain_;  // the block's pendulums only: local indices 0 .. last − first − 1
  std::vector<PendulumCoefficients> coefficients_;
  ImpactSweep sweep_;
  StepWork<PendulumState> work_;
  // Union–find over the block's bobs, reset after every step for the bobs it touched.
  std::vector<std::uint32_t> parent_;
  std::vector<char> held_;  // per root: its cluster is left to the monitor
  std::vector<std::uint32_t> touched_;
  std::vector<BobPair> kept_;
  std::uint64_t calc_calls_ = 0;
  const bool rollback_check_;
  std::vector<PendulumState> before_, after_;  // the rollback check's copies
  std::vector<std::uint32_t> left_first_;
};

}  // namespace kausal
