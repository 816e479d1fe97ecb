#pragma once
// A platform (monitor/deploy/run_platform.hpp) that places every pair in this process:
// Integrators on worker threads, Systems called directly (LocalDeployment). No ORB, no
// processes, no live view; the layout and the CPUs asked for are ignored. Tests run the
// kausal command's runs through it in one process.
#include <functional>
#include <memory>

#include "common/errors.hpp"
#include "monitor/deploy/local_deployment.hpp"
#include "monitor/deploy/run_platform.hpp"

namespace kausal {

class LocalPlatform final : public RunPlatform {
 public:
  // The pairs as LocalDeployment parts. Blocks and event groups run in this process only
  // in their own layouts (blocks:K, single), which place nothing: InputError.
  std::unique_ptr<Deployment> place(const ComponentPlan& plan, const Placing&) override {
    if (!plan.blocks.empty())
      throw InputError(
          "blocks run in processes of their own only from the kausal command: "
          "use --layout blocks:K");
    if (plan.event_groups)
      throw InputError("discrete-event groups run in one process here: use --layout single");
    return std::make_unique<LocalDeployment>(plan.pairs);
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
