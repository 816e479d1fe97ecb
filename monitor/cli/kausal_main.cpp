// kausal: run a scenario under one method, or compare the methods (README.md, docs/model.md §3).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "idl/component_servant.hpp"
#include "idl/kausal.hh"
#include "idl/naming.hpp"
#include "monitor/analysis/partition_analysis.hpp"
#include "monitor/cli/certs_command.hpp"
#include "monitor/deploy/animation_process.hpp"
#include "monitor/deploy/process_deployment.hpp"
#include "monitor/node/node_command.hpp"
#include "monitor/record/progress_bar.hpp"
#include "monitor/record/report.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/record/trace_writer.hpp"
#include "monitor/run/output_dir.hpp"
#include "monitor/run/resume.hpp"
#include "monitor/scenario/deploy_file.hpp"
#include "monitor/sync/chain_driver.hpp"
#include "monitor/sync/conservative.hpp"
#include "monitor/sync/cosim_driver.hpp"
#include "monitor/sync/optimistic.hpp"
#include "monitor/sync/sequential.hpp"
#include "system/model_registry.hpp"

namespace fs = std::filesystem;
using namespace kausal;

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 simulation failed (or digests differ in compare), 2 bad input "
    "(scenario, command line), 3 peer or transport failure, 4 interface version mismatch, "
    "130 interrupted.";

// One method with its variant, as run by `run` and listed by `compare`.
struct MethodSpec {
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;  // conservative: step or lookahead

  // "conservative/lookahead" (as RunResult::label()) and its directory "conservative-lookahead".
  std::string label() const { return method_label(method, guarantee); }
  std::string dir() const {
    std::string d = label();
    std::replace(d.begin(), d.end(), '/', '-');
    return d;
  }
};

const std::vector<MethodSpec> kCompared = {{SyncMethod::sequential, Guarantee::none},
                                           {SyncMethod::conservative, Guarantee::step},
                                           {SyncMethod::conservative, Guarantee::lookahead},
                                           {SyncMethod::optimistic, Guarantee::none}};

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
  std::string pin = "cores";
  bool animate = false;
  std::string animate_until = "window-closed";
  TraceOptions trace;
  std::string layout = "process";                  // run
  std::vector<std::string> layouts = {"process"};  // compare
  std::size_t repeat = 1;                          // compare: runs of each method
  std::optional<double> tolerance;                 // partitioned, optimistic
  bool window_given = false;                       // else each model kind's own default
  bool method_given = false;                       // else a partitioned scenario's run.method
  bool layout_given = false;
  std::string resume;  // run --resume DIR
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
};

fs::path executable_dir() {
  return fs::read_symlink("/proc/self/exe").parent_path();
}

// runs/<name>-<what>-<YYYYmmdd-HHMMSS>, with -2, -3, ... if that exists already.
fs::path fresh_run_dir(const std::string& name, const std::string& what) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  const fs::path base = fs::path("runs") / (name + "-" + what + "-" + stamp);
  fs::path dir = base;
  for (int k = 2; fs::exists(dir); ++k) dir = base.string() + "-" + std::to_string(k);
  return dir;
}

// --out (or a fresh directory), made and checked before anything starts.
fs::path output_dir(const Options& o, const std::string& name, const std::string& what) {
  const fs::path out = o.out.empty() ? fresh_run_dir(name, what) : fs::path(o.out);
  prepare_output_dir(out, o.force);
  return out;
}

void on_interrupt(int) {
  // A second Ctrl-C ends the process at once (children die with it: PR_SET_PDEATHSIG).
  if (InterruptFlag::flag().exchange(true)) _exit(static_cast<int>(ExitCode::interrupted));
}

// --deploy: the deployment file, and the nodes it names resolved once per command. Every
// deployment of the command gets its own run id on the nodes.
class DeployContext {
 public:
  // o as prepare_deployment() left it: the file read, the naming service settled.
  explicit DeployContext(const Options& o)
      : file_(o.deploy_file), naming_(o.naming), monitor_host_(o.transport.host) {}

  // Null without --deploy. Otherwise resolves every node of the file (once) and checks that
  // each can reach the monitor.
  std::shared_ptr<const RemotePlacement> placement(OrbRuntime& orb) {
    if (!file_) return nullptr;
    if (!nodes_) {
      nodes_ = std::make_shared<NodeDirectory>(orb, naming_);
      for (const auto& rule : file_->nodes) {
        const auto node = nodes_->node(rule.node, file_->file + ":" + std::to_string(rule.line));
        if (is_loopback(monitor_host_) && !is_loopback(node->address))
          throw InputError("command line: the monitor serves on " + monitor_host_ +
                           ", which node " + node->name + " (" + node->address +
                           ") cannot reach: give --host ADDRESS (or monitor_host in " +
                           file_->file + ")");
      }
    }
    return std::make_shared<RemotePlacement>(RemotePlacement{*file_, nodes_, new_run_id()});
  }

 private:
  static bool is_loopback(const std::string& address) {
    return address.rfind("127.", 0) == 0 || address == "localhost" || address == "::1";
  }

  std::optional<DeployFile> file_;
  std::string naming_, monitor_host_;
  std::shared_ptr<NodeDirectory> nodes_;
};

