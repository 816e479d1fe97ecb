#pragma once
// idl::Node over a NodeAgent: translation only (errors through serve()).
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/node/node_agent.hpp"

namespace kausal {

// Watches the lease of every run the node serves (one thread, a ping a second) and ends a
// run's processes when its monitor has released the lease (OBJECT_NOT_EXIST) or has not
// answered three times in a row (killed, or its host lost).
class LeaseWatch {
 public:
  explicit LeaseWatch(NodeAgent& agent);
  ~LeaseWatch();
  LeaseWatch(const LeaseWatch&) = delete;
  LeaseWatch& operator=(const LeaseWatch&) = delete;

  void watch(const std::string& run, idl::Lease_ptr lease);  // nil: nothing to watch
  void forget(const std::string& run);

 private:
  struct Watched {
    idl::Lease_var lease;
    int misses = 0;
  };
  void loop();
  // Pings once; true while the run is still wanted.
  static bool alive(Watched& w);

  NodeAgent& agent_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::map<std::string, Watched> runs_;
  std::thread thread_;
};

class NodeServant : public POA_kausal::idl::Node {
 public:
  // leave: unregisters the node and shuts its ORB down (Node::shutdown).
  NodeServant(NodeAgent& agent, LeaseWatch& leases, std::function<void()> leave)
      : agent_(agent), leases_(leases), leave_(std::move(leave)) {}

  idl::NodeInfo* info() override;
  idl::StringSeq* start(const idl::ProcessRequest& request) override;
  idl::ProcessStatusSeq* processes(const char* run) override;
  char* log(const char* run, const char* process, CORBA::ULong max_bytes) override;
  void stop(const char* run, const char* process, CORBA::ULong grace_ms) override;
  void finish(const char* run, CORBA::ULong grace_ms) override;
  void ping() override {}
  void shutdown() override { leave_(); }

 private:
  std::string who() const { return "node " + agent_.name(); }

  NodeAgent& agent_;
  LeaseWatch& leases_;
  std::function<void()> leave_;
};

}  // namespace kausal
