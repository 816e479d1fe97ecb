// The options of `kausal run` and `kausal compare` and their help (kausal_main.cpp
// dispatches; the commands use the parsed Options: run_commands.hpp).
#include "monitor/cli/run_options.hpp"

#include <cmath>
#include <string>

#include "common/errors.hpp"
#include "idl/orb_runtime.hpp"
#include "monitor/cli/run_commands.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/scenario/scenario_limits.hpp"

namespace kausal {
namespace {

// Where the monitor serves and how every process of the run talks (docs/multi-host.md).
void add_transport_options(CLI::App* cmd, Options& o) {
  OrbSettings& t = o.transport;
  cmd->add_option("--host", t.host,
                  "address the monitor serves on (its sinks; components call it there). "
                  "Never all interfaces unless 0.0.0.0 is given; across hosts, an address the "
                  "nodes can reach")
      ->capture_default_str();
  cmd->add_option_function<std::string>(
      "--link-delay", [&t](const std::string& v) { t.link_delay_us = link_delay_option(v); },
      "emulate a slow network: every process of the run holds back each message it sends "
      "over TCP/TLS this long (2ms, 500us; Unix sockets and collocated calls are not delayed)");
  add_tls_options(*cmd, t.tls,
                  "TLS between all processes (giop:ssl): the CA certificate (PEM). Every "
                  "process must then present a certificate signed by it (kausal certs)",
                  "the monitor's");
  cmd->add_option("--deploy", o.deploy,
                  "deployment file (TOML): start the components on node agents (kausal node) "
                  "instead of here, as it says; sequential still runs here. docs/multi-host.md");
  cmd->add_option("--naming", o.naming,
                  "with --deploy: the naming service the nodes registered in, "
                  "corbaloc::HOST:PORT/NameService (default: naming in the deployment file)");
}

// What bounds a run: its output (--max-output), the processes it starts, its --out.
void add_limit_options(CLI::App* cmd, Options& o) {
  cmd->add_flag("--force", o.force,
                "use --out even if it is not empty: the files an earlier run or compare wrote "
                "there are removed first (other files stay). Without it a non-empty --out is "
                "refused, so that two runs' files never mix");
  cmd->add_option_function<std::string>(
         "--max-output",
         [&o](const std::string& v) {
           try {
             o.limits.max_output_bytes = parse_size(v, "--max-output");
           } catch (const InputError& e) {
             throw CLI::ValidationError("--max-output", e.what());
           }
         },
         "the most a run may write (trajectory.csv and checkpoint, estimated from the scenario "
         "before it starts): 500M, 20G, 2T; default " +
             format_size(static_cast<double>(kDefaultMaxOutputBytes)))
      ->type_name("SIZE");
  cmd->add_option("--max-processes", o.max_processes,
                  "the most component processes a run may start (layout process: two per "
                  "pendulum or partition, one per event group; pendulum: one)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
}

// --delay STEP:SECONDS.
std::pair<std::uint64_t, double> parse_delay(const std::string& text) {
  const auto colon = text.find(':');
  std::size_t used = 0, used_s = 0;
  try {
    if (colon == std::string::npos || text.find_first_not_of("0123456789") != colon)
      throw std::invalid_argument(text);
    const std::uint64_t step = std::stoull(text.substr(0, colon), &used);
    const double seconds = std::stod(text.substr(colon + 1), &used_s);
    if (used_s != text.size() - colon - 1 || !(seconds >= 0 && seconds <= 3600))
      throw std::invalid_argument(text);
    return {step, seconds};
  } catch (const std::logic_error&) {
    throw CLI::ValidationError("--delay", "'" + text +
                                              "': expected STEP:SECONDS, a step number and a "
                                              "delay of 0 to 3600 s (e.g. 100:0.03)");
  }
}

// Pacing (docs/realtime.md), shared by run and compare.
void add_realtime_options(CLI::App* cmd, Options& o) {
  RealtimeOptions& rt = o.realtime;
  cmd->add_option_function<double>(
         "--realtime",
         [&rt](double factor) {
           rt.clock = factor > 0 ? ClockSource::wall : ClockSource::none;
           rt.factor = factor;
         },
         "pace the run by the wall clock: step m starts no earlier than start + m·h/FACTOR "
         "(1: one simulated second per second; 0.1: ten times slower; 0: as fast as "
         "possible, the default except with --animate, which paces a chain at 1 and plots a whole "
         "run in about 10 s, or slower if the run cannot keep up, and says so). "
         "Every method and layout of every model kind (kausal capabilities; a discrete-event "
         "run is released in thousandths of its end); "
         "the digest is the same as unpaced. The summary, "
         "summary.json and the report give overruns and the spread of lateness, step time, "
         "compute, communication and load per step, and how many overruns had a stall of the "
         "machine beside them (a CPU given back more than 100 µs late: docs/realtime.md)")
      ->type_name("FACTOR")
      ->check(finite_in(0.0, 1e6));
  cmd->add_flag_callback(
      "--external-clock", [&rt] { rt.clock = ClockSource::external; },
      "each tick from outside releases one step (kausal tick OUT, or any client of the "
      "Clock interface in idl/kausal.idl; its reference is written to OUT/clock.ior). A "
      "tick that arrives while the previous step still runs counts as an overrun");
  cmd->add_flag_callback(
      "--skip-feasibility-check", [&rt] { rt.check_feasible = false; },
      "--realtime: start even if the check before the run finds that it cannot keep up "
      "(the measured step time with the layout's calls exceeds h/FACTOR) or that a "
      "partition's step exceeds its stability limit");
  cmd->add_option_function<std::string>(
         "--release", [&rt](const std::string& v) { rt.wait = *release_wait_named(v); },
         "paced runs: how the monitor waits for a release: sleep (cheap, wakes up to "
         "~100 µs late), spin (on time, keeps a CPU busy), hybrid (sleeps until 200 µs "
         "before, then spins)")
      ->default_str("hybrid")
      ->check(CLI::IsMember({"sleep", "spin", "hybrid"}));
  cmd->add_option("--rt-priority", rt.priority,
                  "paced runs: run the monitor and the component processes it starts under "
                  "SCHED_FIFO at this priority (1-99; needs root or CAP_SYS_NICE; processes "
                  "started by node agents keep their scheduler): other work on the machine no "
                  "longer preempts the run (a hypervisor still can: docs/performance.md)")
      ->type_name("N")
      ->check(CLI::Range(1, 99));
  cmd->add_option_function<std::vector<std::string>>(
         "--delay",
         [&rt](const std::vector<std::string>& delays) {
           for (const std::string& d : delays) {
             const auto [step, seconds] = parse_delay(d);
             rt.delays[step] = seconds;
           }
         },
         "paced runs: STEP:SECONDS, an artificial delay at that step, as if it took so "
         "much longer (repeatable; shows how overruns are counted)")
      ->type_name("STEP:SECONDS");
}

// Options of the distributed methods, shared by run and compare.
}  // namespace

void add_run_options(CLI::App* cmd, Options& o) {
  cmd->add_option("scenario", o.scenario,
                  "scenario file (TOML, see docs/scenarios.md), or an SSP archive (.ssp: a "
                  "system of FMUs, docs/fmi.md)")
      ->required();
  cmd->add_option("--out", o.out,
                  "output directory (default: a fresh one under runs/); must be empty or new "
                  "unless --force");
  add_limit_options(cmd, o);
  cmd->add_option("--batch", o.batch, "optimistic: states per batch an Integrator ships")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--window", o.window,
                  "optimistic: steps an Integrator (or a block of pendulums, --layout "
                  "blocks:K) may run ahead of the last commit (GVT); bounds its state list "
                  "and the work a rollback can waste (blocks: at most 2^22 states in all, so "
                  "long chains run ahead fewer steps). Partitioned "
                  "models: steps a partition may run past its last final step, default " +
                      std::to_string(PartitionedMode{}.window) +
                      " (predictions degrade with distance, docs/performance.md); at most "
                      "1000000 (components refuse windows beyond their memory budget)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--groups", o.groups,
                  "discrete-event and hybrid models, conservative and optimistic: the event "
                  "groups (threads) their discrete components are split into, in contiguous "
                  "blocks (default: the scenario's events.groups; 2 for a discrete-event "
                  "model, 1 for a hybrid one)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--tolerance", o.tolerance,
                  "partitioned models, optimistic: a prediction that differs from the real "
                  "input by more than this is rolled back (default: the scenario's "
                  "run.tolerance; 0: any difference, and the digest equals sequential)")
      ->check(finite_in(0.0, 1e300));
  cmd->add_flag("--check-guarantees", o.check_guarantees,
                "conservative lookahead: at every granted step, require that no two bobs even "
                "touch (a false guarantee ends the run as a causality violation)");
  cmd->add_flag("--rollback-check", o.rollback_check,
                "every Integrator step: step, restore from the state list (state and "
                "multistep memory), step again, require identical bits (doubles the Calc "
                "calls); a block of pendulums restores its states and re-steps likewise, an "
                "event group's component its state before each event. Conservative and "
                "optimistic runs of every model kind: kausal capabilities");
  cmd->add_option("--call-timeout", o.call_timeout_ms,
                  "ms a component may take to answer one call of bounded work (a Calc, a "
                  "heartbeat ping) before it counts as hung; the monitor waits one second "
                  "longer. Long grants and slow links are never judged hung: a stopped "
                  "component is found within this + 1 s")
      ->capture_default_str()
      ->check(CLI::Range(10u, 3'600'000u));
  cmd->add_option_function<std::string>(
         "--pin", [&o](const std::string& v) { o.pin = *pinning_named(v); },
         "cores: pin each pendulum's (partition's) processes (layout process: its System and "
         "Integrator; pendulum: its kausal-pendulum) and, conservative, the monitor "
         "thread that calls them to one CPU, pendulum i on CPU i mod #CPUs; layout "
         "single: only the conservative monitor lanes are pinned, and pendulum i "
         "computes on its lane's CPU; none: the OS places everything (conservative: "
         "one monitor thread per component)")
      ->default_str("cores")
      ->check(CLI::IsMember({"cores", "none"}));
  cmd->add_option("--startup-timeout", o.startup_timeout_ms,
                  "ms all component processes together may take to start")
      ->capture_default_str()
      ->check(CLI::Range(100u, 600'000u));
  cmd->add_flag("--animate", o.animate,
                "show the run live in kausal-animation (Qt): pendulums from committed frames, or "
                "for partitioned models their recorded states plotted against simulated time "
                "(one plot per partition), for discrete-event models each group's processed, "
                "committed and rolled-back events and null messages or stragglers and "
                "anti-messages against committed time (unpaced); a busy/waiting/rollback strip "
                "per component; a "
                "progress bar with the guarantee or GVT (partitioned models: the last step "
                "every partition has made final, and each one's) and rollbacks. Every method "
                "and model kind (kausal capabilities). Needs a display (DISPLAY "
                "or WAYLAND_DISPLAY): without one it "
                "is refused (exit 2) before the run, or with --animate-until run-end the run "
                "goes on without it");
  cmd->add_option_function<std::string>(
         "--animate-until",
         [&o](const std::string& v) {
           o.animate_until = v == "run-end" ? AnimateUntil::run_end : AnimateUntil::window_closed;
         },
         "window-closed: kausal waits until the animation window is closed; run-end: "
         "the window closes when the run (compare: the last run) ends")
      ->default_str("window-closed")
      ->check(CLI::IsMember({"window-closed", "run-end"}));
  cmd->add_option_function<std::string>(
         "--trace",
         [&o](const std::string& v) {
           o.trace.mode = v == "coarse" ? TraceMode::coarse
                          : v == "off"  ? TraceMode::off
                                        : TraceMode::full;
         },
         "what each run's trace.json (Perfetto) keeps, streamed to disk as the run goes: "
         "full: every span, named after its call (Calc, advance, ...), with flow arrows; "
         "coarse: each component's busy and rollback time per 10 ms (long runs); off: tracks "
         "only")
      ->check(CLI::IsMember({"full", "coarse", "off"}))
      ->default_str("full");
  cmd->add_option("--trace-limit", o.trace.limit,
                  "at most this many events in trace.json (about 110 bytes each); later spans "
                  "are counted, not written, and the summary says so")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1000}, std::uint64_t{1'000'000'000}));
  add_realtime_options(cmd, o);
  add_transport_options(cmd, o);
  cmd->footer(std::string("Which methods, layouts, services and settings each kind of model "
                          "takes, and why it refuses the others: kausal capabilities.\n") +
              kExitCodes);
}

// A floating-point option in [min, max]. CLI::Range lets nan through (every comparison with
// it is false); this refuses nan and inf as well.
CLI::Validator finite_in(double min, double max) {
  const std::string range = "[" + format_number(min) + ", " + format_number(max) + "]";
  return CLI::Validator(
      [min, max, range](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= min && v <= max))
          return "'" + text + "' is not a number in " + range;
        return std::string();
      },
      "in " + range);
}

}  // namespace kausal
