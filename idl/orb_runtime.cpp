#include "idl/orb_runtime.hpp"

#include <omniORB4/omniPolicy.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kausal {

OrbRuntime::OrbRuntime(const OrbSettings& s) {
  std::vector<std::pair<std::string, std::string>> opts = {
      {"clientCallTimeOutPeriod", std::to_string(s.call_timeout_ms)},
      {"clientConnectTimeOutPeriod", std::to_string(s.connect_timeout_ms)},
      {"outConScanPeriod", "0"},
      {"inConScanPeriod", "0"},
      // State batches of optimistic runs can exceed the 2 MiB default.
      {"giopMaxMsgSize", std::to_string(256u << 20)},
  };
  if (s.serve) {
    if (!s.unix_socket.empty()) opts.push_back({"endPoint", "giop:unix:" + s.unix_socket});
    opts.push_back({"endPoint", "giop:tcp:" + s.host + ":"});
  }
  std::vector<const char*> flat;
  for (const auto& [k, v] : opts) {
    flat.push_back(k.c_str());
    flat.push_back(v.c_str());
  }
  flat.push_back(nullptr);
  flat.push_back(nullptr);
  int argc = 0;
  orb_ =
      CORBA::ORB_init(argc, nullptr, "omniORB4", reinterpret_cast<const char*(*)[2]>(flat.data()));
  CORBA::Object_var root = orb_->resolve_initial_references("RootPOA");
  poa_ = PortableServer::POA::_narrow(root);
  if (s.serve) {
    PortableServer::POAManager_var manager = poa_->the_POAManager();
    manager->activate();
  }
}

OrbRuntime::~OrbRuntime() {
  try {
    orb_->destroy();
  } catch (...) {
    // Destroying a half-broken ORB at exit must not turn a clean error into a crash.
  }
}

std::string OrbRuntime::activate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->activate_object(servant);
  CORBA::Object_var ref = poa_->id_to_reference(id);
  CORBA::String_var ior = orb_->object_to_string(ref);
  return ior.in();
}

void OrbRuntime::deactivate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->servant_to_id(servant);
  poa_->deactivate_object(id);
}

CORBA::Object_ptr OrbRuntime::resolve(const std::string& ior) const {
  return orb_->string_to_object(ior.c_str());
}

void OrbRuntime::run() {
  orb_->run();
}

void OrbRuntime::shutdown() {
  orb_->shutdown(false);
}

namespace {
std::atomic<unsigned> adapters{0};
}

CollocatedAdapter::CollocatedAdapter(OrbRuntime& orb, bool shortcut)
    : orb_(orb), shortcut_(shortcut) {
  CORBA::PolicyList policies;
  if (shortcut) {
    policies.length(1);
    policies[0] = omniPolicy::create_local_shortcut_policy(omniPolicy::LOCAL_CALLS_SHORTCUT);
  }
  PortableServer::POAManager_var manager = orb_.root_poa()->the_POAManager();
  // Unique per process: a compare run deploys several times in one ORB.
  const std::string name = "collocated-" + std::to_string(adapters.fetch_add(1));
  poa_ = orb_.root_poa()->create_POA(name.c_str(), manager, policies);
  for (CORBA::ULong k = 0; k < policies.length(); ++k) policies[k]->destroy();
}

CollocatedAdapter::~CollocatedAdapter() {
  try {
    poa_->destroy(false, true);
  } catch (...) {
    // At ORB shutdown the POA may already be gone.
  }
}

std::string CollocatedAdapter::activate(PortableServer::ServantBase* servant) {
  PortableServer::ObjectId_var id = poa_->activate_object(servant);
  CORBA::Object_var ref = poa_->id_to_reference(id);
  CORBA::String_var ior = orb_.orb()->object_to_string(ref);
  return ior.in();
}

bool collocated_shortcut_enabled() {
  const char* v = std::getenv("KAUSAL_COLLOCATED_CALLS");
  return !(v && std::strcmp(v, "poa") == 0);
}

}  // namespace kausal
