#pragma once
// How far a partitioned run's trajectory lies from the monolithic answer (`kausal compare
// --reference`): every coupling direct, integrated by CVODE (reference/cvode_reference.hpp)
// at the rows' times. The global error of a run is the largest deviation of any state over
// its rows, relative to that state's range in the reference.
#include <filesystem>
#include <string>
#include <utility>
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
  // The same, state by state (in the monolithic model's order).
  std::vector<double> state_errors(const std::filesystem::path& trajectory_csv);

  // Each partition alone: its own method and step, its inputs the reference's exact values
  // (at every time the method evaluates them), its states against the reference's at every
  // output row, as global_error measures them. What a partition's integration costs by
  // itself; the rest of a run's global error is the coupling's (Clemens' per-subsystem table
  // against the coupled run). In partition order, per state of each: its name in the
  // monolithic model and its error (NaN for a partition of more than a million steps, whose
  // reference at every half step would not fit the budget).
  using AloneErrors = std::vector<std::vector<std::pair<std::string, double>>>;
  AloneErrors alone_errors();

 private:
  const std::vector<Vector>& at(const std::vector<double>& times);

  const PartitionedScenario& s_;
  std::vector<double> times_;      // of the cached reference
  std::vector<Vector> reference_;  // at times_
};

}  // namespace kausal
