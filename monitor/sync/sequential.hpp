#pragma once
// The in-process reference: every pendulum stepped in turn by one thread, the model inlined.
#include <chrono>

#include "integrator/stepper.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"

namespace kausal {

// The one component of a sequential run (any model kind): one thread that does everything and
// never waits, busy from start_ns to end_ns (monotonic), with every Calc of the run.
ComponentReport sequential_report(std::uint64_t start_ns, std::uint64_t end_ns,
                                  std::uint64_t calc_calls);
// The monitor thread of a distributed run (any model kind) as a component: the busy time
// and spans of `clock` (the chain's impact sweeps; a partitioned model's recording and
// routing of final steps), on this host.
ComponentReport monitor_report(const ActivityClock& clock);

class SequentialStepper final : public ChainStepper {
 public:
  explicit SequentialStepper(const Scenario& scenario);
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  std::vector<ComponentReport> reports() override;
  bool in_monitor_thread() const override { return true; }

 private:
  const Scenario& scenario_;
  std::vector<PendulumCoefficients> coefficients_;
  StepWork<PendulumState> work_;
  std::uint64_t calc_calls_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace kausal
