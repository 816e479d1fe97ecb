#pragma once
// The C++ exceptions of kausal and the exit code each one ends a run with.
// IDL exceptions on the wire are translated to and from these in idl/wire_errors.cpp only.
#include <stdexcept>
#include <string>

namespace kausal {

// Documented in README.md and docs/architecture.md; keep the three in step.
enum class ExitCode : int {
  ok = 0,
  simulation_failed = 1,
  bad_input = 2,
  peer_failure = 3,
  version_mismatch = 4,
  interrupted = 130,
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode exit_code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad scenario file, command line or parameter value: "file:line: what is wrong".
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(ExitCode::bad_input, message) {}
};

// The model or the method cannot go on (non-finite state, impacts that never settle).
class SimulationError : public Error {
 public:
  explicit SimulationError(const std::string& message)
      : Error(ExitCode::simulation_failed, message) {}
};

// A failure that belongs to one component: what() is "component: [kind: ]reason".
class ComponentError : public Error {
 public:
  ComponentError(ExitCode code, std::string component, std::string reason, const std::string& kind)
      : Error(code, component + ": " + kind + reason),
        component_(std::move(component)),
        reason_(std::move(reason)) {}
  const std::string& component() const { return component_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string component_;
  std::string reason_;
};

// Something in a component's request was wrong for that component (bad parameter over the
// wire, unknown method, a state that is no longer finite).
class ModelError : public ComponentError {
 public:
  ModelError(std::string component, std::string reason)
      : ComponentError(ExitCode::simulation_failed, std::move(component), std::move(reason), "") {}
};

// A request that breaks the protocol between components (a bug, never bad luck).
class ProtocolError : public ComponentError {
 public:
  ProtocolError(std::string component, std::string reason)
      : ComponentError(ExitCode::simulation_failed, std::move(component), std::move(reason),
                       "protocol violation: ") {}
};

// A peer died, hung past its call timeout, or could not be reached.
class PeerError : public ComponentError {
 public:
  PeerError(std::string component, std::string reason)
      : ComponentError(ExitCode::peer_failure, std::move(component), std::move(reason), "") {}
};

class VersionMismatch : public Error {
 public:
  VersionMismatch(const std::string& component, unsigned got, unsigned expected)
      : Error(ExitCode::version_mismatch, component + " speaks interface version " +
                                              std::to_string(got) + ", this monitor speaks " +
                                              std::to_string(expected)) {}
};

class Interrupted : public Error {
 public:
  Interrupted() : Error(ExitCode::interrupted, "interrupted") {}
  // Stopped on purpose, e.g. "stopped by the operator at step 1200".
  explicit Interrupted(const std::string& why) : Error(ExitCode::interrupted, why) {}
};

}  // namespace kausal
