#pragma once
// What every servant offers (idl::Participant): identity, timing, ping, shutdown.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "idl/convert.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"

namespace kausal {

// The interface version this process reports. KAUSAL_TEST_INTERFACE_VERSION overrides it:
// a test hook that lets the version check be exercised without building an old binary.
unsigned reported_interface_version();
std::string local_host_name();

template <typename Skeleton>
class ComponentServant : public Skeleton {
 public:
  ComponentServant(std::string name, std::string role, OrbRuntime& orb)
      : name_(std::move(name)), role_(std::move(role)), orb_(orb) {}

  idl::ComponentInfo* info() override {
    auto* out = new idl::ComponentInfo;
    out->name = name_.c_str();
    out->role = role_.c_str();
    out->host = local_host_name().c_str();
    out->pid = static_cast<CORBA::ULong>(getpid());
    out->interface_version = reported_interface_version();
    return out;
  }
  idl::ComponentTiming timing() override { return to_idl(totals()); }
  void ping() override {}
  void shutdown() override { orb_.shutdown(); }

 protected:
  virtual ActivityTotals totals() = 0;
  const std::string& name() const { return name_; }
  OrbRuntime& orb() { return orb_; }

 private:
  std::string name_;
  std::string role_;
  OrbRuntime& orb_;
};

}  // namespace kausal