// The ORB is created on first use and lives until exit (omniORB allows one per process).
// The monitor serves too: optimistic Integrators deliver their batches to its StateSink.
class OrbOnDemand {
 public:
  explicit OrbOnDemand(const Options& o) : settings_(o.transport), deploy_(o) {
    // The monitor waits a second longer than its components do, so that a hung System
    // is reported by its Integrator (naming the System) before the monitor gives up.
    settings_.call_timeout_ms = o.call_timeout_ms + 1000;
  }
  ~OrbOnDemand() {
    orb_.reset();
    std::error_code ignored;
    if (!socket_dir_.empty()) fs::remove_all(socket_dir_, ignored);
  }
  // Where the components of a deployment start: null (here) without --deploy.
  std::shared_ptr<const RemotePlacement> placement() { return deploy_.placement(get()); }

  OrbRuntime& get() {
    if (!orb_) {
      char dir[] = "/tmp/kausal-monitor-XXXXXX";
      if (!mkdtemp(dir)) throw PeerError("monitor", "cannot create a socket directory in /tmp");
      socket_dir_ = dir;
      OrbSettings s = settings_;
      if (unix_sockets_allowed(s)) s.unix_socket = (socket_dir_ / "monitor").string();
      orb_ = std::make_unique<OrbRuntime>(s);
    }
    return *orb_;
  }

 private:
  OrbSettings settings_;
  DeployContext deploy_;
  fs::path socket_dir_;
  std::unique_ptr<OrbRuntime> orb_;
};

// How the components of one deployment start, here or (--deploy) on the nodes.
LaunchOptions launch_options(const Options& o, const fs::path& out, Layout layout,
                             std::vector<int> cpus, OrbOnDemand& orb) {
  LaunchOptions launch;
  launch.bin_dir = executable_dir();
  launch.log_dir = out / "logs";
  launch.call_timeout_ms = o.call_timeout_ms;
  launch.startup_timeout = std::chrono::milliseconds(o.startup_timeout_ms);
  launch.cpus = std::move(cpus);
  launch.layout = layout;
  launch.link_delay_us = o.transport.link_delay_us;
  launch.tls = o.transport.tls;
  launch.remote = orb.placement();
  launch.max_processes = o.max_processes;
  return launch;
}

std::unique_ptr<ChainStepper> make_distributed_stepper(const MethodSpec& m, const Scenario& s,
                                                       Deployment& deployment, const Options& o,
                                                       const std::vector<int>& cpus,
                                                       const ChainStart* from) {
  if (m.method == SyncMethod::optimistic)
    return std::make_unique<OptimisticStepper>(deployment, s, OptimisticOptions{o.batch, o.window},
                                               from ? from->step : 0);
  return std::make_unique<ConservativeStepper>(deployment, s,
                                               ConservativeOptions{m.guarantee, cpus});
}

// Ends the live feed of a run: what it could not deliver is reported, never fatal.
void finish_feed(std::unique_ptr<AnimationFeed>& feed, const RunResult& result) {
  if (!feed) return;
  const std::uint64_t dropped =
      feed->finish(to_string(result.status), result.wall_s, std::chrono::seconds(2));
  std::cerr << "kausal: animation: " << dropped << " frames dropped"
            << (feed->view_lost() ? " (the window was closed)" : "") << "\n";
  feed.reset();
}

// What a resume must keep of a run (checkpoint.json).
RunSetup run_setup(const Scenario& s, const MethodSpec& m, const Options& o, Layout layout) {
  const bool optimistic = m.method == SyncMethod::optimistic;
  return {s.file,
          m.method,
          m.guarantee,
          m.method == SyncMethod::sequential ? RunLayout{} : RunLayout{layout},
          optimistic ? o.batch : 0,
          optimistic ? o.window : 0,
          o.check_guarantees,
          o.rollback_check,
          0.0,
          o.pin,
          o.call_timeout_ms};
}

// Closes the run's trace.json (opened before the first step; now if the run never got
// there) and writes summary.json, which reports what the trace holds. A trace that cannot
// be written still leaves the summary behind.
void write_run_files(std::optional<TraceFile>& trace, const fs::path& out,
                     const TraceOptions& options, RunResult& result) {
  std::optional<InputError> trace_error;
  try {
    if (!trace) trace.emplace(out / "trace.json", options);
    trace->finish(result);
  } catch (const InputError& e) {
    trace_error = e;
  }
  write_summary_json(result, out / "summary.json");
  if (trace_error) throw *trace_error;
}

