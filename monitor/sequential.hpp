#pragma once
// The in-process reference: every pendulum stepped in turn by one thread, the model inlined.
#include "integrator/stepper.hpp"
#include "monitor/chain_stepper.hpp"
#include "monitor/scenario.hpp"

namespace kausal {

class SequentialStepper final : public ChainStepper {
 public:
  explicit SequentialStepper(const Scenario& scenario);
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  std::vector<ComponentReport> reports() override;

 private:
  const Scenario& scenario_;
  StepWork<PendulumState> work_;
  ActivityClock clock_;
};

}  // namespace kausal
