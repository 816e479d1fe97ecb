#pragma once
// Every System and Integrator in this process, called directly (fast, exact tests of the
// synchronisation algorithms; no omniORB involved).
#include <memory>

#include "integrator/local_system_link.hpp"
#include "monitor/integrator_port.hpp"
#include "monitor/scenario.hpp"

namespace kausal {

class LocalDeployment final : public Deployment {
 public:
  explicit LocalDeployment(const Scenario& scenario);
  ~LocalDeployment() override;
  std::size_t size() const override { return parts_.size(); }
  IntegratorPort& integrator(std::size_t i) override;
  std::vector<ComponentReport> reports() override;

 private:
  struct Pendulum;
  std::vector<std::unique_ptr<Pendulum>> parts_;
};

// The names every deployment gives the components of pendulum i (0-based index).
std::string system_name(std::size_t i);
std::string integrator_name(std::size_t i);

}  // namespace kausal