RunResult execute(const Scenario& s, const MethodSpec& m, const fs::path& out, const Options& o,
                  OrbOnDemand& orb, Layout layout, AnimationProcess* animation,
                  const ResumedRun* resumed = nullptr) {
  fs::create_directories(out);
  const auto recording = open_recorder(s, out, resumed);
  TrajectoryRecorder& recorder = *recording;
  Checkpointer checkpoints(out, resumed ? resumed_checkpoint(*resumed)
                                        : fresh_checkpoint(s, run_setup(s, m, o, layout), out));
  DriveOptions drive{o.check_guarantees, nullptr, resumed ? &resumed->start : nullptr,
                     &checkpoints};
  ProgressBar progress(to_string(m.method), stderr_is_terminal());
  const std::string label = m.label();
  std::unique_ptr<AnimationFeed> feed;
  std::optional<TraceFile> trace;  // its origin: just before the first step
  RunResult result;
  try {
    if (m.method == SyncMethod::sequential) {
      trace.emplace(out / "trace.json", o.trace);
      SequentialStepper stepper(s);
      if (animation) feed = animation->begin_run(s, label, {"sequential"}, monotonic_ns());
      drive.check_guarantees = false;
      drive.observer = feed.get();
      result = drive_chain(s, m.method, stepper, recorder, progress, drive);
      finish_feed(feed, result);
    } else {
      const std::vector<int> cpus = o.pin == "cores" ? available_cpus() : std::vector<int>{};
      const LaunchOptions launch = launch_options(o, out, layout, cpus, orb);
      ProcessDeployment deployment(chain_deployment(s, o.rollback_check, drive.from), orb.get(),
                                   launch);
      if (animation) {
        std::vector<std::string> strips{"monitor"};
        for (const auto& name : deployment.component_names()) strips.push_back(name);
        feed = animation->begin_run(s, label, strips, monotonic_ns());
        deployment.observe(animation->view());
      }
      trace.emplace(out / "trace.json", o.trace);
      trace->track("monitor", ComponentRole::monitor, local_host_name(),
                   static_cast<long>(getpid()));
      auto stepper = make_distributed_stepper(m, s, deployment, o, cpus, drive.from);
      TraceCollector collector(*trace, feed.get());  // streams trace.json as the run goes
      collector.add_local("monitor", ComponentRole::monitor, stepper->monitor_calls());
      for (auto& source : deployment.trace_sources()) collector.add(std::move(source));
      drive.observer = &collector;
      result = drive_chain(s, m.method, *stepper, recorder, progress, drive);
      collector.finish();
      finish_feed(feed, result);
      result.placement = o.pin;
      if (result.status == RunStatus::failed) result.error += deployment.post_mortem();
      stepper.reset();
      // After a failure a hung peer would never act on a polite shutdown: the deployment's
      // destructor ends every child by signal and reaps it.
      if (result.completed()) deployment.shutdown();
    }
  } catch (const Error& e) {
    result = failed_before_start(s, m.method, e);
  }
  result.guarantee = m.guarantee;
  // Sequential deploys no components: it has no layout.
  result.layout = m.method == SyncMethod::sequential ? RunLayout{} : RunLayout{layout};
  if (m.method == SyncMethod::optimistic) {
    result.batch_size = o.batch;
    result.window = o.window;
  }
  if (o.deploy_file && result.layout) result.deployment = o.deploy_file->file;
  if (resumed) result.resumed_from = resumed_checkpoint(*resumed).resumed_from;
  write_run_files(trace, out, o.trace, result);
  return result;
}

// The live view runs on the monitor's host and talks the way the monitor does.
OrbSettings animation_orb_settings(const Options& o) {
  OrbSettings s = o.transport;
  s.host = "127.0.0.1";
  s.call_timeout_ms = o.call_timeout_ms;
  return s;
}

// --animate: refused (exit 2) before the run when no window can be shown, unless the window
// was only to last until the run ends: then the run goes on without it. Either way the
// terminal says why.
std::unique_ptr<AnimationProcess> start_animation(const Options& o, OrbOnDemand& orb,
                                                  const fs::path& out) {
  if (!o.animate) return nullptr;
  std::string why = missing_display();
  if (why.empty()) {
    try {
      return std::make_unique<AnimationProcess>(
          orb.get(), executable_dir() / "kausal-animation", out / "logs" / "animation.log",
          animation_orb_settings(o), std::chrono::milliseconds(o.startup_timeout_ms));
    } catch (const PeerError& e) {
      why = std::string("the animation could not open its window: ") + e.what();
    }
  }
  if (o.animate_until == "window-closed")
    throw InputError("command line: --animate: " + why +
                     ". Run without --animate (kausal-animation OUT replays a run later), or "
                     "with --animate-until run-end to run without the window");
  std::cerr << "kausal: --animate: " << why << "; the run goes on without the animation\n";
  return nullptr;
}

// --animate-until window-closed: the view keeps playing after the run; wait for the user
// (unless the platform shows no window that could be closed).
void hold_animation(const Options& o, std::unique_ptr<AnimationProcess>& animation) {
  if (!animation) return;
  if (o.animate_until == "window-closed" && animation->running()) {
    if (windowless_platform()) {
      std::cerr << "kausal: the animation has no window to close (QT_QPA_PLATFORM="
                << std::getenv("QT_QPA_PLATFORM") << "): it ends with the run\n";
    } else {
      std::cerr << "kausal: the animation keeps playing; close its window to finish\n";
      animation->wait_until_closed([] { return InterruptFlag::flag().load(); });
    }
  }
  animation.reset();  // closes it if it is still open
}

// The runs of a comparison as they end, each announced by a line: compare takes a while.
class ComparisonRuns {
 public:
  ComparisonRuns(const std::string& file, std::size_t total, bool several_layouts)
      : total_(total), several_layouts_(several_layouts) {
    std::cout << "kausal compare · " << file << " · " << total << " runs" << std::endl;
  }
  void add(const RunResult& r, const fs::path& dir, std::size_t round) {
    runs_.push_back({r, dir, round});
    std::cout << format_finished_run(runs_.back().result, several_layouts_, runs_.front().result,
                                     runs_.size(), total_)
              << std::endl;
  }
  bool failed() const { return !runs_.empty() && !runs_.back().result.completed(); }
  const std::vector<ReportRun>& all() const { return runs_; }

 private:
  std::size_t total_;
  bool several_layouts_;
  std::vector<ReportRun> runs_;
};

// OUT/[LAYOUT/]METHOD[/ROUND]: `layout` empty for one layout and for sequential, rounds
// numbered from 1 when there are several.
fs::path comparison_dir(const fs::path& out, const std::string& layout, const std::string& method,
                        std::size_t round, std::size_t rounds) {
  const fs::path dir = (layout.empty() ? out : out / layout) / method;
  return rounds > 1 ? dir / std::to_string(round + 1) : dir;
}

