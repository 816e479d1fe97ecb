#pragma once
// The Block component without transport (--layout block-processes:K, docs/architecture.md
// "Blocks"): one block of a chain's pendulums in a process of its own, which steps its
// pendulums and settles the contacts inside as the monitor asks (PendulumBlock), keeping its
// states between calls so that only what the monitor changed travels. Every value that
// arrives from outside is checked first (docs/architecture.md, "Limits on what one call may
// demand"): a bad parameter is a ModelError naming it, a request that breaks the protocol a
// ProtocolError naming the field; nothing is allocated or computed before.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "integrator/pendulum_block.hpp"
#include "system/activity_clock.hpp"

namespace kausal {

// What a block is set up with: its pendulums (in chain order; edges and indices are the
// block's own from now on, 0 .. n − 1) and how the chain is stepped.
struct BlockSpec {
  ChainSpec chain;
  OdeMethod method = OdeMethod::euler;
  double t0 = 0;
  double h = 0;
};

// One call: from the block's states at step `from`, `steps` steps.
struct BlockRequest {
  std::uint64_t from = 0;
  // true: `states` are all of the block's states at `from` (a fresh start, or after a
  // rollback). false: the block is at `from` since its last reply, and `states` are the
  // states of the pendulums `changed` (ascending) that the monitor changed since.
  bool restart = false;
  std::vector<std::uint32_t> changed;
  std::vector<PendulumState> states;
  // Step by step: leave the clusters holding these pendulums (ascending) to the monitor
  // (steps must be 1). Empty: settle every contact inside.
  std::vector<std::uint32_t> edge;
  std::uint64_t steps = 1;
};

struct BlockReply {
  std::vector<PendulumState> states;  // every step's, step after step (the steps taken)
  std::vector<std::uint32_t> left;    // with edge: the pendulums left to the monitor
  std::vector<std::uint64_t> impacts;  // per step taken
  std::uint64_t calc_calls = 0;        // since set-up
  std::chrono::nanoseconds computed{};
};

// The most pendulums one block may hold (a chain's most, monitor/scenario/scenario_limits).
inline constexpr std::size_t kMaxBlockPendulums = 2'000'000;

class BlockCore {
 public:
  explicit BlockCore(std::string name) : name_(std::move(name)) {}

  // ModelError naming the pendulum and parameter, ProtocolError for a size beyond the
  // limits. May be called again (a new run in the same process).
  void set_up(BlockSpec spec);
  // Computes at least one step and at most request.steps, answering after
  // limits::work_per_call with the steps it took. ProtocolError for a request that does
  // not fit the block (not set up, a step it is not at, indices, sizes), ModelError for a
  // state that is not finite, SimulationError as the sweep fails (the block then needs a
  // restart).
  BlockReply advance(const BlockRequest& request);

  std::size_t pendulums() const { return block_ ? spec_.chain.pendulums.size() : 0; }
  ActivityClock& clock() { return clock_; }

 private:
  void check(const BlockRequest& request) const;

  std::string name_;
  BlockSpec spec_;
  std::unique_ptr<PendulumBlock> block_;
  std::vector<PendulumState> states_;
  std::optional<std::uint64_t> at_;  // the step states_ hold; none before a restart
  ActivityClock clock_;
};

}  // namespace kausal
