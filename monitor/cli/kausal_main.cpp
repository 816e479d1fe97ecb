// kausal: the command line. Parses and dispatches: runs are assembled as RunSpecs and run
// through run() (monitor/cli/run_commands, monitor/run/run.hpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>

#include "idl/kausal.hh"
#include "idl/naming.hpp"
#include "monitor/cli/certs_command.hpp"
#include "monitor/cli/inject_command.hpp"
#include "monitor/cli/model_commands.hpp"
#include "monitor/cli/options.hpp"
#include "monitor/cli/run_commands.hpp"
#include "monitor/cli/tick_command.hpp"
#include "monitor/node/node_command.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/run/resume.hpp"
#include "monitor/run/run_control.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/sync/partitioned_plan.hpp"

namespace fs = std::filesystem;
using namespace kausal;

namespace {

void on_interrupt(int) {
  // A second Ctrl-C ends the process at once (children die with it: PR_SET_PDEATHSIG).
  if (InterruptFlag::flag().exchange(true)) _exit(static_cast<int>(ExitCode::interrupted));
}

// --deploy: the file is read before anything starts; its monitor_host applies unless --host
// is given. A run that deploys nothing (sequential) or hosts everything in the monitor
// (single) cannot use it.
void prepare_deployment(bool is_run, Options& o) {
  if (o.deploy.empty()) {
    if (!o.naming.empty()) throw InputError("command line: --naming applies with --deploy");
    return;
  }
  o.deploy_file = load_deploy_file(o.deploy);
  if (o.naming.empty()) o.naming = o.deploy_file->naming;
  if (o.naming.empty())
    throw InputError(
        "command line: --deploy needs --naming corbaloc::HOST:PORT/NameService "
        "(or naming = \"...\" in " +
        o.deploy + ")");
  o.transport.plain_tcp_peer = naming_address(o.naming);
  if (!o.was_given("--host") && !o.deploy_file->monitor_host.empty())
    o.transport.host = o.deploy_file->monitor_host;
  if (is_run && o.method == SyncMethod::sequential && o.was_given("--method"))
    throw InputError(
        "command line: --deploy applies to conservative and optimistic runs "
        "(sequential runs in the monitor)");
  const std::vector<Layout> layouts = is_run ? std::vector<Layout>{o.layout} : o.layouts;
  for (const Layout l : layouts)
    if (l == Layout::single || l == Layout::blocks)
      throw InputError("command line: --deploy starts processes on nodes; the " + to_string(l) +
                       " layout has none (use process, pendulum or block-processes:K)");
}

// Chain-only options given with a partitioned scenario are a mistake, not a no-op.
void reject_chain_options(const Options& o) {
  const char* lookahead_built_in =
      "a conservative partition already steps by itself as far as its final inputs reach: "
      "docs/architecture.md, \"Lookahead is built in\"";
  const std::pair<const char*, const char*> chain_only[] = {
      {"--guarantee", lookahead_built_in},
      {"--check-guarantees", lookahead_built_in},
      {"--batch", "a partition ships its final steps in batches of its own"}};
  for (const auto& [name, why] : chain_only)
    if (o.was_given(name))
      throw InputError(std::string("command line: ") + name +
                       " applies to pendulum-chain scenarios, not to partitioned models (" + why +
                       ")");
}

// Options that would change what a resumed run computes, with the values the command line
// gave (checked against the checkpoint: prepare_resume).
ResumeRequest resume_request(const Options& o) {
  ResumeRequest r{o.resume, o.scenario, {}, o.limits};
  const std::map<std::string, std::string> values = {
      {"--method", to_string(o.method)},
      {"--guarantee", to_string(o.guarantee)},
      {"--layout", to_string(o.layout)},
      {"--batch", std::to_string(o.batch)},
      {"--window", std::to_string(o.window)},
      {"--check-guarantees", o.check_guarantees ? "true" : "false"},
      {"--rollback-check", o.rollback_check ? "true" : "false"},
      {"--out", o.out},
      {"--force", "true"},
      {"--tolerance", option_value(o.tolerance.value_or(0.0))}};
  for (const auto& [name, value] : values)
    if (o.was_given(name)) r.given[name] = value;
  return r;
}

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
         "possible, the default except with --animate, which paces at 1). Every method, "
         "model kind and layout; the digest is the same as unpaced. The summary, "
         "summary.json and the report give overruns and the spread of lateness, step time, "
         "compute, communication and load per step")
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