// The table on the terminal, OUT/comparison.json and OUT/report.html, for chains and
// partitioned models alike.
void present_comparison(const std::string& file, const std::string& setup,
                        const std::vector<ReportRun>& runs, const fs::path& out) {
  const auto rows = report_rows(runs);
  std::cout << "\nkausal compare · " << file << " · " << setup << "\n\n"
            << format_comparison(rows) << "\noutput: " << out.string() << "\n";
  write_comparison_json(rows, out / "comparison.json");
  ReportOptions report{out, executable_dir() / "kausal-animation", file, setup, {}};
  report.progress = [](std::size_t k, std::size_t n, const std::string& what) {
    std::cout << "report: [" << k << "/" << n << "] " << what << std::endl;
  };
  const auto warnings = write_report(runs, report);
  for (const auto& w : warnings) std::cerr << "kausal: report: " << w << "\n";
  std::cout << "report: " << (out / "report.html").string() << "\n";
}

// The exit code of a comparison: the first failed run's, or 1 if a digest differs from the
// reference's — except an optimistic run with a prediction tolerance, which may differ.
int comparison_exit_code(const std::vector<ReportRun>& runs, double tolerance) {
  const RunResult& reference = runs.front().result;
  for (const auto& [r, dir, round] : runs) {
    if (!r.completed()) {
      std::cerr << "kausal: " << r.label() << ": " << r.error << "\n";
      return static_cast<int>(r.exit_code);
    }
    if (r.trajectory_sha256 == reference.trajectory_sha256) continue;
    if (r.method == SyncMethod::optimistic && tolerance > 0) {
      std::cerr << "kausal: " << r.label() << " differs from sequential, as a prediction "
                << "tolerance of " << tolerance << " allows\n";
      continue;
    }
    std::cerr << "kausal: " << r.label() << " gives a different trajectory digest than "
              << reference.label() << " (a bug: methods must agree bit for bit)\n";
    return static_cast<int>(ExitCode::simulation_failed);
  }
  return 0;
}

// The end of one `kausal run`: the summary on stdout, the error on stderr, the animation
// held as asked; the run's exit code.
int finish_run(const Options& o, const RunResult& r, const fs::path& out,
               std::unique_ptr<AnimationProcess>& animation) {
  std::cout << format_summary(r) << "  output        " << out.string() << "\n";
  if (!r.completed()) std::cerr << "kausal: " << r.error << "\n";
  hold_animation(o, animation);
  return static_cast<int>(r.exit_code);
}

// ---- partitioned models (docs/model.md §4) ----

CosimMode cosim_mode(const Options& o, const CosimScenario& s, SyncMethod method) {
  CosimMode mode;
  mode.speculate = method == SyncMethod::optimistic;
  mode.tolerance = o.tolerance.value_or(s.tolerance);
  mode.window = o.window_given ? o.window : CosimMode{}.window;
  mode.rollback_check = o.rollback_check && method != SyncMethod::sequential;
  return mode;
}

// What a resume must keep of a partitioned run (checkpoint.json).
RunSetup run_setup(const CosimScenario& s, SyncMethod method, const CosimMode& mode,
                   const Options& o, Layout layout) {
  const bool optimistic = method == SyncMethod::optimistic;
  return {s.file,
          method,
          Guarantee::none,
          method == SyncMethod::sequential ? RunLayout{} : RunLayout{layout},
          0,
          optimistic ? mode.window : 0,
          false,
          mode.rollback_check,
          optimistic ? mode.tolerance : 0.0,
          o.pin,
          o.call_timeout_ms};
}

// A partitioned model's run, fresh or resumed; with `animation`, shown live as plots (as
// execute() shows a chain's run: the same feed, strips and horizon).
RunResult execute_partitioned(const CosimScenario& s, SyncMethod method, const fs::path& out,
                              const Options& o, OrbOnDemand& orb, Layout layout,
                              AnimationProcess* animation,
                              const ResumedPartitionedRun* resumed = nullptr) {
  fs::create_directories(out);
  const CosimMode mode = cosim_mode(o, s, method);
  CosimPlan plan = plan_cosim(s, mode);
  if (resumed) resumed->apply_to(plan);
  const fs::path csv = out / "trajectory.csv";
  CosimRecorder recorder =
      resumed ? CosimRecorder(csv, s, plan, resumed->checkpoint.partitions().recorder)
              : CosimRecorder(csv, s, plan);
  Checkpointer checkpoints(
      out, resumed ? resumed_checkpoint(*resumed)
                   : fresh_checkpoint(s, run_setup(s, method, mode, o, layout), out));
  CosimWatchers watchers{nullptr, &checkpoints};
  ProgressBar progress(to_string(method), stderr_is_terminal());
  const std::string label = to_string(method);
  std::unique_ptr<AnimationFeed> feed;
  std::optional<TraceFile> trace;
  RunResult result;
  try {
    if (method == SyncMethod::sequential) {
      trace.emplace(out / "trace.json", o.trace);
      if (animation) feed = animation->begin_run(s, plan, label, {"sequential"}, monotonic_ns());
      watchers.observer = feed.get();
      result = run_cosim_sequential(s, plan, recorder, progress, watchers);
      finish_feed(feed, result);
    } else {
      const LaunchOptions launch = launch_options(
          o, out, layout, o.pin == "cores" ? available_cpus() : std::vector<int>{}, orb);
      ProcessDeployment deployment(partitioned_deployment(s, plan), orb.get(), launch);
      if (animation) {
        std::vector<std::string> strips{"monitor"};
        for (const auto& name : deployment.component_names()) strips.push_back(name);
        feed = animation->begin_run(s, plan, label, strips, monotonic_ns());
        deployment.observe(animation->view());
      }
      trace.emplace(out / "trace.json", o.trace);
      trace->track("monitor", ComponentRole::monitor, local_host_name(),
                   static_cast<long>(getpid()));
      TraceCollector collector(*trace, feed.get());  // streams trace.json as the run goes
      for (auto& source : deployment.trace_sources()) collector.add(std::move(source));
      watchers.observer = &collector;
      result = run_cosim_distributed(s, method, plan, deployment, recorder, progress, watchers);
      collector.finish();
      finish_feed(feed, result);
      result.layout = layout;
      result.placement = o.pin;
      if (result.status == RunStatus::failed) result.error += deployment.post_mortem();
      if (result.completed()) deployment.shutdown();
    }
  } catch (const Error& e) {
    result = describe_cosim_run(s, method, mode);
    result.end_with(e);
  }
  if (o.deploy_file && method != SyncMethod::sequential) result.deployment = o.deploy_file->file;
  if (resumed) result.resumed_from = resumed_checkpoint(*resumed).resumed_from;
  write_run_files(trace, out, o.trace, result);
  return result;
}

