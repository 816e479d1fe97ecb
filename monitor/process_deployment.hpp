#pragma once
// The components of a run on this host, in one of three layouts (docs/architecture.md):
//  - process:  one kausal-system and one kausal-integrator process per pendulum (default);
//  - pendulum: one kausal-pendulum process per pendulum, hosting both;
//  - single:   every servant in the monitor's own process, in a collocated POA.
// Object references are handed over by the launcher (read from each child's stdout), so no
// naming service is needed. In every layout the monitor drives the Integrators through
// CORBA ports, and every Integrator calls its System through its object reference.
#include <chrono>
#include <filesystem>
#include <memory>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/child_process.hpp"
#include "monitor/integrator_port.hpp"
#include "monitor/scenario.hpp"

namespace kausal {

enum class Layout { process, pendulum, single };
const char* layout_name(Layout layout);
// "process" | "pendulum" | "single"; throws InputError otherwise.
Layout parse_layout(const std::string& name);

struct LaunchOptions {
  std::filesystem::path bin_dir;    // where kausal-system and kausal-integrator are
  std::filesystem::path log_dir;    // each child's stderr goes to log_dir/NAME.log
  unsigned call_timeout_ms = 3000;  // calls between components (Integrator -> System)
  std::chrono::milliseconds startup_timeout{10000};
  // Empty: the OS places the processes. Otherwise the process(es) of pendulum i (its System
  // and Integrator, or its kausal-pendulum) are pinned to cpus[i % cpus.size()] (see FanOut
  // for why). The single layout starts no process: nothing to pin here.
  std::vector<int> cpus;
  bool rollback_check = false;  // see IntegratorConfig::rollback_check
  Layout layout = Layout::process;
};

class ProcessDeployment final : public Deployment {
 public:
  // Starts, checks (interface version) and sets up every component. Throws PeerError
  // naming a component that does not start or answer, VersionMismatch, ModelError.
  ProcessDeployment(const Scenario& scenario, OrbRuntime& orb, const LaunchOptions& options);
  // Ends every child that is still running (by PID) and reaps it; releases the servants
  // hosted in this process.
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
  // Children that are no longer running, with how they ended, the components they hosted
  // and where their log is.
  std::string post_mortem();

 private:
  struct Component;
  void start(const Scenario& scenario, const LaunchOptions& options);
  void start_children(const Scenario& scenario, const LaunchOptions& options);
  void host_here(const Scenario& scenario);
  // Ends every child, deactivates the sink, removes the socket directory.
  void release();
  void set_up(const Scenario& scenario, const LaunchOptions& options);

  OrbRuntime& orb_;
  Layout layout_;
  std::shared_ptr<BatchInbox> inbox_ = std::make_shared<BatchInbox>();
  PortableServer::ServantBase* sink_servant_ = nullptr;  // owned by the POA once active
  idl::StateSink_var sink_;
  std::filesystem::path socket_dir_;
  std::vector<std::unique_ptr<Component>> components_;   // system-1, integrator-1, system-2, ...
  std::vector<std::shared_ptr<ChildProcess>> children_;  // each once (a process may host two)
  // Single layout: the collocated POA and our own reference to every servant in it (system-1,
  // integrator-1, ...), so that they are deleted in an order we choose.
  std::unique_ptr<CollocatedAdapter> adapter_;
  std::vector<PortableServer::ServantBase*> hosted_;
  std::vector<std::unique_ptr<IntegratorPort>> ports_;
};

}  // namespace kausal
