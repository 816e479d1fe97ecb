#pragma once
// The monitor's side of multi-host runs: the node agents of a deployment, found through the
// naming service, and the component processes they started (docs/multi-host.md).
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "idl/kausal.hh"
#include "idl/naming.hpp"
#include "monitor/core/process_handle.hpp"
#include "monitor/scenario/deploy_file.hpp"

namespace kausal {

struct RemoteNode {
  std::string name;     // as in the deployment file
  std::string host;     // the host's own name
  std::string address;  // where it and its processes serve
  idl::Node_var ref;
  // Its monotonic clock minus ours (from the round trip with the smallest delay): remote
  // activity spans are shifted by it onto the monitor's clock.
  std::int64_t clock_offset_ns = 0;
  // A question it did not answer (stopped, hung, gone): its processes count as lost with it
  // and it is asked nothing more, so that ending a run costs one call timeout for the node,
  // not several for each of its processes.
  std::atomic<bool> lost{false};
};

class NodeDirectory {
 public:
  // Throws as NamingService does (bad reference: InputError; unreachable: PeerError).
  NodeDirectory(OrbRuntime& orb, const std::string& naming);

  // The node registered as `name`: resolved once (again once it is lost), asked for its
  // info, version checked.
  // InputError if no node of that name is registered (listing those that are), PeerError if
  // it does not answer (a stale registration: its node has gone), VersionMismatch.
  std::shared_ptr<RemoteNode> node(const std::string& name, const std::string& wanted_by);
  const std::string& naming() const { return naming_.reference(); }

 private:
  NamingService naming_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<RemoteNode>> nodes_;
};

// What a launcher needs to place component processes on nodes.
struct RemotePlacement {
  DeployFile deploy;
  std::shared_ptr<NodeDirectory> nodes;
  std::string run_id;  // unique per deployment: groups its processes on every node
};

// A unique run id for this monitor: HOST-PID-N.
std::string new_run_id();

// A component process started by a node agent.
class RemoteProcess : public ProcessHandle {
 public:
  // Asks the node at once for its pid and log file.
  RemoteProcess(std::shared_ptr<RemoteNode> node, std::string run, std::string process);

  const std::string& name() const override { return process_; }
  long process_id() const override { return pid_; }
  bool running() override;
  std::string status() override;
  void stop(std::chrono::milliseconds grace) override;
  std::string log_location() const override { return "node " + node_->name + ": " + log_file_; }
  std::string node() const override { return node_->name; }
  const std::shared_ptr<RemoteNode>& remote_node() const { return node_; }
  // The end of its log, fetched from the node ("" if the node cannot be asked).
  std::string log_tail(std::size_t max_bytes);

 protected:
  std::chrono::milliseconds poll_period() const override { return std::chrono::milliseconds(20); }

 private:
  // Asks the node; a node that cannot be asked has lost the process with it.
  void refresh();

  std::shared_ptr<RemoteNode> node_;
  std::string run_, process_;
  long pid_ = 0;
  std::string log_file_ = "?";
  bool running_ = true;
  std::string status_ = "running";
};

}  // namespace kausal
