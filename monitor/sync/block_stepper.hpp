#pragma once
// Blocks of pendulums (--layout blocks:K, docs/architecture.md "Blocks"): the chain cut into K
// contiguous blocks, each stepped on a lane of its own with its contacts resolved inside
// (integrator/pendulum_block.hpp). Conservative, one step per round: every block steps from
// m to m + 1 and settles the clusters that touch no other block; the monitor then sweeps
// what is left, the clusters of the pendulums whose pairs cross a block boundary
// (ImpactSweep::resolve_among). Nobody computes step m + 2 before step m + 1 is settled, and
// the result is the sequential one, bit for bit, for every K. (Optimistic blocks:
// run_ahead_block_stepper.hpp; both share ChainBlocks.)
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/block_port.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/fan_out.hpp"

namespace kausal {

// The pendulums of block k of K in a chain of n: [k·n/K, (k+1)·n/K).
std::size_t block_start(std::size_t k, std::size_t blocks, std::size_t n);
// The first pendulum of each of `blocks` blocks of a chain of n, and n: in proportion to
// `weights` (one per block, each > 0; monitor/sync/block_balance.hpp), equal shares
// (block_start) if it is empty. Every block holds at least one pendulum (blocks <= n).
std::vector<std::size_t> block_starts(std::size_t blocks, std::size_t n,
                                      std::span<const double> weights = {});

// InputError unless 1 <= blocks <= pendulums.
void check_block_count(std::size_t blocks, std::size_t pendulums);

// Block k's name (from 1) in reports, the trace and the live view: "block-1".
std::string block_name(std::size_t k);

// Block k of `blocks`, pendulums first .. last − 1 of the scenario's chain, where the run
// places it. Null: in this process (LocalBlockPort).
using BlockPorts =
    std::function<std::unique_ptr<BlockPort>(std::size_t k, std::size_t first, std::size_t last)>;

struct BlockOptions {
  std::size_t blocks = 2;            // 1 <= blocks <= the chain's pendulums
  std::vector<int> lane_cpus;        // as FanOut: empty for unpinned lanes
  BlockPorts ports = nullptr;        // where the blocks are; null: in this process
  bool rollback_check = false;       // in this process: every step taken twice (PendulumBlock)
  std::vector<double> weights = {};  // per block, its share of the pendulums; empty: equal shares
};

// The K blocks of a chain and what every way of running them needs: per block its port, its
// clock and its edge bobs, the pendulums with a pair (within reach) in another block,
// ascending. Only edge bobs can take part in a contact that crosses a boundary.
struct ChainBlocks {
  // rollback_check: of the blocks in this process (the ports set up their blocks).
  // weights: as block_starts.
  ChainBlocks(const Scenario& scenario, std::size_t blocks, const BlockPorts& ports = nullptr,
              bool rollback_check = false, std::span<const double> weights = {});
  std::size_t size() const { return blocks.size(); }
  // Block k's pendulums: first(k) .. last(k) − 1.
  std::size_t first(std::size_t k) const { return starts[k]; }
  std::size_t last(std::size_t k) const { return starts[k + 1]; }
  std::size_t pendulums_of(std::size_t k) const { return last(k) - first(k); }
  // The block that holds pendulum i.
  std::size_t block_of(std::size_t i) const;
  // Block k's states in the chain's `states`.
  std::span<PendulumState> of(std::size_t k, std::span<PendulumState> states) const {
    return states.subspan(first(k), pendulums_of(k));
  }
  // BlockPort::step of block k on its part of `states`, its busy time on its clock.
  std::uint64_t step(std::size_t k, std::uint64_t m, std::span<PendulumState> states,
                     std::vector<std::uint32_t>& left);
  // Books the busy time of block k's last call, which ended at `end`, on its clock.
  void book(std::size_t k, ActivityClock::Clock::time_point end, SpanTag tag);
  // Per block: where it runs, its busy time, Calcs and trace (a block's clock must be at
  // rest).
  std::vector<ComponentReport> reports() const;

  std::size_t pendulums;
  std::vector<std::size_t> starts;  // block k: starts[k] .. starts[k + 1] − 1
  std::vector<std::unique_ptr<BlockPort>> blocks;
  std::vector<ActivityClock> clocks;
  std::vector<std::vector<std::uint32_t>> edges;
  std::vector<BobPair> cross_pairs;  // the pairs within reach whose bobs are in two blocks
};

// A stepper of a chain in blocks, conservative or optimistic: after each step it tells the
// driver what the blocks left to the monitor's sweep.
class BlockedChainStepper : public ChainStepper {
 public:
  std::optional<SweepShare> resolved_inside() const override {
    return SweepShare{left_, impacts_inside_};
  }
  // The steppers' counters, and the Calcs blocks in processes computed ahead and dropped.
  MethodCounters counters() const override;

 protected:
  BlockedChainStepper(const Scenario& scenario, std::size_t blocks, const BlockPorts& ports,
                      bool rollback_check, std::span<const double> weights)
      : scenario_(scenario), parts_(scenario, blocks, ports, rollback_check, weights) {}
  // Applies an angular impulse to pendulum i of `states`.
  void kick(std::size_t i, double impulse, std::span<PendulumState> states) const;

  const Scenario& scenario_;
  ChainBlocks parts_;
  std::vector<std::uint32_t> left_;  // all blocks' left pendulums, ascending
  std::uint64_t impacts_inside_ = 0;
  MethodCounters counters_;
};

class BlockStepper final : public BlockedChainStepper {
 public:
  BlockStepper(const Scenario& scenario, const BlockOptions& options);
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t, double impulse,
                     std::span<PendulumState> states) override {
    kick(i, impulse, states);
  }
  // (Each block and its clock are used on its lane only.)
  std::vector<ComponentReport> reports() override { return parts_.reports(); }

 private:
  FanOut fan_;
  std::vector<std::vector<std::uint32_t>> left_per_block_;
  std::vector<std::uint64_t> impacts_per_block_;
};

}  // namespace kausal
