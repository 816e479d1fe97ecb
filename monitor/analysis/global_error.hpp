#pragma once
// How far a partitioned run's trajectory lies from the monolithic answer (`kausal compare
// --reference`): every coupling direct, integrated by CVODE (reference/cvode_reference.hpp)
// at the rows' times. The global error of a run is the largest deviation of any state over
// its rows, relative to that state's range in the reference.
#include <filesystem>
#include <vector>

#include "monitor/scenario/partitioned_scenario.hpp"

namespace kausal {

class ReferenceAnswer {
 public:
  // InputError naming the scenario if its monolithic model cannot be integrated by CVODE: a
  // subsystem that steps itself (a co-simulation FMU) or has events (zero crossings).
  explicit ReferenceAnswer(const PartitionedScenario& s);

  // The global error of the trajectory.csv a run of this scenario wrote (t, then every
  // partition's states). InputError naming the file if it cannot be read or does not fit.
  double global_error(const std::filesystem::path& trajectory_csv);

 private:
  const std::vector<Vector>& at(const std::vector<double>& times);

  const PartitionedScenario& s_;
  std::vector<double> times_;      // of the cached reference
  std::vector<Vector> reference_;  // at times_
};

}  // namespace kausal
