#pragma once
// An SSP archive as a kausal scenario (docs/fmi.md, "Systems of FMUs: SSP"): `kausal run
// system.ssp` runs the partitioned scenario its system maps to, and a scenario file may name
// one (`ssp = "system.ssp"`), whose FMU paths then lie inside the archive. Each component is
// a subsystem of its own partition (its FMU's co-simulation interface where it has one, else
// model exchange stepped by RK4; one step h for all, the smallest default step the FMUs
// give), each connection a coupling, each parameter binding the subsystem's parameters, the
// default experiment's stop time t_end. `kausal models system.ssp` prints that scenario.
#include <cstddef>
#include <filesystem>
#include <string>

namespace kausal {

struct PartitionedScenario;

// Whether `file` is an SSP archive (a zip) rather than a TOML scenario.
bool is_ssp_archive(const std::filesystem::path& file);

// The scenario text of a scenario file: the file's own, or for an SSP archive the scenario
// it maps to, with `ssp` naming the archive as `written_as` (default: its absolute path).
// InputError naming the file, and for the SSP the element and line that cannot be mapped.
std::string scenario_text(const std::filesystem::path& file, const std::string& written_as = {});

// Where the files of an SSP archive are, unpacked once per content (by its SHA-256) under
// $XDG_CACHE_HOME/kausal/ssp (else ~/.cache/kausal/ssp), so that every process of a run and
// a later resume find the same FMUs. InputError naming the archive.
std::filesystem::path unpacked_ssp(const std::filesystem::path& archive);

// `kausal export-ssp`: writes `out`, an SSP archive of `s` that other SSP tools read and that
// kausal runs to the same digest: each subsystem a component with its FMU under resources/,
// its interface, connectors and parameter values, each coupling a connection, t_end the stop
// time, and what an SSD has no place for (each partition's integrator and step, the output
// interval, the hold order, the default method) in kausal's annotations. InputError naming the
// scenario field for what an SSP cannot carry: a subsystem that is not an FMU, a partition of
// several subsystems, inputs held at a value, couplings with their own hold, predictor or
// accepts, the master, the bridge to events, a prediction tolerance, Newton settings.
// Returns how many FMU files it packed.
std::size_t export_ssp(const PartitionedScenario& s, const std::filesystem::path& out);

}  // namespace kausal