int run_partitioned(const Options& o) {
  const CosimScenario s = load_cosim_scenario(o.scenario, o.limits);
  const SyncMethod method = o.method_given ? o.method : s.method;
  if (o.tolerance && method != SyncMethod::optimistic)
    throw InputError("command line: --tolerance applies to --method optimistic");
  if (o.layout_given && method == SyncMethod::sequential)
    throw InputError("command line: --layout applies to conservative and optimistic runs");
  if (o.rollback_check && method == SyncMethod::sequential)
    throw InputError(
        "command line: --rollback-check applies to the Integrators of conservative and "
        "optimistic runs");
  const fs::path out = output_dir(o, s.name, to_string(method));
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, out);
  const RunResult r =
      execute_partitioned(s, method, out, o, orb, parse_layout(o.layout), animation.get());
  return finish_run(o, r, out, animation);
}

// Sequential, conservative and optimistic; with tolerance 0 every digest must agree, with a
// tolerance the optimistic run may differ (by design, bounded by the tolerance).
int compare_partitioned(const Options& o) {
  const CosimScenario s = load_cosim_scenario(o.scenario, o.limits);
  const fs::path out = output_dir(o, s.name, "compare");
  const double tolerance = o.tolerance.value_or(s.tolerance);
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, out);  // one view for every run, as for chains
  const bool several_layouts = o.layouts.size() > 1;
  ComparisonRuns runs(s.file, o.repeat * (1 + 2 * o.layouts.size()), several_layouts);
  auto run_one = [&](SyncMethod method, const std::string& layout, std::size_t k) {
    const fs::path where =
        comparison_dir(out, several_layouts ? layout : "", to_string(method), k, o.repeat);
    runs.add(execute_partitioned(s, method, where, o, orb, parse_layout(layout), animation.get()),
             where, k);
  };
  for (std::size_t k = 0; k < o.repeat && !runs.failed(); ++k) {
    run_one(SyncMethod::sequential, "process", k);
    for (const auto& name : o.layouts)
      for (const SyncMethod method : {SyncMethod::conservative, SyncMethod::optimistic})
        if (!runs.failed()) run_one(method, name, k);
  }
  std::ostringstream setup;
  setup << s.partitions.size() << " partitions, " << runs.all().front().result.integrator
        << ", t_end " << s.t_end << " s, tolerance " << tolerance;
  present_comparison(s.file, setup.str(), runs.all(), out);
  hold_animation(o, animation);
  return comparison_exit_code(runs.all(), tolerance);
}

// `kausal models [NAME]`: the registered models, or one with its ports and parameters.
int models_command(const std::string& name) {
  const ModelRegistry& registry = model_registry();
  if (name.empty()) {
    for (const auto& [model, info] : registry.all())
      std::cout << "  " << model << std::string(model.size() < 22 ? 22 - model.size() : 1, ' ')
                << info.summary << "\n";
    std::cout << "kausal models NAME: its ports and parameters\n";
    return 0;
  }
  const ModelInfo* info = registry.find(name);
  if (!info) throw InputError("command line: no model '" + name + "' (kausal models lists them)");
  // The ports need an instance: defaults, and 1 (or the nearest allowed value) where a
  // parameter is required.
  Parameters defaults;
  for (const auto& p : info->parameters)
    defaults.emplace_back(p.name,
                          p.default_value ? *p.default_value : std::clamp(1.0, p.min, p.max));
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  std::cout << name << ": " << info->summary << "\n";
  try {
    const Signature sig = registry.make(name, name, defaults)->signature();
    std::cout << "  states   " << join(sig.states) << "\n  inputs   " << join(sig.inputs)
              << "\n  outputs  " << join(sig.outputs) << "\n";
  } catch (const ModelError&) {
  }
  std::cout << "  parameters:\n";
  for (const auto& p : info->parameters) {
    std::ostringstream d;
    if (p.default_value)
      d << "default " << *p.default_value;
    else
      d << "required";
    std::cout << "    " << p.name << std::string(p.name.size() < 14 ? 14 - p.name.size() : 1, ' ')
              << p.meaning << " (" << d.str() << ")\n";
  }
  return 0;
}

