#pragma once
// The options of `kausal run` and `kausal compare` with their help text: what each asks for,
// its default and its range (run_options.cpp). Parsing only: what goes with what is the
// capability table's (monitor/core/capabilities.hpp), checked by the commands.
#include <CLI/CLI.hpp>

#include "monitor/cli/options.hpp"

namespace kausal {

// Every option of run and compare: the scenario, the method's settings, output, tracing,
// limits, pacing and transport.
void add_run_options(CLI::App* cmd, Options& o);

// A floating-point option in [min, max]. CLI::Range lets nan through (every comparison with
// it is false); this refuses nan and inf as well.
CLI::Validator finite_in(double min, double max);

}  // namespace kausal
