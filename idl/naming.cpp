#include "idl/naming.hpp"

#include <algorithm>

#include "idl/wire_errors.hpp"
#include "system/errors.hpp"

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
