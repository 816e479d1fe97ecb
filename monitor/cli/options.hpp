#pragma once
// The options of `kausal run` and `kausal compare`, as parsed (kausal_main.cpp) and used by
// the commands (run_commands.hpp).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "idl/orb_runtime.hpp"
#include "monitor/core/run_kind.hpp"
#include "monitor/deploy/component_set.hpp"
#include "monitor/record/trace_writer.hpp"
#include "monitor/scenario/deploy_file.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "monitor/sync/optimistic.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

enum class AnimateUntil { window_closed, run_end };

struct Options {
  std::string scenario;
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::step;  // conservative runs only
  std::size_t batch = OptimisticOptions{}.batch_size;
  std::uint64_t window = OptimisticOptions{}.window;
  bool check_guarantees = false;
  bool rollback_check = false;
  std::string out;
  unsigned call_timeout_ms = 3000;
  unsigned startup_timeout_ms = 10000;
  Pinning pin = Pinning::cores;
  bool animate = false;
  AnimateUntil animate_until = AnimateUntil::window_closed;
  TraceOptions trace;
  Layout layout = Layout::process;                  // run
  std::vector<Layout> layouts = {Layout::process};  // compare, each once
  std::uint32_t blocks = 0;                         // layout blocks: how many (blocks:K)
  std::size_t repeat = 1;                           // compare: runs of each method
  bool wide = false;                                // compare: the table unsplit
  std::vector<std::string> methods;                 // compare: those to run (empty: all)
  bool reference = false;                           // compare: global error against CVODE
  std::optional<double> tolerance;                  // partitioned, optimistic
  std::optional<std::uint32_t> groups;              // discrete-event models: event groups
  std::set<std::string> given;  // the options the command line gave ("--window", ...)
  std::string resume;           // run --resume DIR
  std::string replay;           // run --replay DIR
  // How the monitor and the components it starts talk: the address the monitor serves on,
  // an emulated link delay, TLS (call timeouts are call_timeout_ms above).
  OrbSettings transport;
  std::string deploy;  // deployment file: components on node agents (docs/multi-host.md)
  std::optional<DeployFile> deploy_file;  // loaded from it before the run
  std::string naming;                     // the naming service the nodes registered in
  // Bounds of a run (docs/scenarios.md, "Limits"): what it may write, what it may start; an
  // --out in use only with --force.
  ScenarioLimits limits;
  std::size_t max_processes = kDefaultMaxProcesses;
  bool force = false;
  // Paced runs (docs/realtime.md): --realtime, --external-clock, --release, --delay.
  RealtimeOptions realtime;

  bool was_given(const std::string& option) const { return given.count(option) > 0; }
};

}  // namespace kausal
