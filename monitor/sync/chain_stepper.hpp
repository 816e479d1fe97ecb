#pragma once
// How a method moves the whole chain one step. The driver (chain_driver.hpp) owns the loop,
// the impact sweep and the committing; a stepper only supplies states, so every method
// shares the physics and the event order by construction.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "monitor/core/run_observer.hpp"
#include "monitor/core/run_result.hpp"
#include "system/chain.hpp"

namespace kausal {

// Where a run starts: step 0 with the scenario's initial states, or the last committed step
// of a run being resumed (monitor/record/checkpoint.hpp).
struct ChainStart {
  std::uint64_t step = 0;
  std::vector<PendulumState> states;  // at `step`
  std::uint64_t collisions = 0;       // impacts before (and at) `step`
};

// What a stepper that resolves contacts itself left of a step's sweep: the pendulums whose
// contacts the monitor must still sweep (ascending), and the impacts it applied itself.
struct SweepShare {
  std::span<const std::uint32_t> left;
  std::uint64_t impacts = 0;
};

class ChainStepper {
 public:
  virtual ~ChainStepper() = default;
  // states hold step m on entry and step m + 1 on return.
  virtual void step_all(std::uint64_t m, std::span<PendulumState> states) = 0;
  // Applies an angular impulse to pendulum i at step m and updates states[i].
  virtual void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                             std::span<PendulumState> states) = 0;
  // The operator's push on pendulum i at step m (kausal inject): an impulse from outside the
  // model, which may void what a stepper computed ahead from the state before it.
  virtual void push(std::size_t i, std::uint64_t m, double impulse,
                    std::span<PendulumState> states) {
    apply_impulse(i, m, impulse, states);
  }
  // True if the stepper computed step s under a guarantee that no impact happens there
  // (lookahead): an impulse due at s would be a causality violation.
  virtual bool guaranteed_impact_free(std::uint64_t /*s*/) const { return false; }
  // After step_all: nothing if the driver sweeps every pair, else what the stepper left to
  // sweep (the rest it resolved, exactly as the whole sweep would: blocks of pendulums).
  virtual std::optional<SweepShare> resolved_inside() const { return std::nullopt; }
  // True if the stepping runs in the monitor's own thread (the sequential reference): then
  // the monitor has no separate busy time worth two clock reads per step.
  virtual bool in_monitor_thread() const { return false; }
  virtual MethodCounters counters() const { return {}; }
  // Timing and Calc counts of the components doing the stepping (best effort after a
  // failure).
  virtual std::vector<ComponentReport> reports() = 0;
  // Who is told about the horizon and rollbacks (may be nullptr).
  void set_observer(RunObserver* observer) { observer_ = observer; }
  // The monitor's calls to the components (grant rounds, commits) as call spans: where
  // trace.json's arrows to the Integrators start.
  const ActivityTrace& monitor_calls() const { return calls_.trace(); }

 protected:
  RunObserver* observer_ = nullptr;
  ActivityClock calls_;  // call spans only: they count as no busy time
};

}  // namespace kausal
