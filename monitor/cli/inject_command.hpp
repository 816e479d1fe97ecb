#pragma once
// kausal inject OUT ACTION: influence a paced run writing to OUT while it goes, through its
// Operator (OUT/operator.ior; docs/realtime.md): push a pendulum, set a constant input or a
// parameter, stop, read committed values, change the pace.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "idl/orb_runtime.hpp"

namespace CLI {
class App;
}

namespace kausal {

struct InjectOptions {
  std::filesystem::path run_dir;
  std::uint64_t pendulum = 0;      // push
  double impulse = 0;              // push
  std::string target;              // set: SUBSYSTEM.NAME; send: COMPONENT[.KIND]
  double value = 0;                // set, send
  std::vector<std::string> names;  // read
  double factor = 1;               // pace
  TlsFiles tls;                    // the run's CA and a certificate from it, for a TLS run
};

// Registers `inject` and its actions (push, set, send, stop, read, pace) under `app`.
CLI::App* add_inject_command(CLI::App& app, InjectOptions& options);

// Runs the action that `inject` parsed; prints the step it takes effect at (or the values).
// InputError (exit 2) when the run refuses it or OUT serves no operator; PeerError (exit 3)
// when the run cannot be reached.
int inject_command(const CLI::App& inject, const InjectOptions& options);

}  // namespace kausal
