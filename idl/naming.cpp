#include "idl/naming.hpp"

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>

#include "common/errors.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

namespace {

CosNaming::Name path(const std::string& node) {
  CosNaming::Name name;
  name.length(node.empty() ? 1 : 2);
  name[0].id = "kausal";
  name[0].kind = "";
  if (!node.empty()) {
    name[1].id = node.c_str();
    name[1].kind = "node";
  }
  return name;
}

}  // namespace

std::string naming_address(const std::string& reference) {
  // corbaloc::HOST:PORT/KEY or corbaloc:iiop:HOST:PORT/KEY (with an optional 1.2@ version).
  const std::string prefix = "corbaloc:";
  if (reference.rfind(prefix, 0) != 0) return {};
  std::string rest = reference.substr(prefix.size());
  rest = rest.substr(rest.find(':') + 1);
  if (const auto at = rest.find('@'); at != std::string::npos) rest = rest.substr(at + 1);
  const std::string host = rest.substr(0, rest.find_first_of(":/"));
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return {};
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
  freeaddrinfo(found);
  return text;
}

NamingService::NamingService(OrbRuntime& orb, std::string reference)
    : reference_(std::move(reference)) {
  CORBA::Object_var obj;
  try {
    obj = orb.resolve(reference_);
  } catch (const CORBA::Exception&) {
    throw InputError("--naming: '" + reference_ +
                     "' is not an object reference (expected corbaloc::HOST:PORT/NameService)");
  }
  root_ = call_peer(who(), [&] { return CosNaming::NamingContext::_narrow(obj); });
  if (CORBA::is_nil(root_)) throw PeerError(who(), "is not a naming context");
}

CosNaming::NamingContext_ptr NamingService::kausal_context(bool create) {
  return call_peer(who(), [&]() -> CosNaming::NamingContext_ptr {
    try {
      CORBA::Object_var obj = root_->resolve(path(""));
      return CosNaming::NamingContext::_narrow(obj);
    } catch (const CosNaming::NamingContext::NotFound&) {
      if (!create) return CosNaming::NamingContext::_nil();
    }
    try {
      return root_->bind_new_context(path(""));
    } catch (const CosNaming::NamingContext::AlreadyBound&) {
      // Another node created it in between.
      CORBA::Object_var obj = root_->resolve(path(""));
      return CosNaming::NamingContext::_narrow(obj);
    }
  });
}

void NamingService::bind_node(const std::string& name, CORBA::Object_ptr node) {
  CosNaming::NamingContext_var context = kausal_context(true);
  call_peer(who(), [&] {
    try {
      root_->rebind(path(name), node);
    } catch (const CosNaming::NamingContext::NotFound&) {
      throw PeerError(who(), "kausal/ is not a naming context there");
    }
  });
}

void NamingService::unbind_node(const std::string& name) noexcept {
  try {
    root_->unbind(path(name));
  } catch (...) {
    // Gone already, or the service is: nothing to clean up then.
  }
}

CORBA::Object_ptr NamingService::resolve_node(const std::string& name) {
  return call_peer(who(), [&]() -> CORBA::Object_ptr {
    try {
      return root_->resolve(path(name));
    } catch (const CosNaming::NamingContext::NotFound&) {
      return CORBA::Object::_nil();
    }
  });
}

std::vector<std::string> NamingService::nodes() {
  std::vector<std::string> out;
  CosNaming::NamingContext_var context = kausal_context(false);
  if (CORBA::is_nil(context)) return out;
  call_peer(who(), [&] {
    CosNaming::BindingList_var list;
    CosNaming::BindingIterator_var rest;
    context->list(1000, list, rest);
    for (CORBA::ULong k = 0; k < list->length(); ++k) {
      const CosNaming::Name& n = list[k].binding_name;
      if (n.length() == 1 && std::string(n[0].kind.in()) == "node") out.push_back(n[0].id.in());
    }
    if (!CORBA::is_nil(rest)) rest->destroy();
  });
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kausal
