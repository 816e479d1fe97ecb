#pragma once
// Optimistic blocks of pendulums (--layout blocks:K --method optimistic, docs/architecture.md
// "Blocks"). Each block runs ahead on a thread of its own, up to a window past the last
// commit, settles every contact inside it as if no other block existed, and keeps the states
// of the steps it ran ahead (its state list).
//
// The monitor checks the steps in order. At step s it looks at the edge bobs only (the
// pendulums with a pair within reach in another block). If no pair of them across a boundary
// may be in contact, every block's step s is the sequential one and commits as it is: the
// sweep falls apart into clusters that settle alone (integrator/pendulum_block.hpp), and an
// impulse changes no angle, so the angles a block reached say which pairs are candidates.
// Otherwise the blocks holding such a pair roll back alone: their steps from s on are
// discarded, step s is computed again as the conservative blocks compute it (the clusters at
// their edges left to the monitor's sweep), and they run ahead again from the committed step
// s. The other blocks keep their state lists. The result is the sequential one, bit for bit.
#include <memory>
#include <vector>

#include "monitor/sync/block_stepper.hpp"

namespace kausal {

struct OptimisticBlockOptions {
  std::size_t blocks = 2;      // 1 <= blocks <= the chain's pendulums
  std::vector<int> lane_cpus;  // block k's thread on lane_cpus[k % size]; empty: unpinned
  std::uint64_t window = 128;  // steps a block may run ahead of the last commit (>= 1)
};

// The states a block may hold ahead, over all blocks: 2^22 (64 MiB). A long chain runs
// ahead fewer steps than the window says rather than take memory in proportion to N·window.
inline constexpr std::uint64_t kBlockStateBudget = std::uint64_t{1} << 22;

// The window a chain of `pendulums` runs ahead with: `window`, but at most
// kBlockStateBudget / pendulums steps, and at least 1.
std::uint64_t block_window(std::uint64_t window, std::size_t pendulums);

class OptimisticBlockStepper final : public BlockedChainStepper {
 public:
  OptimisticBlockStepper(const Scenario& scenario, const OptimisticBlockOptions& options);
  ~OptimisticBlockStepper() override;
  OptimisticBlockStepper(const OptimisticBlockStepper&) = delete;
  OptimisticBlockStepper& operator=(const OptimisticBlockStepper&) = delete;

  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  std::vector<ComponentReport> reports() override;

 private:
  struct AheadStep;
  struct Lane;

  void run_ahead(std::size_t k);  // block k's thread
  void run_ahead_until_stopped(std::size_t k);
  // The last step a block may compute once step `committed` is committed.
  std::uint64_t limit_after(std::uint64_t committed) const;
  // Stops block k's thread after the step it is computing: the monitor then owns the block.
  void halt(std::size_t k);
  // Drops block k's state list (steps after m) as rolled back.
  // Returns the steps dropped.
  std::uint64_t discard(std::size_t k, std::uint64_t m);
  // Counts block k as rolled back to step m, and tells the observer for each of its pendulums.
  void rolled_back(std::size_t k, std::uint64_t m);
  // Block k runs ahead again from the committed states of step m.
  void restart(std::size_t k, std::uint64_t m, std::span<const PendulumState> states);
  // Step m is committed: block k may run further.
  void extend(std::size_t k, std::uint64_t m);
  // Waits for block k's step; nullptr if computing it failed.
  const AheadStep* wait_for(std::size_t k, std::uint64_t step);
  // Which blocks hold a pair of edge bobs across a boundary that may be in contact at the
  // step being checked.
  void find_involved(std::span<PendulumState> states, bool any_failed);
  void take(std::size_t k, std::span<PendulumState> states);
  void redo(std::size_t k, std::uint64_t m, std::span<PendulumState> states);
  void tell_horizon(std::uint64_t m);

  std::vector<int> cpus_;
  std::uint64_t window_;
  ImpactSweep sweep_;
  std::vector<std::uint32_t> all_edges_;  // every block's edge bobs, ascending
  std::vector<PendulumState> saved_;      // the committed states of the edge bobs
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<char> restart_;            // per block: runs ahead again from the next committed step
  std::vector<char> involved_;           // per block, at the step being checked
  std::vector<const AheadStep*> front_;  // per block, its step being checked (null: failed)
  std::vector<std::uint32_t> left_of_block_;
  std::vector<std::uint64_t> reached_;  // for the observer
};

}  // namespace kausal
