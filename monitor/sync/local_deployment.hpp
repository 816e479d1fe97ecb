#pragma once
// Every System and Integrator in this process, called directly (fast, exact tests of the
// synchronisation algorithms; no omniORB involved).
#include <chrono>
#include <memory>

#include "integrator/local_model_link.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/integrator_port.hpp"

namespace kausal {

struct LocalDeploymentOptions {
  // Test hook: every batch an optimistic Integrator ships is held this long before it
  // reaches the inbox, so that rollbacks overtake batches already on their way.
  std::chrono::milliseconds delivery_delay{0};
  bool rollback_check = false;        // see IntegratorConfig::rollback_check
  const ChainStart* start = nullptr;  // a resumed run: Integrators start there, not at step 0
};

class LocalDeployment final : public Deployment {
 public:
  explicit LocalDeployment(const Scenario& scenario, const LocalDeploymentOptions& options = {});
  ~LocalDeployment() override;
  std::size_t size() const override { return parts_.size(); }
  IntegratorPort& integrator(std::size_t i) override;
  BatchInbox& inbox() override { return inbox_; }
  std::vector<ComponentReport> reports() override;

 private:
  struct Pendulum;
  BatchInbox inbox_;  // declared first: the pendulums' workers deliver into it until they end
  std::vector<std::unique_ptr<Pendulum>> parts_;
};

// The names every deployment gives the components of pendulum i (0-based index).
std::string system_name(std::size_t i);
std::string integrator_name(std::size_t i);

}  // namespace kausal
