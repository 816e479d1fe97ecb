#pragma once
// The Block component without transport (--layout block-processes:K, docs/architecture.md
// "Blocks"): one block of a chain's pendulums in a process of its own, which steps its
// pendulums and settles the contacts inside as the monitor asks (PendulumBlock), keeping its
// states between calls so that only what the monitor changed travels.
//
// Running ahead (a request without edges), the block goes on computing after it answers, on
// a thread of its own, up to the limit the monitor gave (its window or its grant), and keeps
// those steps (its state list): the next request takes them at once, so the block computes
// while its reply travels and the monitor works. A request that changes a state, or starts
// again from another step, drops them (counted as discarded).
//
// Every value that arrives from outside is checked first (docs/architecture.md, "Limits on
// what one call may demand"): a bad parameter is a ModelError naming it, a request that breaks
// the protocol a ProtocolError naming the field; nothing is allocated or computed before.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/activity_clock.hpp"
#include "integrator/pendulum_block.hpp"

namespace kausal {

// What a block is set up with: its pendulums (in chain order; edges and indices are the
// block's own from now on, 0 .. n − 1) and how the chain is stepped.
struct BlockSpec {
  ChainSpec chain;
  OdeMethod method = OdeMethod::euler;
  double t0 = 0;
  double h = 0;
  bool rollback_check = false;  // every step taken twice, the second from restored states
};

// One call: from the block's states at step `from`, up to `steps` steps.
struct BlockRequest {
  std::uint64_t from = 0;
  // true: `states` are all of the block's states at `from` (a fresh start, or after a
  // rollback). false: the block is at `from` since its last reply, and `states` are the
  // states of the pendulums `changed` (ascending) that the monitor changed since.
  bool restart = false;
  std::vector<std::uint32_t> changed;
  std::vector<PendulumState> states;
  // Step by step: leave the clusters holding these pendulums (ascending) to the monitor
  // (steps must be 1). Empty: run ahead, settling every contact inside.
  std::vector<std::uint32_t> edge;
  std::uint64_t steps = 1;
  // Running ahead: the last step the block may compute after answering (at most its state
  // list's budget ahead; below from + steps: none).
  std::uint64_t limit = 0;
};

struct BlockReply {
  std::vector<PendulumState> states;       // every step's, step after step (the steps taken)
  std::vector<std::uint32_t> left;         // with edge: the pendulums left to the monitor
  std::vector<std::uint64_t> impacts;      // per step taken
  std::uint64_t calc_calls = 0;            // since set-up, every step computed
  std::uint64_t discarded_calc_calls = 0;  // since set-up: of steps computed ahead and dropped
  std::chrono::nanoseconds computed{};     // computing the steps taken
};

// The most pendulums one block may hold (a chain's most, monitor/scenario/scenario_limits).
inline constexpr std::size_t kMaxBlockPendulums = 2'000'000;

// One caller at a time: set_up and advance are not to be called concurrently (BlockServant
// serialises its requests); the block's own thread is what this class synchronises with.
class BlockCore {
 public:
  explicit BlockCore(std::string name);
  // Stops the thread that runs ahead.
  ~BlockCore();
  BlockCore(const BlockCore&) = delete;
  BlockCore& operator=(const BlockCore&) = delete;

  // ModelError naming the pendulum and parameter, ProtocolError for a size beyond the
  // limits. May be called again (a new run in the same process).
  void set_up(BlockSpec spec);
  // Answers with at least one step and at most request.steps: step by step, the one step;
  // running ahead, the steps computed so far (waiting for the first: one step's work at
  // most, however far the limit reaches). ProtocolError for a request that does not fit
  // the block (not set up, a step it is not at, indices, sizes), ModelError for a state
  // that is not finite, SimulationError as the sweep fails (the block then needs a restart).
  BlockReply advance(const BlockRequest& request);

  std::size_t pendulums() const { return n_; }
  ActivityTotals totals();
  const ActivityTrace& trace() const { return clock_.trace(); }

 private:
  // One step computed ahead.
  struct Computed {
    std::vector<PendulumState> states;
    std::uint64_t impacts = 0;
    std::chrono::nanoseconds took{};
  };

  // What one step computed ahead holds: its entry and its states' allocation (with the
  // allocator's header, in 16-byte units). Counting the states alone let 2 pendulums hold
  // 2.8 times the budget.
  static constexpr std::uint64_t computed_bytes(std::size_t pendulums) {
    return sizeof(Computed) + (pendulums * sizeof(PendulumState) + 8 + 15) / 16 * 16;
  }
  void check(const BlockRequest& request) const;
  // The states at request.from, as the request says: into states_ (the thread halted).
  void take_states(const BlockRequest& request, std::unique_lock<std::mutex>& lock);
  // Stops the thread after its step in progress and drops what it computed ahead.
  void halt(std::unique_lock<std::mutex>& lock);
  BlockReply step_here(const BlockRequest& request, std::unique_lock<std::mutex>& lock);
  BlockReply take_ahead(const BlockRequest& request, std::unique_lock<std::mutex>& lock);
  void run_ahead();  // the thread
  void run_ahead_until_stopped();

  const std::string name_;
  std::size_t n_ = 0;
  std::uint64_t calcs_per_step_ = 1;
  std::uint64_t most_ahead_ = 1;  // steps the state list may hold

  std::mutex mutex_;
  std::condition_variable changed_;
  // The thread owns block_ and states_ while `computing_`; the caller otherwise.
  std::unique_ptr<PendulumBlock> block_;
  std::vector<PendulumState> states_;  // at step next_ − 1
  std::deque<Computed> ahead_;         // steps next_ − ahead_.size() .. next_ − 1
  std::uint64_t next_ = 0;             // the step the thread computes next
  std::uint64_t limit_ = 0;            // the last step it may compute
  bool computing_ = false;
  bool stopping_ = false;
  std::exception_ptr failure_;         // computing step next_ failed
  std::optional<std::uint64_t> at_;    // the step the last reply ended at (none: restart)
  std::vector<PendulumState> base_;    // the states at at_
  std::uint64_t calcs_ = 0;            // since set-up, every step computed
  std::uint64_t discarded_calcs_ = 0;  // of those, steps computed ahead and dropped
  ActivityClock clock_;  // busy time under mutex_; its trace is safe to read at any time
  std::thread thread_;
};

}  // namespace kausal
