#pragma once
// The one place where C++ exceptions and IDL exceptions meet (docs/architecture.md, "Errors,
// timeouts and dead peers"):
//   serve()     in servants: kausal::Error (and anything else) -> IDL exception;
//   call_peer() in callers:  IDL exception or CORBA system exception -> kausal::Error,
//               naming the component that failed.
#include <exception>
#include <string>

#include "common/errors.hpp"
#include "idl/kausal.hh"

namespace kausal {

[[noreturn]] void throw_on_wire(const std::string& component, std::exception_ptr error);
[[noreturn]] void throw_from_wire(const std::string& component, const CORBA::Exception& error);
// The call's time ran out: the peer is there but does not answer (hung, stopped, overloaded).
bool timed_out(const CORBA::Exception& error);

// A failure reported through a call instead of raised by one (StateSink::fail): the
// exception as kind ("model", "peer", "protocol"), failed component and reason, and back.
struct ReportedFailure {
  std::string kind;
  std::string component;
  std::string reason;
};
ReportedFailure describe_failure(const std::string& component, std::exception_ptr error);
std::exception_ptr failure_from_report(const ReportedFailure& report);

template <typename F>
auto serve(const std::string& component, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const CORBA::UserException&) {
    throw;  // already an IDL exception
  } catch (...) {
    throw_on_wire(component, std::current_exception());
  }
}

template <typename F>
auto call_peer(const std::string& component, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const CORBA::Exception& e) {
    throw_from_wire(component, e);
  }
}

}  // namespace kausal
