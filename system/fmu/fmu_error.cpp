#include "system/fmu/fmu_error.hpp"

#include <sstream>

namespace kausal::fmu {

std::string status_name(fmi2Status status) {
  switch (status) {
    case fmi2OK:
      return "fmi2OK";
    case fmi2Warning:
      return "fmi2Warning";
    case fmi2Discard:
      return "fmi2Discard";
    case fmi2Error:
      return "fmi2Error";
    case fmi2Fatal:
      return "fmi2Fatal";
    case fmi2Pending:
      return "fmi2Pending";
  }
  // An FMU may return anything in the enum's int.
  return "fmi2Status(" + std::to_string(static_cast<int>(status)) + ")";
}

namespace {

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
  s << function << " returned " << status_name(status) << " at t = " << time;
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
    << status_name(earlier)
    << (earlier == fmi2Fatal
            ? ", after which the FMU must not be called"
            : ", after which only restoring a saved state or fmi2Reset may follow");
  append_log(s, log_lines);
  return FmuCallError(s.str(), std::move(function), earlier, time, std::move(log_lines));
}

}  // namespace kausal::fmu
