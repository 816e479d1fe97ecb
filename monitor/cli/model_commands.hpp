#pragma once
// `kausal models`, `kausal analyze` and `kausal export-ssp`: what a user needs to build a
// partitioned model, and to hand it on.
#include <optional>
#include <string>
#include <vector>

namespace kausal {

// `kausal models [NAME]`: the registered models, or one with its ports and parameters.
int models_command(const std::string& name);
// `kausal models --integrators`: the integrators, their orders, costs and stability limits.
int integrators_command();

// `kausal analyze S [--at T | --along | --range NAME=LO:HI[:N] ...] [--modes K]`: the partition
// diagnostics (docs/adding-a-model.md) from the Jacobian of the whole coupled model at the
// initial state, or at T after a sequential run to it, or at every output row of one (along),
// or at every point of a grid of states (range: each integrator's smallest limit over it);
// with --modes, also its modes in K groups by frequency and what each costs
// (monitor/analysis/modal_split.hpp). Exit 0 even with warnings: they are advice.
int analyze_command(const std::string& file, std::optional<double> at, bool along = false,
                    const std::vector<std::string>& ranges = {},
                    std::optional<std::size_t> modes = std::nullopt);

// `kausal export-ssp SCENARIO OUT.ssp`: a partitioned scenario of FMUs as an SSP archive that
// other SSP tools read and `kausal run OUT.ssp` runs to the same digest (docs/fmi.md). Exit 2
// naming what an SSP cannot carry.
int export_ssp_command(const std::string& scenario, const std::string& out);

}  // namespace kausal
