#pragma once
// `kausal models` and `kausal analyze`: what a user needs to build a partitioned model.
#include <optional>
#include <string>

namespace kausal {

// `kausal models [NAME]`: the registered models, or one with its ports and parameters.
int models_command(const std::string& name);
// `kausal models --integrators`: the integrators, their orders, costs and stability limits.
int integrators_command();

// `kausal analyze S [--at T | --along]`: the partition diagnostics (docs/adding-a-model.md) from
// the Jacobian of the whole coupled model at the initial state, or at T after a sequential run to
// it, or at every output row of one (along). Exit 0 even with warnings: they are advice.
int analyze_command(const std::string& file, std::optional<double> at, bool along = false);

}  // namespace kausal
