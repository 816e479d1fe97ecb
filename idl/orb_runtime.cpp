#include "idl/orb_runtime.hpp"

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

}  // namespace kausal
