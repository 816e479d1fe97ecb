#pragma once
// The components of a plan as CORBA components (every model kind). Its pairs (partitions,
// pendulums) in one of three layouts (docs/architecture.md):
//  - process:  one kausal-system and one kausal-integrator process per partition (default);
//  - pendulum: one kausal-pendulum process per partition, hosting both (alias "pair");
//  - single:   every servant in the monitor's own process, in a collocated POA.
// Object references are handed over by the launcher (read from each child's stdout, or
// from the node agents), so no naming service is needed. In every layout the monitor drives
// the Integrators through CORBA ports, and every Integrator calls its System through its
// object reference. Integrators that step on their own deliver to a StateSink servant in
// the monitor, which fills the deployment's inbox. Its blocks and event groups as processes
// of their own (monitor/deploy/block_processes.hpp, event_group_deployment.hpp).
#include <chrono>
#include <filesystem>
#include <memory>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/deploy/component_set.hpp"
#include "monitor/deploy/deployment_plan.hpp"
#include "monitor/deploy/heartbeat.hpp"
#include "monitor/sync/integrator_port.hpp"

namespace kausal {

class ProcessDeployment final : public Deployment {
 public:
  // Starts, checks (interface version) and sets up every component, then watches them by
  // heartbeat: one that dies or misses it fails the inbox within the call timeout + 0.5 s
  // (what a monitor waiting for batches waits on; one in a call fails by itself). Throws
  // PeerError naming a component that does not start or answer, VersionMismatch,
  // ModelError.
  ProcessDeployment(const ComponentPlan& plan, OrbRuntime& orb, const LaunchOptions& options);
  // Ends every child that is still running (by PID) and reaps it; releases the servants
  // hosted in this process.
  ~ProcessDeployment() override;

  std::size_t size() const override { return ports_.size(); }
  IntegratorPort& integrator(std::size_t i) override { return *ports_.at(i); }
  BatchInbox& inbox() override { return *inbox_; }
  PlacedBlocks* blocks() override { return blocks_.get(); }
  PlacedEventGroups* event_groups() override { return groups_.get(); }
  std::vector<ComponentReport> reports() override;

  // Every component sends the spans it records to the view from now on.
  void show_activity_in(const std::string& view) override;
  std::vector<std::string> component_names() const override;
  std::vector<TraceSource> trace_sources() override { return components_.trace_sources(); }

  // Stops the heartbeat, asks every component to shut down, then ends those that do not
  // within a grace period.
  void shutdown() override;
  // Children that are no longer running, with how they ended, the components they hosted
  // and where their log is.
  std::string post_mortem() override;

 private:
  // Deactivates the sink after the components are gone.
  void release();
  void start_pairs(const DeploymentPlan& plan, const LaunchOptions& options);
  // `tls`: the run talks TLS, so a System a node started may be sent its FMUs' archives.
  void set_up(const DeploymentPlan& plan, bool tls);

  OrbRuntime& orb_;
  std::shared_ptr<BatchInbox> inbox_ = std::make_shared<BatchInbox>();
  PortableServer::ServantBase_var sink_servant_;  // our reference; the POA's while active
  idl::StateSink_var sink_;
  ComponentSet components_;
  std::vector<std::unique_ptr<IntegratorPort>> ports_;
  std::unique_ptr<PlacedBlocks> blocks_;
  std::unique_ptr<PlacedEventGroups> groups_;
  std::unique_ptr<Heartbeat> heartbeat_;  // last: it pings what the members above hold
};

// The monitor's ORB for callers that have none (tests): created on the first call and kept
// until exit (omniORB allows one ORB per process; its call timeout is that first call's
// call_timeout_ms + 1 s, so that a hung System is reported by its Integrator first).
OrbRuntime& monitor_orb(unsigned call_timeout_ms);

}  // namespace kausal
