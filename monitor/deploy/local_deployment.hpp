#pragma once
// Every System and Integrator of a deployment plan in this process, called directly (fast,
// exact tests of the coupling algorithms; no omniORB involved). Serves every model kind.
#include <chrono>
#include <memory>

#include "monitor/deploy/deployment_plan.hpp"
#include "monitor/sync/integrator_port.hpp"
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal {

struct LocalDeploymentOptions {
  // Test hook: every batch an Integrator ships is held this long before it reaches the
  // inbox, so that rollbacks overtake batches already on their way.
  std::chrono::milliseconds delivery_delay{0};
};

class LocalDeployment final : public Deployment {
 public:
  explicit LocalDeployment(const DeploymentPlan& plan, const LocalDeploymentOptions& options = {});
  // The chain of `scenario` from step 0 (tests; runs deploy through run()).
  explicit LocalDeployment(const Scenario& scenario, const LocalDeploymentOptions& options = {},
                           bool rollback_check = false);
  ~LocalDeployment() override;
  std::size_t size() const override { return parts_.size(); }
  IntegratorPort& integrator(std::size_t i) override;
  BatchInbox& inbox() override { return inbox_; }
  std::vector<ComponentReport> reports() override;
  std::vector<std::string> component_names() const override;

 private:
  struct Part;
  BatchInbox inbox_;  // declared first: the workers deliver into it until they end
  std::vector<std::unique_ptr<Part>> parts_;
};

// A partitioned run in this thread, its partitions in this process, in turn
// (run_partitions_in_turn). Never throws a kausal::Error: partitions that cannot be built end
// the run as any other failure.
RunResult run_partitioned_sequential(const PartitionedScenario& s, const PartitionedPlan& plan,
                                     RunControl& control, const PartitionedWatchers& watchers);

}  // namespace kausal
