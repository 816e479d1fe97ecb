#pragma once
// One omniORB ORB per process, set up the way omniorb-notes.md recommends: a Unix-socket
// endpoint for same-host peers beside a TCP endpoint bound to one given address, finite
// call and connect timeouts, no idle-connection scanning.
#include <omniORB4/CORBA.h>

#include <string>

namespace kausal {

struct OrbSettings {
  std::string host = "127.0.0.1";  // TCP endpoint address; never all interfaces by default
  std::string unix_socket;         // Unix endpoint path; empty for none
  bool serve = true;               // false: a pure client, no endpoints
  unsigned call_timeout_ms = 3000;
  unsigned connect_timeout_ms = 2000;
};

class OrbRuntime {
 public:
  explicit OrbRuntime(const OrbSettings& settings);
  ~OrbRuntime();
  OrbRuntime(const OrbRuntime&) = delete;
  OrbRuntime& operator=(const OrbRuntime&) = delete;

  CORBA::ORB_ptr orb() const { return orb_.in(); }
  // Activates a servant in the root POA; returns its stringified object reference.
  std::string activate(PortableServer::ServantBase* servant);
  // Deactivates it: later calls get OBJECT_NOT_EXIST; the POA drops its reference once the
  // calls in progress have ended.
  void deactivate(PortableServer::ServantBase* servant);
  CORBA::Object_ptr resolve(const std::string& ior) const;
  // Serves requests until shutdown() (which a servant may call from an upcall).
  void run();
  void shutdown();

 private:
  CORBA::ORB_var orb_;
  PortableServer::POA_var poa_;
};

}  // namespace kausal
