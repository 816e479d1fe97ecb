#pragma once
// How the monitor reaches one block of pendulums (docs/architecture.md, "Blocks"): in this
// process, on the monitor's lanes and threads (LocalBlockPort), or in a kausal-block process
// of its own, here or on another host (CorbaBlockPort, monitor/deploy/block_processes.hpp).
// The steppers of blocks (block_stepper.hpp, run_ahead_block_stepper.hpp) see blocks only
// through this, so the same algorithm runs over both transports.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "integrator/block_core.hpp"
#include "integrator/pendulum_block.hpp"
#include "monitor/scenario/scenario.hpp"

namespace kausal {

// Conservative blocks on the monitor's threads: a block's thread computes a granted stretch
// only if it holds at least this many Calcs (about 100 µs of Euler steps, more than waking
// the thread costs on a virtual machine); shorter stretches are stepped on the monitor's
// lanes, as if not granted. This chooses where steps are computed, never what they are.
inline constexpr std::uint64_t kLaneStretchCalcs = 4096;

// Where a block runs, for the reports.
struct BlockPlace {
  std::string host = "local";  // "local": this process
  long pid = 0;
  int cpu = -1;      // the CPU its process is pinned to; -1: not pinned
  std::string node;  // the node agent that started it; empty: the monitor
};

class BlockPort {
 public:
  using Duration = std::chrono::steady_clock::duration;
  virtual ~BlockPort() = default;

  // One step from m, as the step-by-step blocks take it: `mine` holds the block's states at
  // step m as the monitor has them (its impulses applied) and gets them at m + 1, every
  // contact inside settled except the clusters holding a pendulum of `edge` (chain indices,
  // ascending), whose pendulums are appended to `left` (ascending). Returns the impacts
  // applied. Throws SimulationError as the sweep does, PeerError for a block out of reach.
  std::uint64_t step(std::uint64_t m, std::span<PendulumState> mine,
                     std::span<const std::uint32_t> edge, std::vector<std::uint32_t>& left) {
    ++calls_;
    return step_once(m, mine, edge, left);
  }
  // Up to `steps` steps from m settling every contact inside, as a block running ahead takes
  // them; returns the steps taken (at least one: a process answers with what it has).
  // `mine` holds the states at m and gets the last step's; `states` gets every step's
  // (taken × mine.size(), step after step) and `impacts` each step's impacts. `limit`: the
  // last step the block may compute (a process goes on computing up to there while the
  // reply travels).
  std::uint64_t run_ahead(std::uint64_t m, std::span<PendulumState> mine, std::uint64_t steps,
                          std::uint64_t limit, std::vector<PendulumState>& states,
                          std::vector<std::uint64_t>& impacts) {
    ++calls_;
    return run_steps(m, mine, steps, limit, states, impacts);
  }
  // The calls the monitor made to it (step and run_ahead): the summary's monitor calls.
  std::uint64_t calls() const { return calls_; }
  // How many steps a block running ahead asks for in one call: 1 in this process (the
  // monitor takes each step as soon as it is there); more for a process, whose every call
  // costs a round trip.
  virtual std::uint64_t steps_per_call(std::size_t pendulums) const {
    (void)pendulums;
    return 1;
  }
  // Conservative: the fewest Calcs of a granted stretch worth handing to the block in one
  // run_ahead; shorter stretches go step by step. Here: kLaneStretchCalcs, a thread's
  // wake-up. A process answers any stretch in one call, against a call per step otherwise.
  virtual std::uint64_t least_stretch_calcs() const { return kLaneStretchCalcs; }
  // Calcs since the block was made.
  virtual std::uint64_t calc_calls() const = 0;
  // Of those, the Calcs of steps the block computed ahead on its own and dropped unasked
  // (a process's state list; here the monitor's lanes count what they drop).
  virtual std::uint64_t discarded_calc_calls() const { return 0; }
  // The payload its calls carried, both ways (0 in this process: nothing is sent).
  virtual std::uint64_t bytes() const { return 0; }
  // How long the last call computed: its busy time (a call to a process also took the way
  // there and back, which is not the block's work).
  virtual Duration computed() const = 0;
  // Where it runs: this process, unless a process of its own.
  virtual BlockPlace place() const;

 private:
  virtual std::uint64_t step_once(std::uint64_t m, std::span<PendulumState> mine,
                                  std::span<const std::uint32_t> edge,
                                  std::vector<std::uint32_t>& left) = 0;
  virtual std::uint64_t run_steps(std::uint64_t m, std::span<PendulumState> mine,
                                  std::uint64_t steps, std::uint64_t limit,
                                  std::vector<PendulumState>& states,
                                  std::vector<std::uint64_t>& impacts) = 0;

  // Counted on the monitor's lane of the block and read after the steps it took (the lanes
  // are synchronised with the monitor's thread in between).
  std::atomic<std::uint64_t> calls_{0};
};

class LocalBlockPort final : public BlockPort {
 public:
  // `least_stretch`: see least_stretch_calcs (the unit tests hand every stretch to the
  // block's thread, however short). rollback_check: see PendulumBlock.
  LocalBlockPort(const ChainSpec& chain, OdeMethod method, double t0, double h, std::size_t first,
                 std::size_t last, std::uint64_t least_stretch = kLaneStretchCalcs,
                 bool rollback_check = false)
      : block_(chain, method, t0, h, first, last, rollback_check), least_stretch_(least_stretch) {}

  std::uint64_t least_stretch_calcs() const override { return least_stretch_; }
  std::uint64_t calc_calls() const override { return block_.calc_calls(); }
  Duration computed() const override { return computed_; }

 private:
  std::uint64_t step_once(std::uint64_t m, std::span<PendulumState> mine,
                          std::span<const std::uint32_t> edge,
                          std::vector<std::uint32_t>& left) override;
  std::uint64_t run_steps(std::uint64_t m, std::span<PendulumState> mine, std::uint64_t steps,
                          std::uint64_t limit, std::vector<PendulumState>& states,
                          std::vector<std::uint64_t>& impacts) override;

  PendulumBlock block_;
  std::uint64_t least_stretch_;
  Duration computed_{};
};

// What the block of pendulums first .. last − 1 of the scenario's chain is set up with in a
// process of its own (BlockCore).
BlockSpec block_spec(const Scenario& scenario, std::size_t first, std::size_t last,
                     bool rollback_check = false);

// Blocks a platform placed outside this process (monitor/deploy/block_processes.hpp).
class PlacedBlocks {
 public:
  virtual ~PlacedBlocks() = default;
  // Block k, pendulums first .. last − 1, set up for the run (ChainBlocks' BlockPorts).
  virtual std::unique_ptr<BlockPort> port(std::size_t k, std::size_t first, std::size_t last) = 0;
  // After a failure: how the processes that are no longer running ended ("" if none).
  virtual std::string post_mortem() = 0;
  // After a completed run: asks every process to end.
  virtual void shutdown() = 0;
};

}  // namespace kausal