// The state of the monolithic model at t (partitions in order, as build_monolithic_model
// stacks them), from a sequential run of the scenario up to t. InputError if t is not on
// every partition's grid or beyond t_end.
Vector state_at(CosimScenario s, double t) {
  std::uint64_t ticks = 0;
  const double k = t / s.tick;
  if (!(t <= s.t_end) || std::abs(k - std::round(k)) > 1e-9 * std::max(1.0, k))
    throw InputError("command line: --at must be a whole number of the smallest step, <= t_end");
  ticks = static_cast<std::uint64_t>(std::round(k));
  for (auto& p : s.partitions) {
    if (ticks % p.ticks_per_step != 0)
      throw InputError("command line: --at is not on the step grid of partition '" + p.name + "'");
    p.steps = ticks / p.ticks_per_step;
  }
  s.ticks = ticks;
  s.t_end = t;
  const CosimPlan plan = plan_cosim(s, {});
  CosimRecorder recorder("", s, plan, true);
  RunControl quiet;
  const RunResult r = run_cosim_sequential(s, plan, recorder, quiet);
  if (!r.completed()) throw SimulationError("analyze --at: the run to t failed: " + r.error);
  const auto& last = recorder.rows().back();
  return Eigen::Map<const Vector>(last.data() + 1, static_cast<Eigen::Index>(last.size() - 1));
}

// `kausal analyze S [--at T]`: the partition diagnostics (docs/adding-a-model.md) from the Jacobian
// of the whole coupled model at the initial state, or at T after a sequential run to it (nonlinear
// models change their eigenvalues along the way). Exit 0 even with warnings: they are advice.
int analyze_command(const std::string& file, std::optional<double> at) {
  const ScenarioKind kind = scenario_kind(file);
  if (!kind.partitioned)
    throw InputError(kind.where +
                     ": analyze needs a partitioned model ([[subsystem]] tables); this is a "
                     "pendulum chain");
  const CosimScenario s = load_cosim_scenario(file);
  const auto model = build_monolithic_model(s);
  Vector x = model->initial_state();
  double t = s.t0();
  if (at && *at > 0) {
    x = state_at(s, *at);
    t = *at;
  }
  Matrix J = Matrix::Zero(x.size(), x.size());
  model->jacobian(t, x, Vector(), J);
  std::vector<PartitionStepping> stepping;
  for (const auto& p : s.partitions) stepping.push_back({p.method, p.h});
  const PartitionReport report = analyze_partitions(J, partition_blocks(s), stepping);
  std::cout << "kausal analyze · " << s.file << " · " << s.partitions.size() << " partitions, "
            << x.size() << " states; Jacobian of the coupled model at t = " << t << "\n\n"
            << format_partition_report(report);
  return 0;
}

// --deploy: the file is read before anything starts; its monitor_host applies unless --host
// is given. A run that deploys nothing (sequential) or hosts everything in the monitor
// (single) cannot use it.
void prepare_deployment(const CLI::App& cmd, Options& o) {
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
  const bool host_given = cmd.get_option("--host")->count() > 0;
  if (!host_given && !o.deploy_file->monitor_host.empty())
    o.transport.host = o.deploy_file->monitor_host;
  const bool is_run = cmd.get_name() == "run";
  if (is_run && o.method == SyncMethod::sequential && cmd.get_option("--method")->count() > 0)
    throw InputError(
        "command line: --deploy applies to conservative and optimistic runs "
        "(sequential runs in the monitor)");
  const std::vector<std::string> layouts = is_run ? std::vector<std::string>{o.layout} : o.layouts;
  for (const auto& l : layouts)
    if (l == "single")
      throw InputError(
          "command line: --deploy starts processes on nodes; the single layout "
          "has none (use process or pendulum)");
}

// Chain-only options given with a partitioned scenario are a mistake, not a no-op.
void reject_chain_options(const CLI::App& cmd) {
  auto given = [&](const char* name) {
    const CLI::Option* opt = cmd.get_option_no_throw(name);
    return opt && opt->count() > 0;
  };
  for (const char* name : {"--guarantee", "--batch", "--check-guarantees"})
    if (given(name))
      throw InputError(std::string("command line: ") + name +
                       " applies to pendulum-chain scenarios, not to partitioned models");
}

// Options that only mean something for another method are a mistake, not a no-op.
void reject_options_of_other_methods(const CLI::App& run, const Options& o) {
  auto given = [&](const char* name) { return run.get_option(name)->count() > 0; };
  auto refuse = [](const std::string& what) { throw InputError("command line: " + what); };
  if (given("--guarantee") && o.method != SyncMethod::conservative)
    refuse("--guarantee applies to --method conservative");
  if (o.check_guarantees &&
      !(o.method == SyncMethod::conservative && o.guarantee == Guarantee::lookahead))
    refuse("--check-guarantees applies to --method conservative --guarantee lookahead");
  if ((given("--batch") || given("--window")) && o.method != SyncMethod::optimistic)
    refuse("--batch and --window apply to --method optimistic");
  if (o.rollback_check && o.method == SyncMethod::sequential)
    refuse("--rollback-check applies to the Integrators of conservative and optimistic runs");
  if (given("--layout") && o.method == SyncMethod::sequential)
    refuse(
        "--layout applies to --method conservative and optimistic (sequential deploys no "
        "components)");
}

