// kausal: the command line. Parses and dispatches: runs are assembled as RunSpecs and run
// through run() (monitor/cli/run_commands, monitor/run/run.hpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>

#include "common/help_formatter.hpp"
#include "idl/kausal.hh"
#include "idl/naming.hpp"
#include "monitor/cli/certs_command.hpp"
#include "monitor/cli/inject_command.hpp"
#include "monitor/cli/model_commands.hpp"
#include "monitor/cli/new_model_command.hpp"
#include "monitor/cli/options.hpp"
#include "monitor/cli/run_commands.hpp"
#include "monitor/cli/run_options.hpp"
#include "monitor/cli/tick_command.hpp"
#include "monitor/core/capabilities.hpp"
#include "monitor/core/run_control.hpp"
#include "monitor/node/node_command.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/run/resume.hpp"
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
void prepare_deployment(Options& o) {
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

// After parsing: pacing options fit together; --animate paces at the view's pace unless told
// otherwise.
void check_realtime_options(Options& o) {
  if (o.was_given("--realtime") && o.was_given("--external-clock"))
    throw InputError("command line: --realtime and --external-clock exclude each other");
  if (!o.realtime.paced())
    for (const char* option : {"--release", "--delay", "--skip-feasibility-check", "--rt-priority"})
      if (o.was_given(option))
        throw InputError(std::string("command line: ") + option +
                         " applies to paced runs (--realtime FACTOR > 0 or --external-clock)");
  // A class sees the run as it happens, at the view's pace (the run's spec sets it from the
  // model), lowered to what the run keeps up with: a view, not a deadline.
  if (o.animate && !o.was_given("--realtime") && !o.was_given("--external-clock")) {
    o.realtime.clock = ClockSource::wall;
    o.realtime.factor = 1;
    o.realtime.for_view = true;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kausal — parallel discrete/continuous simulation: conservative and optimistic "
      "synchronisation over CORBA, on the pendulum-chain benchmark and on partitioned models "
      "(coupled subsystems, multirate, stiff parts; docs/scenarios.md)."};
  // (Set before the subcommands are added: each takes its parent's formatter.)
  app.formatter(std::make_shared<HelpFormatter>());
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
  add_run_options(run, o);
  run->get_option("scenario")->required(false);  // not with --resume (checked after parsing)
  run->add_option(
      "--resume", o.resume,
      "continue the failed or interrupted run in this output directory from its "
      "last committed step (OUT/checkpoint.json) to the digest of an uninterrupted "
      "run. The scenario, method and options that change what is computed come "
      "from the checkpoint (giving a different one is refused); --host, "
      "--link-delay, --tls-*, --call-timeout, --startup-timeout and --pin may be "
      "given anew. Nothing to resume (the run completed): exit 0. Pendulum chains, "
      "partitioned models, discrete-event runs and hybrid models alike (the last two "
      "from their last cut, about a second old: docs/events.md). The checkpoint must "
      "verify with the key that "
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
  add_run_options(compare, o);
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
  compare
      ->add_option("--methods", o.methods,
                   "comma-separated methods to compare (default: all of the model's): "
                   "sequential, conservative/step, conservative/lookahead, optimistic for a "
                   "chain; sequential, conservative, optimistic for the other kinds (kausal "
                   "capabilities). conservative names every conservative one. Sequential runs "
                   "first in any case: it is the reference of the digests and of vs seq")
      ->delimiter(',')
      ->type_name("METHOD,...");
  compare->add_flag(
      "--reference", o.reference,
      "partitioned models: measure every run's global error against the monolithic answer "
      "(every coupling direct, integrated by CVODE at the rows' times): the largest deviation "
      "of a state, relative to its range (a column of the table; not for models with events "
      "or co-simulation FMUs), and below the table each state's error with every partition "
      "alone (its inputs exact) against the coupled run's");
  compare
      ->add_option("--repeat", o.repeat,
                   "run every method K times, in K rounds (each method once per round): the "
                   "table gives medians and the range of the wall times; OUT/<method>/1..K")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  compare->add_flag("--wide", o.wide,
                    "the table on one line per method however wide (by default it is split into "
                    "parts that fit the terminal, 100 columns when it is not one, each part "
                    "starting with the method)");

  std::string model_name;
  CLI::App* models = app.add_subcommand(
      "models",
      "list the registered models (for partitioned scenarios), or show one, an FMU or an SSP");
  models->add_option("name", model_name,
                     "a model: its states, inputs, outputs, parameters; or a file NAME.fmu: "
                     "its interfaces, ports, parameters and capabilities; or a file NAME.ssp: "
                     "the scenario its system of FMUs maps to, which `kausal run NAME.ssp` runs "
                     "(docs/fmi.md)");
  bool list_integrators = false;
  models->add_flag("--integrators", list_integrators,
                   "the integrators a partition can take ([[partition]] integrator = NAME): "
                   "order, kind, f evaluations per step, derivatives kept, stability limits");

  std::string exported, export_out;
  CLI::App* export_ssp = app.add_subcommand(
      "export-ssp",
      "write a partitioned scenario of FMUs as an SSP archive (System Structure and "
      "Parameterization) that other SSP tools read and `kausal run OUT.ssp` runs to the same "
      "digest (docs/fmi.md)");
  export_ssp->add_option("scenario", exported, "partitioned scenario file (TOML)")->required();
  export_ssp->add_option("out", export_out, "the .ssp file to write")->required();

  CLI::App* capabilities = app.add_subcommand(
      "capabilities",
      "what goes with what: for each kind of model, the methods, layouts, services "
      "(--realtime, --resume, --rollback-check, --deploy, ...) and settings it takes, and why "
      "it refuses the others (docs/capabilities.md)");

  CertsOptions certs_options;
  CLI::App* certs = add_certs_command(app, certs_options);
  NewModelOptions new_model_options;
  CLI::App* new_model = add_new_model_command(app, new_model_options);
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
  analyze->add_option("scenario", analyzed, "partitioned scenario file (TOML) or SSP archive")
      ->required();
  std::optional<double> analyze_at;
  analyze
      ->add_option("--at", analyze_at,
                   "analyse at this time (s) instead of the start: the scenario runs "
                   "sequentially up to it first")
      ->check(finite_in(0.0, 1e300));
  bool analyze_along = false;
  analyze->add_flag("--along", analyze_along,
                    "judge the stability along the run: the scenario runs sequentially and the "
                    "Jacobian is analysed at every output row (each partition's smallest limit, "
                    "when, and the rows where its h exceeds it)");
  std::vector<std::string> analyze_ranges;
  analyze->add_option("--range", analyze_ranges,
                      "NAME=LO:HI[:N] (repeatable): judge the stability over a working range, at "
                      "every point of a grid of states (N points each, default 5; the other "
                      "states at their initial values): per partition its smallest limit and "
                      "where, and each integrator's largest stable step over the range");
  std::optional<std::size_t> analyze_modes;
  analyze
      ->add_option("--modes", analyze_modes,
                   "K: also bring the Jacobian to real modal form, group its modes into K "
                   "partitions by frequency (|lambda|), and count and time each group's steps "
                   "at its largest stable step against the model as it is (FLOP per simulated "
                   "second, estimated and measured; docs/experiments.md, \"Modes\")")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));

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
    if (capabilities->parsed()) {
      std::cout << capability_table();
      return 0;
    }
    if (models->parsed()) {
      if (list_integrators && !model_name.empty())
        throw InputError("command line: --integrators lists the integrators; it takes no model");
      return list_integrators ? integrators_command() : models_command(model_name);
    }
    if (certs->parsed()) return certs_command(certs_options);
    if (new_model->parsed()) return new_model_command(new_model_options);
    if (tick->parsed()) return tick_command(tick_options);
    if (inject->parsed()) return inject_command(*inject, inject_options);
    if (analyze->parsed())
      return analyze_command(analyzed, analyze_at, analyze_along, analyze_ranges, analyze_modes);
    if (export_ssp->parsed()) return export_ssp_command(exported, export_out);
    const CLI::App* used = run->parsed() ? run : compare;
    for (const CLI::Option* option : used->get_options())
      if (option->count() > 0) o.given.insert(option->get_name());
    check_realtime_options(o);
    prepare_deployment(o);
    if (run->parsed() && !o.resume.empty()) return resume_command(o, resume_request(o));
    if (run->parsed() && !o.replay.empty()) {
      if (!o.scenario.empty())
        throw InputError("command line: --replay takes the scenario from the recorded run");
      return replay_command(o);
    }
    if (o.scenario.empty())
      throw InputError("command line: scenario is required (or --resume, --replay)");
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
