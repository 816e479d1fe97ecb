#pragma once
// Blocks of pendulums that run ahead (--layout blocks:K, docs/architecture.md "Blocks"). Each
// block runs ahead on a thread of its own, settles every contact inside it as if no other
// block existed, and keeps the states of the steps it ran ahead (its state list). How far:
//
// - Optimistic (--method optimistic): up to a window past the last commit. The monitor
//   checks the steps in order. At step s it looks at the edge bobs only (the pendulums with a
//   pair within reach in another block). If no pair of them across a boundary may be in
//   contact, every block's step s is the sequential one and commits as it is: the sweep falls
//   apart into clusters that settle alone (integrator/pendulum_block.hpp), and an impulse
//   changes no angle, so the angles a block reached say which pairs are candidates. Otherwise
//   the blocks holding such a pair roll back alone: their steps from s on are discarded, step
//   s is computed again as the conservative blocks compute it (the clusters at their edges
//   left to the monitor's sweep), and they run ahead again from the committed step s. The
//   other blocks keep their state lists.
// - Conservative with a lookahead per boundary (--method conservative --guarantee lookahead):
//   only as far as the monitor has proved that no pair across a boundary of the block can be
//   in contact (monitor/sync/block_horizon.hpp, docs/lookahead.md Part IV), so nothing is ever
//   rolled back. A block with no step granted steps here, as the conservative blocks do. The
//   monitor still looks at every committed step: a pair across a boundary in contact, or a
//   block whose kinetic energy left its bound, stops the run (the proof would not hold).
//
// Either way the result is the sequential one, bit for bit.
#include <memory>
#include <optional>
#include <vector>

#include "monitor/sync/block_horizon.hpp"
#include "monitor/sync/block_stepper.hpp"

namespace kausal {

struct RunAheadBlockOptions {
  std::size_t blocks = 2;      // 1 <= blocks <= the chain's pendulums
  std::vector<int> lane_cpus;  // block k's thread on lane_cpus[k % size]; empty: unpinned
  std::uint64_t window = 128;  // steps a block may run ahead of the last commit (>= 1)
  // optimistic: as far as the window; conservative: as far as granted, within the window
  SyncMethod method = SyncMethod::optimistic;
  BlockPorts ports = nullptr;        // where the blocks are; null: in this process
  bool rollback_check = false;       // in this process: every step taken twice (PendulumBlock)
  std::vector<double> weights = {};  // per block, its share of the pendulums; empty: equal shares
};

// The states a block may hold ahead, over all blocks: 2^22 (64 MiB). A long chain runs
// ahead fewer steps than the window says rather than take memory in proportion to N·window.
inline constexpr std::uint64_t kBlockStateBudget = std::uint64_t{1} << 22;

// The window a chain of `pendulums` runs ahead with: `window`, but at most
// kBlockStateBudget / pendulums steps, and at least 1.
std::uint64_t block_window(std::uint64_t window, std::size_t pendulums);

class RunAheadBlockStepper final : public BlockedChainStepper {
 public:
  RunAheadBlockStepper(const Scenario& scenario, const RunAheadBlockOptions& options);
  ~RunAheadBlockStepper() override;
  RunAheadBlockStepper(const RunAheadBlockStepper&) = delete;
  RunAheadBlockStepper& operator=(const RunAheadBlockStepper&) = delete;

  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  void push(std::size_t i, std::uint64_t m, double impulse,
            std::span<PendulumState> states) override;
  std::vector<ComponentReport> reports() override;

 private:
  struct AheadStep;
  struct Lane;

  void run_ahead(std::size_t k);  // block k's thread
  void run_ahead_until_stopped(std::size_t k);
  // The last step block k may compute once step `committed` is committed.
  std::uint64_t limit_after(std::size_t k, std::uint64_t committed) const;
  // Conservative: a new grant from the committed states of step m, when the last is half
  // used up. Whether it granted.
  bool grant_if_due(std::uint64_t m, std::span<const PendulumState> states);
  // Conservative: the blocks stepped here (restart_) at step m, now swept and committed, kept
  // their kinetic norms within the open grants' bounds (block_horizon.hpp).
  void check_stepped_here(std::uint64_t m, std::span<const PendulumState> states);
  // Whether block k's thread computes step `step`.
  bool runs_to(std::size_t k, std::uint64_t step);
  // Stops block k's thread after the step it is computing: the monitor then owns the block.
  void halt(std::size_t k);
  // Drops block k's state list (steps after m), as rolled back when optimistic.
  // Returns the steps dropped.
  std::uint64_t discard(std::size_t k, std::uint64_t m);
  // Counts block k as rolled back to step m, and tells the observer for each of its pendulums.
  void rolled_back(std::size_t k, std::uint64_t m);
  // Block k runs ahead again from the committed states of step m.
  void restart(std::size_t k, std::uint64_t m, std::span<const PendulumState> states);
  // Step m is committed: block k may run further.
  void extend(std::size_t k, std::uint64_t m);
  // Waits for block k's step; nullptr if computing it failed (to be computed again where the
  // failure shows at its step). Throws the PeerError of a block out of reach.
  const AheadStep* wait_for(std::size_t k, std::uint64_t step);
  // Which blocks hold a pair of edge bobs across a boundary that may be in contact at the
  // step being checked.
  void find_involved(std::span<PendulumState> states, bool any_failed);
  // Conservative: SimulationError if a pair across a boundary of a block that ran ahead is in
  // contact at the step taken.
  void check_apart(std::span<PendulumState> states, std::uint64_t step);
  void take(std::size_t k, std::span<PendulumState> states);
  // Conservative: the blocks whose threads do not compute step m + 1 (nothing granted, or
  // too little to be worth a wake-up) step as the step-by-step blocks do, on the lanes of a
  // FanOut, their edge clusters left to the monitor's sweep.
  void step_ungranted(std::uint64_t m, std::span<PendulumState> states);
  // Steps block k from m here, its edge clusters left to the monitor's sweep.
  void step_here(std::size_t k, std::uint64_t m, std::span<PendulumState> states);
  void redo(std::size_t k, std::uint64_t m, std::span<PendulumState> states);
  void tell_horizon(std::uint64_t m);

  std::vector<int> cpus_;
  std::uint64_t window_;
  bool optimistic_;
  std::optional<BlockHorizon> horizon_;      // conservative
  std::vector<BlockHorizon::Grant> grants_;  // the grants whose steps are not all committed
  std::vector<std::uint64_t> granted_;       // per block: the last step granted
  std::uint64_t next_grant_ = 0;             // the committed step to grant anew at
  std::optional<FanOut> fan_;                // conservative: steps without a grant
  std::vector<std::vector<std::uint32_t>> left_per_block_;
  std::vector<std::uint64_t> impacts_per_block_;
  ImpactSweep sweep_;
  std::vector<std::uint32_t> all_edges_;  // every block's edge bobs, ascending
  std::vector<PendulumState> saved_;      // the committed states of the edge bobs
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<char> restart_;            // per block: runs ahead again from the next committed step
  std::vector<char> involved_;           // per block, at the step being checked
  std::vector<char> on_thread_;          // per block: its thread computes the step being checked
  std::vector<const AheadStep*> front_;  // per block, its step being checked (null: failed)
  std::vector<std::uint32_t> left_of_block_;
  std::vector<std::uint64_t> reached_;  // for the observer
};

}  // namespace kausal
