#pragma once
// One kausal-system and one kausal-integrator process per pendulum on this host; object
// references are handed over by the launcher (read from each child's stdout), so no naming
// service is needed. The monitor drives the Integrators through CORBA ports.
#include <chrono>
#include <filesystem>
#include <memory>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/child_process.hpp"
#include "monitor/integrator_port.hpp"
#include "monitor/scenario.hpp"

namespace kausal {

struct LaunchOptions {
  std::filesystem::path bin_dir;    // where kausal-system and kausal-integrator are
  std::filesystem::path log_dir;    // each child's stderr goes to log_dir/NAME.log
  unsigned call_timeout_ms = 3000;  // calls between components (Integrator -> System)
  std::chrono::milliseconds startup_timeout{10000};
  // Empty: the OS places the processes. Otherwise the System and Integrator of pendulum i
  // are pinned to cpus[i % cpus.size()] (see FanOut for why).
  std::vector<int> cpus;
  bool rollback_check = false;  // see IntegratorConfig::rollback_check
};

class ProcessDeployment final : public Deployment {
 public:
  // Starts, checks (interface version) and sets up every component. Throws PeerError
  // naming a component that does not start or answer, VersionMismatch, ModelError.
  ProcessDeployment(const Scenario& scenario, OrbRuntime& orb, const LaunchOptions& options);
  // Ends every child that is still running (by PID) and reaps it.
  ~ProcessDeployment() override;

  std::size_t size() const override { return ports_.size(); }
  IntegratorPort& integrator(std::size_t i) override { return *ports_.at(i); }
  BatchInbox& inbox() override { return *inbox_; }
  std::vector<ComponentReport> reports() override;

  // Every component sends the spans it records to `view` from now on (nil: stops).
  void observe(idl::Animation_ptr view);
  // Names of the components in the order of reports().
  std::vector<std::string> component_names() const;

  // Asks every component to shut down, then ends those that do not within a grace period.
  void shutdown();
  // Children that are no longer running, with how they ended and where their log is.
  std::string post_mortem();

 private:
  struct Component;
  void start(const Scenario& scenario, const LaunchOptions& options);
  // Ends every child, deactivates the sink, removes the socket directory.
  void release();
  void set_up(const Scenario& scenario, const LaunchOptions& options);

  OrbRuntime& orb_;
  std::shared_ptr<BatchInbox> inbox_ = std::make_shared<BatchInbox>();
  PortableServer::ServantBase* sink_servant_ = nullptr;  // owned by the POA once active
  idl::StateSink_var sink_;
  std::filesystem::path socket_dir_;
  std::vector<std::unique_ptr<Component>> components_;  // system-1, integrator-1, system-2, ...
  std::vector<std::unique_ptr<IntegratorPort>> ports_;
};

}  // namespace kausal
