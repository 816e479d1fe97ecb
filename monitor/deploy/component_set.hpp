#pragma once
// The System + Integrator pairs of a run on this host, started in one of the layouts of
// process_deployment.hpp (process, pendulum, single), with everything about them that does
// not depend on what they compute: launching, handing over object references, the interface
// version check, reports (timing and traces), the activity feed, shutdown and post-mortem.
// ProcessDeployment (pendulum chains) and the partitioned-model deployment share it.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/deploy/node_directory.hpp"
#include "monitor/record/trace_writer.hpp"

namespace kausal {

// Layout, parse_layout: monitor/core/run_kind.hpp.

// Processes one run may start unless --max-processes allows more.
inline constexpr std::size_t kDefaultMaxProcesses = 256;

struct LaunchOptions {
  std::filesystem::path bin_dir;    // where kausal-system and kausal-integrator are
  std::filesystem::path log_dir;    // each child's stderr goes to log_dir/NAME.log
  unsigned call_timeout_ms = 3000;  // calls between components (Integrator -> System)
  std::chrono::milliseconds startup_timeout{10000};
  // Empty: the OS places the processes. Otherwise the process(es) of pendulum i (its System
  // and Integrator, or its kausal-pendulum) are pinned to cpus[i % cpus.size()] (see FanOut
  // for why). The single layout starts no process: nothing to pin here.
  std::vector<int> cpus;
  Layout layout = Layout::process;
  unsigned link_delay_us = 0;  // see OrbSettings::link_delay_us
  TlsFiles tls;                // the monitor's own: local children share its certificate
  // Null: every process is a child of the monitor. Otherwise node agents start them, as the
  // deployment file says (each node with its own address and certificate).
  std::shared_ptr<const RemotePlacement> remote;
  std::size_t max_processes = kDefaultMaxProcesses;  // --max-processes
};

// Before anything starts: the processes `pairs` System + Integrator pairs need in this
// layout are within options.max_processes, and the monitor can hold the file descriptors
// they take (a pipe per local child, connections to every component and back), raising its
// soft RLIMIT_NOFILE toward the hard limit if that suffices. InputError saying what to do
// otherwise.
void check_process_budget(std::size_t pairs, const LaunchOptions& options);

struct LaunchedComponent {
  std::string name;
  ComponentRole role = ComponentRole::system;  // system or integrator
  std::shared_ptr<ProcessHandle> process;      // shared when one process hosts both; null in single
  CORBA::Object_var ref;
  std::string host = "?";
  long pid = 0;
  int cpu = -1;
  std::string node;                  // the node agent that started it; empty: the monitor
  std::int64_t clock_offset_ns = 0;  // its host's monotonic clock minus the monitor's
};

// One System and the Integrator that calls it.
struct ComponentPair {
  std::string system;      // "system-1", "system-turbine"
  std::string integrator;  // "integrator-1", ...
  std::string process;     // the process hosting both in the pendulum layout: "pendulum-1"
  int cpu = -1;            // pin its process(es) to this CPU; -1: the OS places them
};

class ComponentSet {
 public:
  // Creates the private socket directory. Throws PeerError if it cannot.
  ComponentSet(OrbRuntime& orb, Layout layout);
  // Ends every child still running (by PID) and reaps it; releases hosted servants.
  ~ComponentSet();
  ComponentSet(const ComponentSet&) = delete;
  ComponentSet& operator=(const ComponentSet&) = delete;

  // Starts every pair (or hosts it here in the single layout), collects the object
  // references and checks every component's interface version. Throws PeerError naming a
  // component that does not start or answer, VersionMismatch.
  void start(const std::vector<ComponentPair>& pairs, const LaunchOptions& options);

