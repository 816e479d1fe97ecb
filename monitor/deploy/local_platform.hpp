#pragma once
// A platform (monitor/deploy/run_platform.hpp) that places every component in this process:
// Integrators on worker threads, Systems called directly (LocalDeployment). No ORB, no
// processes, no live view; the layout and the CPUs asked for are ignored. Tests run the
// kausal command's runs through it in one process.
#include <functional>
#include <memory>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/deploy/run_platform.hpp"

namespace kausal {

class LocalPlatform final : public RunPlatform {
 public:
  std::unique_ptr<Deployment> deploy(const DeploymentPlan& plan, const Placing&) override {
    return std::make_unique<LocalDeployment>(plan);
  }

  // Told the clock of a run paced by ticks when it starts, and nullptr when it ends: a test
  // ticks it from another thread.
  std::function<void(StepClock*)> on_clock;
  // Told the Operator of a paced run when it starts, and nullptr when it ends.
  std::function<void(Operator*)> on_operator;

  std::shared_ptr<void> serve_operator(Operator& op, const std::filesystem::path&) override {
    if (!on_operator) return nullptr;
    on_operator(&op);
    return {this, [](LocalPlatform* p) { p->on_operator(nullptr); }};
  }

  std::shared_ptr<void> serve_clock(StepClock& clock, const std::filesystem::path&) override {
    if (!on_clock) return nullptr;
    on_clock(&clock);
    return {this, [](LocalPlatform* p) { p->on_clock(nullptr); }};
  }
};

}  // namespace kausal
