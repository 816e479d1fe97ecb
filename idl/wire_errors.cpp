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

ReportedFailure describe_failure(const std::string& component, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const PeerError& e) {
    return {"peer", e.component(), e.reason()};
  } catch (const ProtocolError& e) {
    return {"protocol", e.component(), e.reason()};
  } catch (const ComponentError& e) {
    return {"model", e.component(), e.reason()};
  } catch (const std::exception& e) {
    return {"model", component, e.what()};
  } catch (...) {
    return {"model", component, "unknown internal error"};
  }
}

std::exception_ptr failure_from_report(const ReportedFailure& r) {
  if (r.kind == "peer") return std::make_exception_ptr(PeerError(r.component, r.reason));
  if (r.kind == "protocol") return std::make_exception_ptr(ProtocolError(r.component, r.reason));
  return std::make_exception_ptr(ModelError(r.component, r.reason));
}

bool timed_out(const CORBA::Exception& error) {
  // omniORB 4.2 reports an expired call timeout as TIMEOUT (older versions: TRANSIENT).
  if (CORBA::TIMEOUT::_downcast(&error)) return true;
  const auto* transient = CORBA::TRANSIENT::_downcast(&error);
  return transient && transient->minor() == omni::TRANSIENT_CallTimedout;
}

void throw_from_wire(const std::string& component, const CORBA::Exception& error) {
  if (auto* e = idl::ModelFailure::_downcast(&error))
    throw ModelError(e->origin.in(), e->reason.in());
  if (auto* e = idl::PeerFailure::_downcast(&error))
    throw PeerError(e->origin.in(), e->reason.in());
  if (auto* e = idl::ProtocolViolation::_downcast(&error))
    throw ProtocolError(e->origin.in(), e->reason.in());
  if (timed_out(error))
    throw PeerError(component, "did not answer within the call timeout (hung or overloaded)");
  if (CORBA::TRANSIENT::_downcast(&error))
    throw PeerError(component, "cannot be reached (process gone?)");
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
