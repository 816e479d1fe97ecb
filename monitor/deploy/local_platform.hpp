#pragma once
// A platform (monitor/run/run_platform.hpp) that places every component in this process:
// Integrators on worker threads, Systems called directly (LocalDeployment). No ORB, no
// processes, no live view; the layout and the CPUs asked for are ignored. Tests run the
// kausal command's runs through it in one process.
#include <memory>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/run/run_platform.hpp"

namespace kausal {

class LocalPlatform final : public RunPlatform {
 public:
  std::unique_ptr<Deployment> deploy(const DeploymentPlan& plan, const Placing&) override {
    return std::make_unique<LocalDeployment>(plan);
  }
};

}  // namespace kausal
