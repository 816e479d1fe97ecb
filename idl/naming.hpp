#pragma once
// The CORBA naming service (omniNames) of multi-host runs: node agents register there as
// kausal/NAME (kind "node"); the monitor finds them there (docs/multi-host.md).
#include <omniORB4/Naming.hh>

#include <string>
#include <vector>

#include "idl/orb_runtime.hpp"

namespace kausal {

// The IPv4 address of the host in a corbaloc reference ("corbaloc::HOST:PORT/..."), resolved
// if it is a name; "" if there is none (then TLS processes cannot reach the service).
std::string naming_address(const std::string& reference);

class NamingService {
 public:
  // `reference`: corbaloc::HOST:PORT/NameService (or any object reference to a naming
  // context). InputError if it is not a reference; PeerError naming the service if it
  // cannot be reached in the connect/call timeouts or is not a naming context.
  NamingService(OrbRuntime& orb, std::string reference);

  // Binds (or rebinds: a restarted node replaces its stale entry) kausal/NAME.
  void bind_node(const std::string& name, CORBA::Object_ptr node);
  // Removes kausal/NAME if it is there; never throws (a node leaving must not fail on it).
  void unbind_node(const std::string& name) noexcept;
  // The reference bound as kausal/NAME, or nil if there is none.
  CORBA::Object_ptr resolve_node(const std::string& name);
  // Every name under kausal/ of kind "node", sorted.
  std::vector<std::string> nodes();
  const std::string& reference() const { return reference_; }

 private:
  CosNaming::NamingContext_ptr kausal_context(bool create);
  std::string who() const { return "naming service " + reference_; }

  std::string reference_;
  CosNaming::NamingContext_var root_;
};

}  // namespace kausal
