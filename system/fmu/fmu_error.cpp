#include "system/fmu/fmu_error.hpp"

#include <sstream>

namespace kausal::fmu {

std::string status_name(fmi2Status status, FmiVersion version) {
  const std::string fmi = version == FmiVersion::v3 ? "fmi3" : "fmi2";
  switch (status) {
    case fmi2OK:
      return fmi + "OK";
    case fmi2Warning:
      return fmi + "Warning";
    case fmi2Discard:
      return fmi + "Discard";
    case fmi2Error:
      return fmi + "Error";
    case fmi2Fatal:
      return fmi + "Fatal";
    case fmi2Pending:
      if (version == FmiVersion::v2) return "fmi2Pending";
      break;
  }
  // An FMU may return anything in the enum's int.
  return fmi + "Status(" + std::to_string(static_cast<int>(status)) + ")";
}

namespace {

// The status belongs to the function called: fmi3DoStep returns an fmi3Status.
FmiVersion version_of(const std::string& function) {
  return function.starts_with("fmi3") ? FmiVersion::v3 : FmiVersion::v2;
}

void append_log(std::ostringstream& s, const std::vector<std::string>& log_lines) {
  if (log_lines.empty()) {
    s << " (the FMU logged nothing)";
    return;
  }
  s << ": ";
  for (std::size_t i = 0; i < log_lines.size(); ++i) s << (i ? "; " : "") << log_lines[i];
}

std::string message(const std::string& function, fmi2Status status, double time,
                    const std::vector<std::string>& log_lines, const std::string& why) {
  std::ostringstream s;
  s << function << " returned " << status_name(status, version_of(function)) << " at t = " << time;
  if (!why.empty()) s << " (" << why << ")";
  append_log(s, log_lines);
  return s.str();
}

}  // namespace

FmuCallError::FmuCallError(std::string function, fmi2Status status, double time,
                           std::vector<std::string> log_lines, const std::string& why)
    : SimulationError(message(function, status, time, log_lines, why)),
      function_(std::move(function)),
      status_(status),
      time_(time),
      log_lines_(std::move(log_lines)) {}

FmuCallError::FmuCallError(const std::string& message, std::string function, fmi2Status status,
                           double time, std::vector<std::string> log_lines)
    : SimulationError(message),
      function_(std::move(function)),
      status_(status),
      time_(time),
      log_lines_(std::move(log_lines)) {}

FmuCallError FmuCallError::not_called(std::string function, fmi2Status earlier, double time,
                                      std::vector<std::string> log_lines) {
  std::ostringstream s;
  s << function << " not called at t = " << time << ": an earlier call returned "
    << status_name(earlier, version_of(function))
    << (earlier == fmi2Fatal ? ", after which the FMU must not be called"
        : version_of(function) == FmiVersion::v3
            ? ", after which only restoring a saved state or fmi3Reset may follow"
            : ", after which only restoring a saved state or fmi2Reset may follow");
  append_log(s, log_lines);
  return FmuCallError(s.str(), std::move(function), earlier, time, std::move(log_lines));
}

}  // namespace kausal::fmu
