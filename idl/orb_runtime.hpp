#pragma once
// One omniORB ORB per process, set up the way omniorb-notes.md recommends: a Unix-socket
// endpoint for same-host peers beside a TCP endpoint bound to one given address, finite
// call and connect timeouts, no idle-connection scanning.
#include <omniORB4/CORBA.h>

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kausal {

// TLS between processes (omniORB's giop:ssl transport): a CA that signs every process's
// certificate, and this process's certificate with its private key in one PEM file. When
// enabled, a process serves only giop:ssl (no TCP, no Unix socket) and requires a peer
// certificate signed by the CA on every connection, in both directions.
struct TlsFiles {
  std::string ca_file;    // PEM: the CA certificate(s)
  std::string cert_file;  // PEM: this process's certificate and private key
  std::string password;   // of the private key, if it is encrypted
  bool enabled() const { return !ca_file.empty(); }
};

struct OrbSettings {
  std::string host = "127.0.0.1";  // TCP endpoint address; never all interfaces by default
  std::string unix_socket;         // Unix endpoint path; empty for none
  bool serve = true;               // false: a pure client, no endpoints
  unsigned call_timeout_ms = 3000;
  unsigned connect_timeout_ms = 2000;
  // Emulated network latency: every GIOP message this process sends over TCP or TLS (not
  // over a Unix socket, not a collocated call) is held back this long first.
  unsigned link_delay_us = 0;
  TlsFiles tls;
  // With TLS: the one address this process may still call over plain TCP, the naming
  // service (omniNames has no TLS; it only holds references whose endpoints are TLS-only).
  std::string plain_tcp_peer;
};

// Whether same-host peers may use a Unix socket: not when TLS must cover every connection,
// nor when a link delay is emulated (it applies to network transports only).
inline bool unix_sockets_allowed(const OrbSettings& s) {
  return !s.tls.enabled() && s.link_delay_us == 0;
}

// The command-line options every kausal process that serves CORBA shares (--host,
// --unix-socket, --call-timeout-ms, --link-delay, --tls-ca, --tls-cert, --tls-password).
void add_orb_options(CLI::App& app, OrbSettings& settings);
// --tls-ca (help: `ca_help`), --tls-cert (`whose` certificate: "this process's") and
// --tls-password, for every kausal process and client that talks TLS.
void add_tls_options(CLI::App& app, TlsFiles& tls, const std::string& ca_help,
                     const std::string& whose);
// The same options as arguments for a child process that should talk the way `settings`
// says (address, call timeout, link delay, TLS); the Unix socket is the caller's business.
std::vector<std::string> orb_arguments(const OrbSettings& settings);
// "2ms", "500us", "0.5ms", "0": microseconds. InputError naming `what` otherwise.
unsigned parse_delay_us(const std::string& text, const std::string& what);
// The same for the --link-delay option, as a CLI11 validation error.
unsigned link_delay_option(const std::string& text);

class OrbRuntime {
 public:
  explicit OrbRuntime(const OrbSettings& settings);
  ~OrbRuntime();
  OrbRuntime(const OrbRuntime&) = delete;
  OrbRuntime& operator=(const OrbRuntime&) = delete;

  CORBA::ORB_ptr orb() const { return orb_.in(); }
  // Whether it serves TLS only: every caller holds a certificate from the run's CA.
  bool callers_authenticated() const { return callers_authenticated_; }
  PortableServer::POA_ptr root_poa() const { return poa_.in(); }
  // Activates a servant in the root POA; returns its stringified object reference.
  std::string activate(PortableServer::ServantBase* servant);
  // Deactivates it: later calls get OBJECT_NOT_EXIST; the POA drops its reference once the
  // calls in progress have ended.
  void deactivate(PortableServer::ServantBase* servant);
  CORBA::Object_ptr resolve(const std::string& ior) const;
  // Whether `ref` names an object active in this process (in the root POA or one of its
  // children): a call to it never leaves the process.
  bool serves_here(CORBA::Object_ptr ref) const;
  // Serves requests until shutdown() (which a servant may call from an upcall).
  void run();
  void shutdown();

 private:
  CORBA::ORB_var orb_;
  PortableServer::POA_var poa_;
  bool callers_authenticated_ = false;
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
