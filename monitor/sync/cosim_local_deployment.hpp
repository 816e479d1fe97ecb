#pragma once
// Every partition's System and Integrator in this process, each Integrator stepping on its
// own thread: the distributed algorithm without transport (fast, exact tests).
#include <memory>
#include <vector>

#include "integrator/coupled_runner.hpp"
#include "monitor/sync/cosim_plan.hpp"
#include "monitor/sync/partition_port.hpp"

namespace kausal {

class CosimLocalDeployment final : public CosimDeployment {
 public:
  CosimLocalDeployment(const CosimScenario& s, const CosimPlan& plan,
                       std::size_t steps_per_batch = 64);
  ~CosimLocalDeployment() override;
  std::size_t size() const override { return parts_.size(); }
  PartitionPort& partition(std::size_t p) override;
  PartitionInbox& inbox() override { return inbox_; }
  std::vector<ComponentReport> reports() override;

 private:
  class Part;
  PartitionInbox inbox_;
  std::vector<std::unique_ptr<Part>> parts_;
};

}  // namespace kausal
