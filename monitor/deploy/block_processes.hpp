#pragma once
// The blocks of a chain as kausal-block processes (--layout block-processes:K,
// docs/architecture.md "Blocks"): one process per block, started through ComponentSet (on
// this host, or on the node agents a deployment file names), set up with its pendulums and
// reached through a CorbaBlockPort. The steppers of blocks drive them exactly as they drive
// blocks on the monitor's threads.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "monitor/deploy/component_set.hpp"
#include "monitor/deploy/deployment_plan.hpp"
#include "monitor/deploy/heartbeat.hpp"
#include "monitor/sync/block_port.hpp"

namespace kausal {

// A block in a process. It keeps its states between calls, so a call carries only the
// states the monitor changed since the block's last reply (its impulses), or all of them
// after a restart (a rollback, a push, the first call); the reply carries every state of
// every step taken, which the monitor commits.
class CorbaBlockPort final : public BlockPort {
 public:
  // `component`: the block as launched (name, host, pid); pendulums first .. last − 1.
  // `heartbeat` (may be null): the blocks' liveness, whose verdict a failed call reports.
  CorbaBlockPort(const LaunchedComponent& component, idl::Block_ptr ref, std::size_t first,
                 std::size_t last, const Heartbeat* heartbeat);

  // About 4 MiB of states per reply: a round trip per few milliseconds of work at most.
  std::uint64_t steps_per_call(std::size_t pendulums) const override;
  std::uint64_t least_stretch_calcs() const override { return 0; }
  std::uint64_t calc_calls() const override { return calc_calls_; }
  std::uint64_t discarded_calc_calls() const override { return discarded_calc_calls_; }
  std::uint64_t bytes() const override { return bytes_; }
  Duration computed() const override { return computed_; }
  BlockPlace place() const override { return place_; }

 private:
  std::uint64_t step_once(std::uint64_t m, std::span<PendulumState> mine,
                          std::span<const std::uint32_t> edge,
                          std::vector<std::uint32_t>& left) override;
  std::uint64_t run_steps(std::uint64_t m, std::span<PendulumState> mine, std::uint64_t steps,
                          std::uint64_t limit, std::vector<PendulumState>& states,
                          std::vector<std::uint64_t>& impacts) override;
  // The request from the monitor's states at m: what changed since the block's reply, or
  // all of them if the block is not at m.
  idl::BlockAdvance request(std::uint64_t m, std::span<const PendulumState> mine);
  // Calls advance and checks the reply: at least one step and at most `steps`, whole
  // states, left pendulums of the block. Returns the steps taken.
  std::uint64_t call(const idl::BlockAdvance& request, std::uint64_t steps,
                     idl::BlockSteps_var& reply);

  std::string name_;
  const Heartbeat* heartbeat_;
  BlockPlace place_;
  idl::Block_var ref_;
  std::size_t first_, pendulums_;
  std::vector<PendulumState> shadow_;  // the block's states as of its last reply
  std::uint64_t at_ = 0;               // the step of shadow_
  bool known_ = false;                 // shadow_ is what the block holds
  std::uint64_t calc_calls_ = 0;
  // Read by the monitor's thread while the block's lane may call (the counters).
  std::atomic<std::uint64_t> discarded_calc_calls_{0};
  std::atomic<std::uint64_t> bytes_{0};
  Duration computed_{};
};

class BlockProcesses final : public PlacedBlocks {
 public:
  // Starts one kausal-block per block of the plan (logs in options.log_dir, named as the
  // plan names them). Throws PeerError naming a block that does not start or answer,
  // VersionMismatch, InputError for a run beyond the process budget.
  BlockProcesses(const std::vector<BlockPlan>& plan, OrbRuntime& orb, const LaunchOptions& options);
  ~BlockProcesses() override;

  // Sets block k up as the plan says (ModelError, PeerError naming it; ProtocolError if the
  // plan's block k holds other pendulums).
  std::unique_ptr<BlockPort> port(std::size_t k, std::size_t first, std::size_t last) override;
  std::string post_mortem() override { return set_.post_mortem(); }
  void shutdown() override;

 private:
  const std::vector<BlockPlan> plan_;
  ComponentSet set_;
  // A stopped block is found by its heartbeat and its process ended, so that the call
  // waiting for it returns at once.
  std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace kausal