// After parsing: pacing options fit together; --animate paces at 1 unless told otherwise.
void check_realtime_options(Options& o) {
  if (o.was_given("--realtime") && o.was_given("--external-clock"))
    throw InputError("command line: --realtime and --external-clock exclude each other");
  if (!o.realtime.paced())
    for (const char* option : {"--release", "--delay", "--skip-feasibility-check", "--rt-priority"})
      if (o.was_given(option))
        throw InputError(std::string("command line: ") + option +
                         " applies to paced runs (--realtime FACTOR > 0 or --external-clock)");
  if (o.animate && !o.was_given("--realtime") && !o.was_given("--external-clock")) {
    o.realtime.clock = ClockSource::wall;  // a class sees the run as it happens
    o.realtime.factor = 1;
    o.realtime.check_feasible = false;  // a view, not a deadline: slower is still a view
  }
}

// Options of the distributed methods, shared by run and compare.
void add_common(CLI::App* cmd, Options& o) {
  cmd->add_option("scenario", o.scenario, "scenario file (TOML, see docs/scenarios.md)")
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
                  "discrete-event models, conservative and optimistic: the event groups (threads) "
                  "their components are split into, in contiguous blocks (default: the "
                  "scenario's events.groups)")
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
                "every Integrator step, of every model kind: step, restore from the state list "
                "(state and multistep memory), step again, require identical bits (doubles the "
                "Calc calls)");
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
                "every partition has made final, and each one's) and rollbacks. Every method, "
                "every model kind. Needs a display (DISPLAY or WAYLAND_DISPLAY): without one it "
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
  cmd->footer(kExitCodes);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kausal — parallel discrete/continuous simulation: conservative and optimistic "
      "synchronisation over CORBA, on the pendulum-chain benchmark and on partitioned models "
      "(coupled subsystems, multirate, stiff parts; docs/scenarios.md)."};
  app.footer(kExitCodes);
  app.set_version_flag("--version", "kausal " + std::string(KAUSAL_VERSION) +
                                        " (interface version " +
                                        std::to_string(idl::INTERFACE_VERSION) + ")");
  app.require_subcommand(1);
  Options o;

  CLI::App* run = app.add_subcommand("run", "run a scenario under one method");
  run->add_option_function<std::string>(
         "--method", [&o](const std::string& name) { o.method = *sync_method_named(name); },
         "sequential: in-process reference; conservative: one System and one "
         "Integrator process per pendulum (per partition), guarantees from the "
         "monitor; optimistic: the same processes run ahead and roll back. Partitioned "
         "models: default the scenario's run.method")
      ->default_str("sequential")
      ->check(CLI::IsMember({"sequential", "conservative", "optimistic"}));
  run->add_option_function<std::string>(
         "--guarantee", [&o](const std::string& name) { o.guarantee = *guarantee_named(name); },
         "conservative: step (one step per guarantee, the thesis protocol) or "
         "lookahead (every step before the earliest possible contact, "
         "docs/lookahead.md)")
      ->default_str("step")
      ->check(CLI::IsMember({"step", "lookahead"}));
  add_common(run, o);
  run->get_option("scenario")->required(false);  // not with --resume (checked after parsing)
  run->add_option(
      "--resume", o.resume,
      "continue the failed or interrupted run in this output directory from its "
      "last committed step (OUT/checkpoint.json) to the digest of an uninterrupted "
      "run. The scenario, method and options that change what is computed come "
      "from the checkpoint (giving a different one is refused); --host, "
      "--link-delay, --tls-*, --call-timeout, --startup-timeout and --pin may be "
      "given anew. Nothing to resume (the run completed): exit 0. Pendulum chains, "
      "partitioned models and discrete-event runs (from the last cut, about a second "
      "old: docs/events.md) alike. The checkpoint must verify with the key that "
      "wrote it ($KAUSAL_CHECKPOINT_KEY, else checkpoint.key in $XDG_CONFIG_HOME/kausal "
      "or ~/.config/kausal): "
      "one changed after kausal wrote it is refused (docs/architecture.md, "
      "\"Checkpoints and resume\")");
  run->add_option("--replay", o.replay,
                  "run the paced run recorded in this output directory again, with every "
                  "operator injection (OUT/injections.jsonl, kausal inject) at its step: its "
                  "scenario copy and, unless given anew, its method, guarantee and layout. As "
                  "fast as possible unless --realtime. Writes to OUT/replay (or --out); exit 0 "
                  "if the digest equals the recorded run's, 1 if it differs. docs/realtime.md")
      ->excludes("--resume");
  run->add_option_function<std::string>(
         "--layout",
         [&o](const std::string& v) {
           try {
             o.layout = parse_layout(v, &o.blocks);
           } catch (const InputError& e) {
             throw CLI::ValidationError("--layout", e.what());
           }
         },
         "conservative and optimistic: process: one process per System and per "
         "Integrator; pendulum: one process per pendulum hosting both; single: every "
         "servant in the kausal process itself (calls still through the ORB, as "
         "collocated calls). Pendulum chains, every method: blocks:K "
         "cuts the chain into K blocks of neighbouring pendulums (K from 2 to 1024, at most "
         "one per pendulum), each stepped on a thread of the kausal process with its "
         "contacts resolved inside; the monitor settles only the contacts that cross a "
         "block boundary. Optimistic blocks run ahead up to --window steps (fewer for "
         "long chains: 2^22 states in all) and roll back alone when such a contact "
         "involves them; with --guarantee lookahead conservative blocks run ahead as far as "
         "no contact across their boundaries is possible, whatever happens inside "
         "(docs/lookahead.md, Part IV; docs/architecture.md, \"Blocks\"). "
         "block-processes:K: the same blocks, each in a kausal-block process of its own "
         "(on this host, or on the nodes of --deploy: their deployment file places block-1, "
         "block-2, ...); a call carries the states the monitor changed, the reply every state "
         "of the steps taken. Discrete-event "
         "models ([events]): "
         "single (their default: a thread per event group) or process (a kausal-event-group "
         "process per group, events peer to peer; docs/events.md)")
      ->default_str("process")
      ->type_name("process|pendulum|single|blocks:K|block-processes:K");

  CLI::App* compare = app.add_subcommand(
      "compare",
      "run sequential, conservative (step and lookahead) and optimistic on one scenario "
      "(partitioned models: sequential, conservative, optimistic); one table; every digest must "
      "equal the sequential one (partitioned optimistic runs with a tolerance may differ). "
      "Prints a line as each run ends; writes OUT/comparison.json (the table), "
      "OUT/report.html (the table, wall time per method, a utilisation timeline per method "
      "on one time axis) and every run's trace.json (Perfetto)");
  add_common(compare, o);
  compare
      ->add_option_function<std::vector<std::string>>(
          "--layout",
          [&o](const std::vector<std::string>& names) {
            o.layouts.clear();
            for (const auto& name : names) {
              std::uint32_t blocks = 0;
              Layout l;
              try {
                l = parse_layout(name, &blocks);
              } catch (const InputError& e) {
                throw CLI::ValidationError("--layout", e.what());
              }
              if (in_blocks(l) && o.blocks != 0 && o.blocks != blocks)
                throw CLI::ValidationError("--layout", "lists " + std::to_string(o.blocks) +
                                                           " blocks and " + name +
                                                           ": one block count per comparison");
              if (in_blocks(l)) o.blocks = blocks;
              if (std::find(o.layouts.begin(), o.layouts.end(), l) == o.layouts.end())
                o.layouts.push_back(l);
            }
          },
          "comma-separated layouts (process, pendulum, single, blocks:K, "
          "block-processes:K; see run --help): every method runs in every layout listed, "
          "sequential once; blocks:K runs the methods in blocks of pendulums on threads of "
          "this process, block-processes:K in a process per block (both with the same K)")
      ->delimiter(',')
      ->default_str("process")
      ->type_name("LAYOUT,...");
  compare->add_flag(
      "--reference", o.reference,
      "partitioned models: measure every run's global error against the monolithic answer "
      "(every coupling direct, integrated by CVODE at the rows' times): the largest deviation "
      "of a state, relative to its range (a column of the table; not for models with events "
      "or co-simulation FMUs)");
  compare
      ->add_option("--repeat", o.repeat,
                   "run every method K times, in K rounds (each method once per round): the "
                   "table gives medians and the range of the wall times; OUT/<method>/1..K")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));

  std::string model_name;
  CLI::App* models = app.add_subcommand(
      "models", "list the registered models (for partitioned scenarios), or show one, or an FMU");
  models->add_option("name", model_name,
                     "a model: its states, inputs, outputs, parameters; or a file NAME.fmu: "
                     "its interfaces, ports, parameters and capabilities (docs/fmi.md)");

  CertsOptions certs_options;
  CLI::App* certs = add_certs_command(app, certs_options);
  TickOptions tick_options;
  CLI::App* tick = add_tick_command(app, tick_options);
  InjectOptions inject_options;
  CLI::App* inject = add_inject_command(app, inject_options);

  std::string analyzed;
  CLI::App* analyze = app.add_subcommand(
      "analyze",
      "partition diagnostics of a partitioned model: per partition the eigenvalues of its "
      "Jacobian block (signed; growing ones counted as unstable), stiffness, the largest stable "
      "step of its own integrator against its h, and "
      "the coupling ratio (docs/adding-a-model.md), with a warning when "
      "it is >= 1");
  analyze->add_option("scenario", analyzed, "partitioned scenario file (TOML)")->required();
  std::optional<double> analyze_at;
  analyze
      ->add_option("--at", analyze_at,
                   "analyse at this time (s) instead of the start: the scenario runs "
                   "sequentially up to it first")
      ->check(finite_in(0.0, 1e300));

  NodeOptions node_options;
  CLI::App* node = app.add_subcommand(
      "node",
      "the per-host agent of multi-host runs: registers in the CORBA naming service as "
      "kausal/NAME and starts component processes when a monitor (kausal run/compare "
      "--deploy) asks, binding them to --host only; ends them with the run, or when it is "
      "stopped (SIGINT, SIGTERM). docs/multi-host.md");
  add_node_options(*node, node_options);
  node->footer(kExitCodes);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }

  if (node->parsed()) {
    try {
      return node_command(node_options);
    } catch (const Error& e) {
      std::cerr << "kausal node: " << e.what() << "\n";
      return static_cast<int>(e.exit_code());
    }
  }
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  std::signal(SIGPIPE, SIG_IGN);
  try {
    if (models->parsed()) return models_command(model_name);
    if (certs->parsed()) return certs_command(certs_options);
    if (tick->parsed()) return tick_command(tick_options);
    if (inject->parsed()) return inject_command(*inject, inject_options);
    if (analyze->parsed()) return analyze_command(analyzed, analyze_at);
    const CLI::App* used = run->parsed() ? run : compare;
    for (const CLI::Option* option : used->get_options())
      if (option->count() > 0) o.given.insert(option->get_name());
    check_realtime_options(o);
    prepare_deployment(run->parsed(), o);
    if (run->parsed() && !o.resume.empty()) return resume_command(o, resume_request(o));
    if (run->parsed() && !o.replay.empty()) {
      if (!o.scenario.empty())
        throw InputError("command line: --replay takes the scenario from the recorded run");
      return replay_command(o);
    }
    if (o.scenario.empty())
      throw InputError("command line: scenario is required (or --resume, --replay)");
    if (is_partitioned_scenario(o.scenario))
      reject_chain_options(o);
    else if (o.tolerance)
      throw InputError("command line: --tolerance applies to partitioned models");
    if (o.was_given("--animate-until") && !o.animate)
      throw InputError("command line: --animate-until applies with --animate");
    return run->parsed() ? run_command(o) : compare_command(o);
  } catch (const Error& e) {
    std::cerr << "kausal: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    std::cerr << "kausal: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::simulation_failed);
  } catch (const CORBA::Exception& e) {
    // Calls are translated where they are made; one that slipped through is still a
    // transport failure, not a crash.
    std::cerr << "kausal: CORBA " << e._name() << " outside any call that handles it\n";
    return static_cast<int>(ExitCode::peer_failure);
  }
}