int run_command(const Options& o) {
  if (is_partitioned_scenario(o.scenario)) return run_partitioned(o);
  const Scenario s = load_scenario(o.scenario, o.limits);
  const MethodSpec m{o.method,
                     o.method == SyncMethod::conservative ? o.guarantee : Guarantee::none};
  const fs::path out = output_dir(o, s.name, to_string(o.method));
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, out);
  const RunResult r = execute(s, m, out, o, orb, parse_layout(o.layout), animation.get());
  return finish_run(o, r, out, animation);
}

// Options that would change what a resumed run computes, with the values the command line
// gave (checked against the checkpoint: prepare_resume).
ResumeRequest resume_request(const CLI::App& run, const Options& o) {
  ResumeRequest r{o.resume, o.scenario, {}, o.limits};
  const std::map<std::string, std::string> values = {
      {"--method", to_string(o.method)},
      {"--guarantee", to_string(o.guarantee)},
      {"--layout", o.layout},
      {"--batch", std::to_string(o.batch)},
      {"--window", std::to_string(o.window)},
      {"--check-guarantees", o.check_guarantees ? "true" : "false"},
      {"--rollback-check", o.rollback_check ? "true" : "false"},
      {"--out", o.out},
      {"--force", "true"},
      {"--tolerance", option_value(o.tolerance.value_or(0.0))}};
  for (const auto& [name, value] : values)
    if (run.get_option(name)->count() > 0) r.given[name] = value;
  return r;
}

// kausal run --resume DIR: the run as stored in DIR's checkpoint, continued from its last
// committed step; transport options come from this command line.
// A partitioned model's run continued from DIR's checkpoint.
int resume_partitioned(Options o, const ResumeRequest& request, Checkpoint checkpoint) {
  const ResumedPartitionedRun resumed = prepare_partitioned_resume(request, std::move(checkpoint));
  if (resumed.complete()) {
    std::cout << "kausal: nothing to resume: " << o.resume << " has recorded all "
              << resumed.scenario.ticks << " ticks\n";
    return 0;
  }
  const RunSetup& setup = resumed.checkpoint.setup;
  o.layout = to_string(setup.layout.value_or(Layout::process));
  o.window_given = setup.method == SyncMethod::optimistic;
  o.window = setup.window;
  o.tolerance = setup.tolerance;
  o.rollback_check = setup.rollback_check;
  keep_previous_attempt(o.resume);
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, o.resume);
  const RunResult r = execute_partitioned(resumed.scenario, setup.method, o.resume, o, orb,
                                          parse_layout(o.layout), animation.get(), &resumed);
  return finish_run(o, r, o.resume, animation);
}

int resume_command(Options o, const CLI::App& run) {
  const ResumeRequest request = resume_request(run, o);
  Checkpoint checkpoint = read_resumable(request);
  if (checkpoint.partitioned())
    return resume_partitioned(std::move(o), request, std::move(checkpoint));
  const ResumedRun resumed = prepare_resume(request, std::move(checkpoint));
  if (resumed.complete()) {
    std::cout << "kausal: nothing to resume: " << o.resume << " has committed all "
              << resumed.scenario.steps << " steps\n";
    return 0;
  }
  const RunSetup& setup = resumed.checkpoint.setup;
  o.method = setup.method;
  o.guarantee = setup.guarantee;
  o.layout = to_string(setup.layout.value_or(Layout::process));
  if (setup.method == SyncMethod::optimistic) {
    o.batch = setup.batch;
    o.window = setup.window;
  }
  o.check_guarantees = setup.check_guarantees;
  o.rollback_check = setup.rollback_check;
  keep_previous_attempt(o.resume);
  const MethodSpec m{o.method, setup.guarantee};
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, o.resume);
  const RunResult r = execute(resumed.scenario, m, o.resume, o, orb, parse_layout(o.layout),
                              animation.get(), &resumed);
  return finish_run(o, r, o.resume, animation);
}

