#include "idl/wire_errors.hpp"

#include <omniORB4/minorCode.h>

namespace kausal {

void throw_on_wire(const std::string& component, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const PeerError& e) {
    throw idl::PeerFailure(e.component().c_str(), e.reason().c_str());
  } catch (const ProtocolError& e) {
    throw idl::ProtocolViolation(e.component().c_str(), e.reason().c_str());
  } catch (const ComponentError& e) {
    throw idl::ModelFailure(e.component().c_str(), e.reason().c_str());
  } catch (const std::exception& e) {
    throw idl::ModelFailure(component.c_str(), e.what());
  } catch (...) {
    throw idl::ModelFailure(component.c_str(), "unknown internal error");
  }
}

void throw_from_wire(const std::string& component, const CORBA::Exception& error) {
  if (auto* e = idl::ModelFailure::_downcast(&error))
    throw ModelError(e->component.in(), e->reason.in());
  if (auto* e = idl::PeerFailure::_downcast(&error))
    throw PeerError(e->component.in(), e->reason.in());
  if (auto* e = idl::ProtocolViolation::_downcast(&error))
    throw ProtocolError(e->component.in(), e->reason.in());
  // omniORB 4.2 reports an expired call timeout as TIMEOUT (older versions: TRANSIENT).
  if (CORBA::TIMEOUT::_downcast(&error))
    throw PeerError(component, "did not answer within the call timeout (hung or overloaded)");
  if (auto* e = CORBA::TRANSIENT::_downcast(&error)) {
    if (e->minor() == omni::TRANSIENT_CallTimedout)
      throw PeerError(component, "did not answer within the call timeout (hung or overloaded)");
    throw PeerError(component, "cannot be reached (process gone?)");
  }
  if (CORBA::COMM_FAILURE::_downcast(&error))
    throw PeerError(component, "connection lost (process died?)");
  if (CORBA::OBJECT_NOT_EXIST::_downcast(&error))
    throw PeerError(component, "its object no longer exists (process restarted?)");
  if (auto* e = CORBA::SystemException::_downcast(&error))
    throw PeerError(component, std::string("CORBA ") + e->_name() + " (minor " +
                                   std::to_string(e->minor()) + ")");
  throw ProtocolError(component, std::string("unexpected exception ") + error._name());
}

}  // namespace kausal
