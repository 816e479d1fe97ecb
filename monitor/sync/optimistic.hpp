#pragma once
// The optimistic monitor (docs/model.md §3, state lists). Integrators run ahead
// by themselves (integrator/worker.hpp) and ship their states in batches; the monitor
// checks the steps in order, as the sequential method does, once every pendulum has
// reached the step. An impact at step s rolls the pendulums concerned back to s: their
// states after s are discarded, the impulse is applied as an event, and a new epoch starts;
// batches of an older epoch that arrive later are stale and dropped. GVT is the next step
// to check; commits let each Integrator free its state list and run on up to GVT + window.
#include <deque>
#include <optional>

#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/integrator_port.hpp"

namespace kausal {

struct OptimisticOptions {
  // Defaults measured best (or tied) on thesis.toml and heterogeneous.toml among
  // W = 16 .. 512, B = 4 .. 64 (docs/performance.md).
  std::size_t batch_size = 32;  // states per batch an Integrator ships
  std::uint64_t window = 128;   // steps an Integrator may run ahead of the last commit
};

class OptimisticStepper final : public ChainStepper {
 public:
  // Starts every Integrator running ahead from `first_step` (0, or where a resumed run
  // continues; the deployment's Integrators must stand there).
  OptimisticStepper(Deployment& deployment, const Scenario& scenario,
                    const OptimisticOptions& options = {}, std::uint64_t first_step = 0);
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  MethodCounters counters() const override { return counters_; }
  std::vector<ComponentReport> reports() override { return deployment_.reports(); }

 private:
  // What the monitor knows of one pendulum's speculative future.
  struct Track {
    std::uint32_t epoch = 0;
    std::uint64_t next_step = 1;      // the step the next state received must have
    std::deque<PendulumState> ahead;  // states of steps next_step - ahead.size() ..
    std::uint64_t committed = 0;      // last gvt sent with commit()
    bool held = false;                // rolled back, waiting for a commit to run on
    std::uint64_t rolled_back_at = ~0ULL;
    // The Integrator could not compute this step in this epoch: fatal once the monitor
    // needs the step, void if a rollback comes first.
    std::optional<std::uint64_t> fails_at;
    std::exception_ptr failure;
  };

  void release_and_extend(std::uint64_t m);
  void wait_for(std::uint64_t step);
  void file(const InboxItem& item);

  Deployment& deployment_;
  const Scenario& scenario_;
  OptimisticOptions options_;
  std::vector<Track> tracks_;
  std::vector<std::uint64_t> reached_;  // for the observer, reused every step
  MethodCounters counters_;
};

}  // namespace kausal
