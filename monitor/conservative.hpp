#pragma once
// The thesis' conservative monitor (design.md §3): each round grants every Integrator the
// guarantee for one more step, all step in parallel, then the driver checks the impacts.
#include "monitor/chain_stepper.hpp"
#include "monitor/fan_out.hpp"
#include "monitor/integrator_port.hpp"

namespace kausal {

class ConservativeStepper final : public ChainStepper {
 public:
  // lane_cpus: see FanOut; the deployment must have pinned pendulum i's components to
  // lane_cpus[i % lane_cpus.size()] for the lanes to pay off.
  ConservativeStepper(Deployment& deployment, double t0, double h,
                      const std::vector<int>& lane_cpus = {});
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  std::uint64_t messages() const override { return messages_; }
  std::vector<ComponentReport> reports() override { return deployment_.reports(); }

 private:
  Deployment& deployment_;
  FanOut fan_;
  double t0_, h_;
  std::uint64_t messages_ = 0;
};

// Checks a state that arrived from component `from`: size and finiteness.
PendulumState checked_state(const std::string& from, std::span<const double> x);

}  // namespace kausal
