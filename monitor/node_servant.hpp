#pragma once
// idl::Node over a NodeAgent: translation only (errors through serve()).
#include <functional>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/node_agent.hpp"

namespace kausal {

class NodeServant : public POA_kausal::idl::Node {
 public:
  // leave: unregisters the node and shuts its ORB down (Node::shutdown).
  NodeServant(NodeAgent& agent, std::function<void()> leave)
      : agent_(agent), leave_(std::move(leave)) {}

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
  std::function<void()> leave_;
};

}  // namespace kausal