  // What a run that would start too many processes may ask for instead (the messages of
  // the process budget): fewer of `count`, or `instead`.
  struct FewerProcesses {
    std::string count;    // "--groups"
    std::string instead;  // "--layout single"
  };
  // One process per component, all of one role (event groups: kausal-event-group; blocks:
  // kausal-block), each pinned to options.cpus[i % size] if given. Throws like start().
  void start_each(ComponentRole role, const std::string& executable,
                  const std::vector<std::string>& names, const LaunchOptions& options,
                  const FewerProcesses& fewer);

  std::size_t size() const { return components_.size(); }
  // In the order started (a pair's System before its Integrator).
  LaunchedComponent& component(std::size_t i) { return *components_.at(i); }
  // ProtocolError if none was started by that name.
  LaunchedComponent& named(const std::string& name);

  // Timing of every component, asked all at once and briefly.
  std::vector<ComponentReport> reports();
  // Where the monitor reads every component's activity trace while the run goes on.
  std::vector<TraceSource> trace_sources();
  void observe(idl::Animation_ptr view);
  // system-1, integrator-1, system-2, ...: the order of reports().
  std::vector<std::string> names() const;
  // Asks every child to shut down, then ends those that do not within a grace period.
  void shutdown();
  // Children that are no longer running, how they ended, what they hosted, their log.
  std::string post_mortem();
  // Ends every child, releases the hosted servants, removes the socket directory.
  void release();

 private:
  // One process to start: which executable, hosting which components.
  struct Launch {
    std::string executable, process;
    std::vector<LaunchedComponent*> hosted;
    int cpu = -1;
    std::vector<std::string> names() const {
      std::vector<std::string> out;
      for (const LaunchedComponent* c : hosted) out.push_back(c->name);
      return out;
    }
  };
  LaunchedComponent* add(ComponentRole role, const std::string& name, int cpu);
  // Starts `launches` here or on the nodes, their logs in options.log_dir.
  void launch(const std::vector<Launch>& launches, const LaunchOptions& options);
  void start_local(const std::vector<Launch>& launches, const LaunchOptions& options);
  void start_remote(const std::vector<Launch>& launches, const LaunchOptions& options);
  void host_here();
  void check_versions();
  // Copies the logs of processes that ran on nodes into log_dir_, ends what a node still runs.
  void collect_remote();
  void release_lease();

  OrbRuntime& orb_;
  Layout layout_;
  std::filesystem::path socket_dir_;
  std::vector<std::unique_ptr<LaunchedComponent>> components_;  // system-1, integrator-1, ...
  std::vector<std::shared_ptr<ProcessHandle>> children_;  // each once (a process may host two)
  std::vector<std::shared_ptr<RemoteProcess>> remote_children_;  // those of them on nodes
  std::shared_ptr<const RemotePlacement> remote_;
  std::filesystem::path log_dir_;
  // Remote runs: the lease the nodes watch (they end the run's processes when it goes).
  PortableServer::ServantBase_var lease_;
  CORBA::Object_var lease_ref_;
  // Single layout: the collocated POA and our own reference to every servant in it, so that
  // they are deleted in the order release() chooses (and, declared in this order, on
  // destruction: the Integrators, whose workers call their Systems, before the Systems).
  std::unique_ptr<CollocatedAdapter> adapter_;
  std::vector<PortableServer::ServantBase_var> hosted_systems_;
  std::vector<PortableServer::ServantBase_var> hosted_integrators_;
};

// How a child process started for `options` talks: on 127.0.0.1, with their call timeout,
// link delay and TLS files.
OrbSettings child_orb_settings(const LaunchOptions& options);

// What is left of a shared deadline (at least `floor`), for waits that share one budget.
std::chrono::milliseconds time_left(std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds floor);

// The object reference as a T; PeerError naming `name` if it is not one or cannot be asked.
template <typename T>
typename T::_ptr_type narrow(const std::string& name, CORBA::Object_ptr obj) {
  auto ref = call_peer(name, [&] { return T::_narrow(obj); });
  if (CORBA::is_nil(ref))
    throw PeerError(name, "its object reference is not a " + std::string(T::_PD_repoId));
  return ref;
}

}  // namespace kausal
