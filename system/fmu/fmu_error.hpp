#pragma once
// An FMU call that failed during a run (its status an fmi2Status, or an fmi3Status by value:
// the function's name says which). The FMU's own words are in its log, not in the status,
// so the error carries the lines it logged last: without them "fmi2DoStep returned fmi2Error"
// tells the user nothing about why.
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "system/fmu/fmi2.h"
#include "system/fmu/model_description.hpp"

namespace kausal::fmu {

// "fmi2OK", "fmi2Error", ...; "fmi2Status(7)" for a value the standard does not have; "fmi3OK",
// ... for FMI 3.0, whose statuses are FMI 2.0's first five by value.
std::string status_name(fmi2Status status, FmiVersion version = FmiVersion::v2);

class FmuCallError : public SimulationError {
 public:
  // log_lines: the FMU's recent log, each "[status] category: message", oldest first. why: what
  // the status means here, e.g. "the FMU refused the step"; empty for the plain message.
  FmuCallError(std::string function, fmi2Status status, double time,
               std::vector<std::string> log_lines, const std::string& why = "");
  // The call was not made: an earlier call returned `earlier` (fmi2Error, fmi2Fatal), after
  // which the standard forbids it. status() is `earlier`.
  static FmuCallError not_called(std::string function, fmi2Status earlier, double time,
                                 std::vector<std::string> log_lines);

  const std::string& function() const { return function_; }
  fmi2Status status() const { return status_; }
  double time() const { return time_; }
  const std::vector<std::string>& log_lines() const { return log_lines_; }

 private:
  FmuCallError(const std::string& message, std::string function, fmi2Status status, double time,
               std::vector<std::string> log_lines);

  std::string function_;
  fmi2Status status_;
  double time_;
  std::vector<std::string> log_lines_;
};

}  // namespace kausal::fmu