int compare_command(const Options& o) {
  if (is_partitioned_scenario(o.scenario)) return compare_partitioned(o);
  const Scenario s = load_scenario(o.scenario, o.limits);
  const fs::path out = output_dir(o, s.name, "compare");
  OrbOnDemand orb(o);
  auto animation = start_animation(o, orb, out);
  // Every method in every layout listed; sequential (no components, no layout) once.
  // One layout: <out>/<method>, as before layouts existed; several: <out>/<layout>/<method>.
  std::vector<Layout> layouts;
  for (const auto& name : o.layouts) {
    const Layout l = parse_layout(name);
    if (std::find(layouts.begin(), layouts.end(), l) == layouts.end()) layouts.push_back(l);
  }
  const bool several_layouts = layouts.size() > 1;
  ComparisonRuns runs(s.file, o.repeat * (1 + layouts.size() * (kCompared.size() - 1)),
                      several_layouts);
  auto run_one = [&](const MethodSpec& m, Layout l, std::size_t k) {
    const bool own_dir = several_layouts && m.method != SyncMethod::sequential;
    const fs::path where = comparison_dir(out, own_dir ? to_string(l) : "", m.dir(), k, o.repeat);
    runs.add(execute(s, m, where, o, orb, l, animation.get()), where, k);
  };
  for (std::size_t k = 0; k < o.repeat && !runs.failed(); ++k) {
    run_one(kCompared.front(), layouts.front(), k);
    for (const Layout l : layouts)
      for (const auto& m : kCompared)
        if (m.method != SyncMethod::sequential && !runs.failed()) run_one(m, l, k);
  }
  std::ostringstream setup;
  setup << s.pendulums() << " pendulums, " << ode_method_name(s.method) << ", " << s.steps
        << " steps of " << s.h << " s";
  present_comparison(s.file, setup.str(), runs.all(), out);
  hold_animation(o, animation);
  return comparison_exit_code(runs.all(), 0);
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
  cmd->add_option("--tls-ca", t.tls.ca_file,
                  "TLS between all processes (giop:ssl): the CA certificate (PEM). Every "
                  "process must then present a certificate signed by it (kausal certs)");
  cmd->add_option("--tls-cert", t.tls.cert_file,
                  "TLS: the monitor's certificate and private key in one PEM file");
  cmd->add_option("--tls-password", t.tls.password, "TLS: password of the private key, if any");
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
                  "pendulum or partition; pendulum: one)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
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
                  "optimistic: steps an Integrator may run ahead of the last commit (GVT); "
                  "bounds its state list and the work a rollback can waste. Partitioned "
                  "models: steps a partition may run past its last final step, default " +
                      std::to_string(CosimMode{}.window) +
                      " (predictions degrade with distance, docs/performance.md); at most "
                      "1000000 (components refuse windows beyond their memory budget)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
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
  cmd->add_option("--pin", o.pin,
                  "cores: pin each pendulum's processes (layout process: its System and "
                  "Integrator; pendulum: its kausal-pendulum) and, conservative, the monitor "
                  "thread that calls them to one CPU, pendulum i on CPU i mod #CPUs; layout "
                  "single: only the conservative monitor lanes are pinned, and pendulum i "
                  "computes on its lane's CPU; none: the OS places everything (conservative: "
                  "one monitor thread per component)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cores", "none"}));
  cmd->add_option("--startup-timeout", o.startup_timeout_ms,
                  "ms all component processes together may take to start")
      ->capture_default_str()
      ->check(CLI::Range(100u, 600'000u));
  cmd->add_flag("--animate", o.animate,
                "show the run live in kausal-animation (Qt): pendulums from committed frames, or "
                "for partitioned models their recorded states plotted against simulated time "
                "(one plot per partition); a busy/waiting/rollback strip per component; a "
                "progress bar with the guarantee or GVT (partitioned models: the last step "
                "every partition has made final, and each one's) and rollbacks. Every method, "
                "every model kind. Needs a display (DISPLAY or WAYLAND_DISPLAY): without one it "
                "is refused (exit 2) before the run, or with --animate-until run-end the run "
                "goes on without it");
  cmd->add_option("--animate-until", o.animate_until,
                  "window-closed: kausal waits until the animation window is closed; run-end: "
                  "the window closes when the run (compare: the last run) ends")
      ->capture_default_str()
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
  run->add_option("--resume", o.resume,
                  "continue the failed or interrupted run in this output directory from its "
                  "last committed step (OUT/checkpoint.json) to the digest of an uninterrupted "
                  "run. The scenario, method and options that change what is computed come "
                  "from the checkpoint (giving a different one is refused); --host, "
                  "--link-delay, --tls-*, --call-timeout, --startup-timeout and --pin may be "
                  "given anew. Nothing to resume (the run completed): exit 0. Pendulum chains "
                  "and partitioned models alike (docs/architecture.md, \"Checkpoints and "
                  "resume\")");
  run->add_option("--layout", o.layout,
                  "conservative and optimistic: process: one process per System and per "
                  "Integrator; pendulum: one process per pendulum hosting both; single: every "
                  "servant in the kausal process itself (calls still through the ORB, as "
                  "collocated calls)")
      ->capture_default_str()
      ->check(CLI::IsMember({"process", "pendulum", "single"}));

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
      ->add_option("--layout", o.layouts,
                   "comma-separated layouts (process, pendulum, single; see run --help): "
                   "every method runs in every layout listed, sequential once")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"process", "pendulum", "single"}));
  compare
      ->add_option("--repeat", o.repeat,
                   "run every method K times, in K rounds (each method once per round): the "
                   "table gives medians and the range of the wall times; OUT/<method>/1..K")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));

  std::string model_name;
  CLI::App* models = app.add_subcommand(
      "models", "list the registered models (for partitioned scenarios), or show one");
  models->add_option("name", model_name, "a model: its states, inputs, outputs, parameters");

  CertsOptions certs_options;
  CLI::App* certs = add_certs_command(app, certs_options);

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
    o.window_given = (run->parsed() ? run : compare)->get_option("--window")->count() > 0;
    o.method_given = run->parsed() && run->get_option("--method")->count() > 0;
    o.layout_given = run->parsed() && run->get_option("--layout")->count() > 0;
    if (analyze->parsed()) return analyze_command(analyzed, analyze_at);
    const CLI::App* used = run->parsed() ? run : compare;
    prepare_deployment(*used, o);
    if (run->parsed() && !o.resume.empty()) return resume_command(o, *run);
    if (o.scenario.empty()) throw InputError("command line: scenario is required (or --resume)");
    if (is_partitioned_scenario(o.scenario)) {
      reject_chain_options(*used);
    } else {
      if (used->get_option("--tolerance")->count() > 0)
        throw InputError("command line: --tolerance applies to partitioned models");
      if (run->parsed()) reject_options_of_other_methods(*run, o);
    }
    if (used->get_option("--animate-until")->count() > 0 && !o.animate)
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
