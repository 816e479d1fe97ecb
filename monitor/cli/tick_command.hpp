#pragma once
// kausal tick OUT: the outside clock of a run started with --external-clock in OUT. Each
// tick releases one step of that run (docs/realtime.md).
#include <cstdint>
#include <filesystem>
#include <optional>

#include "idl/orb_runtime.hpp"

namespace CLI {
class App;
}

namespace kausal {

struct TickOptions {
  std::filesystem::path run_dir;
  std::uint64_t count = 1;
  bool all = false;              // until the run's last step is released
  std::optional<double> period;  // s between ticks; none: each as soon as the last returned
  TlsFiles tls;                  // the run's CA and a certificate from it, for a TLS run
};

// Registers `tick` as a subcommand of `app`, its options filling `options`.
CLI::App* add_tick_command(CLI::App& app, TickOptions& options);

// Sends the ticks; prints the clock's status at the end. InputError when OUT has no
// clock.ior; PeerError when the run cannot be reached (it ended, or never served a clock).
int tick_command(const TickOptions& options);

}  // namespace kausal
