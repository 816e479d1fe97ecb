#pragma once
// The partitions of a partitioned model (docs/model.md §4) as CORBA components on this host: per
// partition a System ("system-<partition>") and an Integrator ("integrator-<partition>") in
// the layouts of process_deployment.hpp — two processes, one kausal-pendulum process hosting
// both ("pendulum", alias "pair"), or every servant in the monitor's process ("single").
// The Integrators step by themselves and deliver their final steps to a PartitionSink
// servant in the monitor, which fills the deployment's inbox; cosim_driver does the rest.
// A component whose process dies or misses its heartbeat (monitor/deploy/heartbeat.hpp) becomes a
// failure in the inbox (a PeerError naming it) within the call timeout + 0.5 s.
#include <memory>
#include <string>
#include <vector>

#include "monitor/deploy/component_set.hpp"
#include "monitor/deploy/heartbeat.hpp"
#include "monitor/sync/cosim_plan.hpp"
#include "monitor/sync/partition_port.hpp"

namespace kausal {

class CosimProcessDeployment final : public CosimDeployment {
 public:
  // Starts, checks (interface version) and configures every component; throws PeerError
  // naming a component that does not start or answer, VersionMismatch, ModelError.
  CosimProcessDeployment(const CosimScenario& s, const CosimPlan& plan, OrbRuntime& orb,
                         const LaunchOptions& options, std::size_t steps_per_batch = 64);
  // Ends every child still running (by PID) and reaps it; releases hosted servants.
  ~CosimProcessDeployment() override;

  std::size_t size() const override { return ports_.size(); }
  PartitionPort& partition(std::size_t p) override;
  PartitionInbox& inbox() override { return *inbox_; }
  std::vector<ComponentReport> reports() override { return components_.reports(); }

  // As in ProcessDeployment.
  void observe(idl::Animation_ptr view) { components_.observe(view); }
  std::vector<std::string> component_names() const { return components_.names(); }
  std::vector<TraceSource> trace_sources() { return components_.trace_sources(); }
  void shutdown();
  std::string post_mortem() { return components_.post_mortem(); }

 private:
  class Port;
  void set_up(const CosimScenario& s, const CosimPlan& plan, std::size_t steps_per_batch);
  void release();

  OrbRuntime& orb_;
  std::shared_ptr<PartitionInbox> inbox_ = std::make_shared<PartitionInbox>();
  PortableServer::ServantBase* sink_servant_ = nullptr;  // owned by the POA once active
  idl::PartitionSink_var sink_;
  ComponentSet components_;
  std::vector<std::unique_ptr<Port>> ports_;
  std::unique_ptr<Heartbeat> heartbeat_;  // last: it pings what the members above hold
};

// The monitor's ORB for callers that have none: created on the first call and kept until
// exit (omniORB allows one ORB per process; its call timeout is that first call's
// call_timeout_ms + 1 s, so that a hung System is reported by its Integrator first). A
// program that has its own OrbRuntime passes it instead.
std::unique_ptr<CosimDeployment> launch_cosim_processes(const CosimScenario& s,
                                                        const CosimPlan& plan,
                                                        const LaunchOptions& options);
// That ORB (created by the first call, with that call's timeout), for others in the process
// that need one too.
OrbRuntime& monitor_orb(unsigned call_timeout_ms);
std::unique_ptr<CosimDeployment> launch_cosim_processes(const CosimScenario& s,
                                                        const CosimPlan& plan,
                                                        const LaunchOptions& options,
                                                        OrbRuntime& orb);

}  // namespace kausal
