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
  PortableServer::POA_ptr root_poa() const { return poa_.in(); }
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

// A child POA of the root POA for servants that live in the process of their callers (the
// pendulum and single layouts): with LocalShortcutPolicy = LOCAL_CALLS_SHORTCUT and stubs
// from `omniidl -Wbshortcut`, a call through an object reference of this process is a plain
// virtual call on the servant; calls from other processes arrive as usual. Such calls are
// not tracked by the POA (no call timeout, no wait for calls in progress on deactivation):
// whoever activates servants here ends their callers before it destroys the adapter.
class CollocatedAdapter {
 public:
  // `shortcut` false: a plain child POA (local calls go through the POA), for measurements.
  CollocatedAdapter(OrbRuntime& orb, bool shortcut = true);
  // Destroys the POA, waiting for the calls it dispatched; the servants' references held
  // by the POA are released.
  ~CollocatedAdapter();
  CollocatedAdapter(const CollocatedAdapter&) = delete;
  CollocatedAdapter& operator=(const CollocatedAdapter&) = delete;

  // Activates a servant; returns its stringified object reference.
  std::string activate(PortableServer::ServantBase* servant);
  bool shortcut() const { return shortcut_; }

 private:
  OrbRuntime& orb_;
  bool shortcut_;
  PortableServer::POA_var poa_;
};

// Whether collocated calls take the shortcut: yes, unless KAUSAL_COLLOCATED_CALLS=poa (a
// measurement knob: bench/run.sh compares both).
bool collocated_shortcut_enabled();

}  // namespace kausal
