#include "monitor/cli/run_commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/text_table.hpp"
#include "common/view_pace.hpp"
#include "monitor/analysis/global_error.hpp"
#include "monitor/deploy/process_platform.hpp"
#include "monitor/record/checkpoint.hpp"
#include "monitor/record/progress_bar.hpp"
#include "monitor/record/report.hpp"
#include "monitor/record/summary.hpp"
#include "monitor/run/feasibility.hpp"
#include "monitor/run/injection_check.hpp"
#include "monitor/run/output_dir.hpp"
#include "monitor/run/run.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/sync/block_stepper.hpp"
#include "monitor/sync/injections.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;

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

PlatformOptions platform_options(const Options& o) {
  PlatformOptions p;
  p.bin_dir = executable_dir();
  p.transport = o.transport;
  p.call_timeout_ms = o.call_timeout_ms;
  p.startup_timeout = std::chrono::milliseconds(o.startup_timeout_ms);
  p.max_processes = o.max_processes;
  p.deploy_file = o.deploy_file;
  p.naming = o.naming;
  return p;
}

// The live view runs on the monitor's host and talks the way the monitor does.
OrbSettings animation_orb_settings(const Options& o) {
  OrbSettings s = o.transport;
  s.host = "127.0.0.1";
  s.call_timeout_ms = o.call_timeout_ms;
  return s;
}

// The window's run controls for `model`'s runs: only paced runs serve an operator (an
// animated discrete-event run is not paced); what the model takes, with an example from it.
ViewControls view_controls(const Options& o, const RunModel& model, const fs::path& out) {
  ViewControls c;
  const auto* events = std::get_if<EventsModel>(&model);
  if (!o.realtime.paced() || (events && o.realtime.for_view)) return c;
  c.operator_file = out / "operator.ior";
  if (events) {
    c.kind = "events";
    c.example = events->scenario->built->component_name(0) + " = 1";
  } else if (const auto* p = std::get_if<PartitionedModel>(&model)) {
    c.kind = "values";
    for (const SubsystemSpec& sub : p->scenario->subsystems) {
      const Parameters& values = sub.constant_inputs.empty() ? sub.parameters : sub.constant_inputs;
      if (values.empty()) continue;
      c.example =
          sub.name + "." + values.front().first + " = " + format_number(values.front().second);
      break;
    }
  }
  return c;
}

// --animate: the view every run of the command is shown in. Refused (exit 2) before the run
// when no window can be shown, unless the window was only to last until the run ends: then
// the run goes on without it. Either way the terminal says why.
class AnimationWindow {
 public:
  AnimationWindow(const Options& o, ProcessPlatform& platform, const fs::path& out,
                  const RunModel& model)
      : o_(o), platform_(platform) {
    if (!o.animate) return;
    std::string why = missing_display();
    if (why.empty()) {
      try {
        view_ = std::make_unique<AnimationProcess>(
            platform.orb(), executable_dir() / "kausal-animation", out / "logs" / "animation.log",
            animation_orb_settings(o), std::chrono::milliseconds(o.startup_timeout_ms),
            view_controls(o, model, out));
        platform.show_in(view_.get());
        return;
      } catch (const PeerError& e) {
        why = std::string("the animation could not open its window: ") + e.what();
      }
    }
    if (o.animate_until == AnimateUntil::window_closed)
      throw InputError(
          "command line: --animate: " + why +
          ". Run without --animate (kausal-animation --snapshot FILE.png --run OUT draws the run "
          "afterwards), or "
          "with --animate-until run-end to run without the window");
    std::cerr << "kausal: --animate: " << why << "; the run goes on without the animation\n";
  }
  ~AnimationWindow() { platform_.show_in(nullptr); }
  AnimationWindow(const AnimationWindow&) = delete;
  AnimationWindow& operator=(const AnimationWindow&) = delete;

  // After the last run. --animate-until window-closed: the view keeps playing; waits for
  // the user (unless the platform shows no window that could be closed). Then closes it.
  void hold() {
    if (!view_) return;
    if (o_.animate_until == AnimateUntil::window_closed && view_->running()) {
      if (windowless_platform()) {
        std::cerr << "kausal: the animation has no window to close (QT_QPA_PLATFORM="
                  << std::getenv("QT_QPA_PLATFORM") << "): it ends with the run\n";
      } else {
        std::cerr << "kausal: the animation keeps playing; close its window to finish\n";
        view_->wait_until_closed([] { return InterruptFlag::flag().load(); });
      }
    }
    platform_.show_in(nullptr);
    view_.reset();  // closes it if it is still open
  }

 private:
  const Options& o_;
  ProcessPlatform& platform_;
  std::unique_ptr<AnimationProcess> view_;
};

// The scenario of the command line, as the kind of model it describes.
RunModel load_model(const Options& o) {
  if (is_event_scenario(o.scenario))
    return EventsModel{std::make_shared<const EventScenario>(load_event_scenario(o.scenario)),
                       nullptr};
  if (is_partitioned_scenario(o.scenario)) {
    PartitionedScenario s = load_partitioned_scenario(o.scenario, o.limits);
    choose_integrators(s);
    return PartitionedModel{std::make_shared<const PartitionedScenario>(std::move(s)), nullptr};
  }
  return ChainModel{std::make_shared<const Scenario>(load_scenario(o.scenario, o.limits)), nullptr};
}

std::string scenario_name(const RunModel& model) {
  return std::visit([](const auto& m) { return m.scenario->name; }, model);
}

// The runs a command makes of the model: the method and guarantee with the layout (none
// for sequential).
RunShape shape(const RunModel& model, SyncMethod method, Guarantee guarantee, Layout layout) {
  return {kind_of(model), method, guarantee,
          method == SyncMethod::sequential ? RunLayout{} : RunLayout{layout}};
}

// The one run of `kausal run`: a layout the command line gives a sequential run is asked of
// it (and refused: it has none).
RunShape the_run(const Options& o, const RunModel& model, SyncMethod method, Guarantee guarantee,
                 Layout layout) {
  RunShape run = shape(model, method, guarantee, layout);
  if (o.was_given("--layout")) run.layout = layout;
  return run;
}

// One run of the command: the model under `method` in `layout`, written to `out`.
RunSpec spec_for(const Options& o, const RunModel& model, SyncMethod method, Guarantee guarantee,
                 Layout layout, const fs::path& out) {
  RunSpec spec;
  spec.model = model;
  spec.method = method;
  spec.guarantee = guarantee;
  spec.layout = layout;
  if (in_blocks(layout)) spec.blocks = o.blocks;
  // The settings go to the runs that take them (in a comparison, --window to the optimistic
  // ones); check_capabilities refused those no run takes.
  const RunShape run = shape(model, method, guarantee, layout);
  auto takes = [&run](Setting setting) { return !refusal(run, setting); };
  spec.batch = o.batch;
  if (o.was_given("--window") && takes(Setting::window)) spec.window = o.window;
  if (takes(Setting::tolerance)) spec.tolerance = o.tolerance;
  spec.groups = o.groups;
  spec.check_guarantees = o.check_guarantees && takes(Setting::check_guarantees);
  spec.rollback_check = o.rollback_check && !refusal(run, Service::rollback_check);
  spec.pin = o.pin;
  spec.trace = o.trace;
  spec.out = out;
  if (o.deploy_file) spec.deployment_file = o.deploy_file->file;
  spec.call_timeout_ms = o.call_timeout_ms;
  spec.realtime = o.realtime;
  // --animate paces the continuous kinds that can be paced as fast as the view plays them (a
  // chain in real time, plots a run in about 10 s); the others, and discrete events (whose
  // time is the model's own, often far from seconds), it shows as fast as they go.
  if (spec.realtime.for_view) {
    const bool animate_unpaced = refusal(run, Service::paced) || run.kind == ModelKind::events;
    if (animate_unpaced)
      spec.realtime = RealtimeOptions{};
    else if (const auto* p = std::get_if<PartitionedModel>(&model))
      spec.realtime.factor = view_playback_rate(true, p->scenario->t_end);
  }
  return spec;
}

RunResult run_with_progress(const RunSpec& spec, RunPlatform& platform) {
  ProgressBar progress(to_string(spec.method), stderr_is_terminal());
  return run(spec, platform, progress);
}

// The end of one `kausal run`: the summary on stdout, the error on stderr, the animation
// held as asked; the run's exit code. A run refused before its first step (bad input: exit 2)
// has nothing to sum up: its error alone, and the directory made for it goes again.
int finish_run(const RunResult& r, const fs::path& out, AnimationWindow& animation, bool made_out) {
  if (r.exit_code == ExitCode::bad_input && r.steps == 0 && r.resumed_from.empty()) {
    std::cerr << "kausal: " << r.error << "\n";
    std::error_code ignored;
    if (made_out) fs::remove_all(out, ignored);
    return static_cast<int>(r.exit_code);
  }
  std::cout << format_summary(r) << "  output        " << out.string() << "\n";
  if (!r.completed()) std::cerr << "kausal: " << r.error << "\n";
  animation.hold();
  return static_cast<int>(r.exit_code);
}

// ---- compare ----

// A method of a comparison with its guarantee.
using Compared = std::pair<SyncMethod, Guarantee>;

// The prediction error the optimistic runs of a comparison accept (0 for chains).
double accepted_error(const Options& o, const RunModel& model) {
  if (const auto* p = std::get_if<PartitionedModel>(&model))
    return o.tolerance.value_or(p->scenario->tolerance);
  return 0;
}

// compare --reference, state by state: every partition alone against the coupled sequential
// run (ReferenceAnswer::alone_errors, state_errors).
std::vector<StateErrorRow> state_error_rows(ReferenceAnswer& reference,
                                            const fs::path& sequential_dir) {
  const std::vector<double> coupled = reference.state_errors(sequential_dir / "trajectory.csv");
  std::vector<StateErrorRow> rows;
  for (const auto& partition : reference.alone_errors())
    for (const auto& [state, error] : partition)
      rows.push_back({state, error, rows.size() < coupled.size() ? coupled[rows.size()] : 0.0});
  return rows;
}

// The line that says what a comparison ran.
std::string setup_line(const Options& o, const RunModel& model, const RunResult& reference) {
  std::ostringstream setup;
  if (const auto* e = std::get_if<EventsModel>(&model)) {
    const EventScenario& s = *e->scenario;
    setup << s.model << ", " << s.built->components() << " components, " << s.groups
          << " groups, to t = " << s.end;
  } else if (const auto* p = std::get_if<PartitionedModel>(&model)) {
    setup << counted(p->scenario->partitions.size(), "partition") << ", " << reference.integrator
          << ", t_end " << p->scenario->t_end << " s, tolerance " << accepted_error(o, model);
  } else {
    const Scenario& s = *std::get<ChainModel>(model).scenario;
    setup << s.pendulums() << " pendulums, " << ode_method_name(s.method) << ", " << s.steps
          << " steps of " << s.h << " s";
  }
  return setup.str();
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

// The table on the terminal, OUT/comparison.json and OUT/report.html.
void present_comparison(const std::string& file, const std::string& setup,
                        const std::vector<ReportRun>& runs, const fs::path& out, std::size_t width,
                        const std::vector<StateErrorRow>& by_state) {
  const auto rows = report_rows(runs);
  std::cout << "\nkausal compare · " << file << " · " << setup << "\n\n"
            << format_comparison(rows, width) << format_state_errors(by_state)
            << "\noutput: " << out.string() << "\n";
  write_comparison_json(rows, out / "comparison.json", by_state);
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

}  // namespace

// The method a scenario names for itself (partitioned: run.method; discrete events:
// events.method), unless the command line gives one.
SyncMethod method_for(const Options& o, const RunModel& model) {
  if (o.was_given("--method")) return o.method;
  if (const auto* p = std::get_if<PartitionedModel>(&model)) return p->scenario->method;
  if (const auto* e = std::get_if<EventsModel>(&model)) return e->scenario->method;
  return o.method;
}

// Discrete-event groups run as threads of the monitor (the single layout) unless the
// command line asks for another: --layout process starts a process per group.
Layout layout_for(const Options& o, const RunModel& model, Layout given) {
  return std::holds_alternative<EventsModel>(model) && !o.was_given("--layout") ? Layout::single
                                                                                : given;
}

// What the command line asks of a run besides its method and layout.
std::vector<Service> services_asked(const Options& o) {
  const std::pair<bool, Service> services[] = {
      {o.was_given("--realtime") && o.realtime.clock == ClockSource::wall, Service::paced},
      {o.was_given("--external-clock"), Service::external_clock},
      {!o.replay.empty(), Service::replay},
      {!o.resume.empty(), Service::resume},
      {o.rollback_check, Service::rollback_check},
      {o.animate, Service::animate},
      {!o.deploy.empty(), Service::nodes},
      {o.transport.tls.enabled(), Service::tls}};
  std::vector<Service> asked;
  for (const auto& [given, service] : services)
    if (given) asked.push_back(service);
  return asked;
}

std::vector<Setting> settings_asked(const Options& o) {
  const std::pair<bool, Setting> settings[] = {{o.was_given("--guarantee"), Setting::guarantee},
                                               {o.check_guarantees, Setting::check_guarantees},
                                               {o.was_given("--batch"), Setting::batch},
                                               {o.was_given("--window"), Setting::window},
                                               {o.tolerance.has_value(), Setting::tolerance},
                                               {o.groups.has_value(), Setting::groups},
                                               {o.reference, Setting::reference}};
  std::vector<Setting> asked;
  for (const auto& [given, setting] : settings)
    if (given) asked.push_back(setting);
  return asked;
}

[[noreturn]] void refuse(std::string_view asked, const RunShape& run, const std::string& why) {
  throw InputError("command line: " + std::string(asked) + " with " + describe(run) + ": " + why);
}

// The runs of a command against the capability table (monitor/core/capabilities.hpp): each
// run's method and layout, and every service and setting the command line asks for. A
// comparison's sequential reference runs in the monitor whatever is deployed or checked
// (services go to the others), and a setting is for the runs of a comparison that take it:
// refused only when none does.
void check_capabilities(const Options& o, const std::vector<RunShape>& runs, bool comparison) {
  for (const RunShape& r : runs)
    if (const auto why = refusal(r)) throw InputError("command line: " + describe(r) + ": " + *why);
  for (const Service service : services_asked(o))
    for (const RunShape& r : runs) {
      if (comparison && r.method == SyncMethod::sequential) continue;
      if (const auto why = refusal(r, service)) refuse(name_of(service), r, *why);
    }
  for (const Setting setting : settings_asked(o)) {
    std::optional<std::pair<RunShape, std::string>> refused;
    bool taken = false;
    for (const RunShape& r : runs) {
      if (comparison && r.method == SyncMethod::sequential) continue;
      if (auto why = refusal(r, setting))
        refused.emplace(r, std::move(*why));
      else
        taken = true;
    }
    if (refused && (!comparison || !taken))
      refuse(name_of(setting), refused->first, refused->second);
  }
}

// Values the table does not judge: a block count the chain can be cut into.
void check_blocks_fit(const Options& o, const RunModel& model) {
  const bool blocks =
      in_blocks(o.layout) || std::any_of(o.layouts.begin(), o.layouts.end(), in_blocks);
  if (const auto* chain = std::get_if<ChainModel>(&model); blocks && chain)
    check_block_count(o.blocks, chain->scenario->pendulums());
}

// A partition whose step its integrator cannot keep stable at the start (kausal analyze)
// grows its fastest modes without bound: an unpaced or animated run goes on (its user may want
// to watch that), but is told first; a paced one with the feasibility check is refused by it.
void warn_if_unstable(const Options& o, const RunModel& model) {
  const auto* p = std::get_if<PartitionedModel>(&model);
  if (!p || (o.realtime.paced() && o.realtime.check_feasible && !o.realtime.for_view)) return;
  std::vector<std::string> unstable;
  try {
    unstable = unstable_partitions(*p->scenario);
  } catch (const Error& e) {
    std::cerr << "kausal: note: the stability check at the start could not run: " << e.what()
              << "\n";
    return;
  }
  for (const auto& u : unstable)
    std::cerr << "kausal: warning: " << u
              << " at the start (kausal analyze): its fastest modes grow with every step while "
                 "they stay that fast (kausal analyze --along follows them through the run); a "
                 "smaller h or an implicit or exponential integrator keeps them bounded\n";
}

int run_command(const Options& o) {
  const RunModel model = load_model(o);
  warn_if_unstable(o, model);
  const SyncMethod method = method_for(o, model);
  const Guarantee guarantee =
      method == SyncMethod::conservative && std::holds_alternative<ChainModel>(model)
          ? o.guarantee
          : Guarantee::none;
  const Layout layout = layout_for(o, model, o.layout);
  check_capabilities(o, {the_run(o, model, method, guarantee, layout)}, false);
  check_blocks_fit(o, model);
  std::error_code unusable;  // (output_dir says why)
  const bool made_out = o.out.empty() || !fs::exists(o.out, unusable);
  const fs::path out = output_dir(o, scenario_name(model), to_string(method));
  ProcessPlatform platform(platform_options(o));
  AnimationWindow animation(o, platform, out, model);
  const RunResult r =
      run_with_progress(spec_for(o, model, method, guarantee, layout, out), platform);
  return finish_run(r, out, animation, made_out);
}

int resume_command(const Options& o, const ResumeRequest& request) {
  Checkpoint checkpoint = read_resumable(request);
  const RunSetup setup = checkpoint.setup;
  // The model to continue, or none if the run has nothing left to do.
  auto left_to_do = [&](auto resumed, const std::string& done) -> std::optional<RunModel> {
    if (!resumed.complete()) return resumed_model(std::move(resumed));
    std::cout << "kausal: nothing to resume: " << o.resume << " has " << done << "\n";
    // A run that ended before it wrote its summary (its monitor killed at the end): the
    // digest, the run's proof, is still in its checkpoint.
    if (!fs::exists(fs::path(o.resume) / "summary.json"))
      std::cout << "  digest        " << checkpoint_digest(resumed.checkpoint)
                << " (from checkpoint.json: the run ended before it wrote summary.json)\n";
    return std::nullopt;
  };
  std::optional<RunModel> model;
  if (checkpoint.events()) {
    ResumedEventsRun r = prepare_events_resume(request, std::move(checkpoint));
    const std::string done = "committed every event below t = " + option_value(r.scenario.end);
    model = left_to_do(std::move(r), done);
  } else if (checkpoint.partitioned()) {
    ResumedPartitionedRun r = prepare_partitioned_resume(request, std::move(checkpoint));
    const std::string done = "recorded all " + std::to_string(r.scenario.ticks) + " ticks";
    model = left_to_do(std::move(r), done);
  } else {
    ResumedRun r = prepare_resume(request, std::move(checkpoint));
    const std::string done = "committed all " + std::to_string(r.scenario.steps) + " steps";
    model = left_to_do(std::move(r), done);
  }
  if (!model) return 0;
  // What is computed comes from the checkpoint; how processes talk from this command line.
  RunSpec spec = spec_for(o, *model, setup.method, setup.guarantee,
                          setup.layout.value_or(Layout::process), o.resume);
  spec.blocks = setup.blocks;
  spec.batch = setup.batch;
  const RunShape run = shape_of(spec);
  spec.window = refusal(run, Setting::window) ? std::nullopt : std::optional(setup.window);
  spec.tolerance = refusal(run, Setting::tolerance) ? std::nullopt : std::optional(setup.tolerance);
  spec.check_guarantees = setup.check_guarantees;
  spec.rollback_check = setup.rollback_check;
  keep_previous_attempt(o.resume);
  ProcessPlatform platform(platform_options(o));
  AnimationWindow animation(o, platform, o.resume, *model);
  return finish_run(run_with_progress(spec, platform), o.resume, animation, false);
}

namespace {

// The digest a run directory's summary.json reports ("" if none).
std::string recorded_digest(const fs::path& dir) {
  try {
    const auto summary = read_input_json(dir / "summary.json", "the run's summary");
    const auto digest = summary.find("trajectory_sha256");
    if (digest != summary.end() && digest->is_string()) return digest->get<std::string>();
  } catch (const InputError&) {
    // no summary: nothing to compare with
  }
  return {};
}

}  // namespace

int replay_command(Options o) {
  const fs::path dir = o.replay;
  const Checkpoint checkpoint = read_checkpoint(dir);
  const RunSetup& setup = checkpoint.setup;
  o.scenario = (dir / "scenario.toml").string();
  const RunModel model = load_model(o);
  const bool same_method = !o.was_given("--method") || o.method == setup.method;
  const SyncMethod method = o.was_given("--method") ? o.method : setup.method;
  Guarantee guarantee = Guarantee::none;
  if (method == SyncMethod::conservative && std::holds_alternative<ChainModel>(model))
    guarantee = o.was_given("--guarantee") || !same_method ? o.guarantee : setup.guarantee;
  const Layout layout = o.was_given("--layout") ? o.layout : setup.layout.value_or(o.layout);
  const RunShape shape = the_run(o, model, method, guarantee, layout);
  check_capabilities(o, {shape}, false);
  check_blocks_fit(o, model);
  if (o.out.empty()) o.out = (dir / "replay").string();
  const fs::path out = output_dir(o, scenario_name(model), "replay");
  RunSpec spec = spec_for(o, model, method, guarantee, layout, out);
  if (same_method && !o.was_given("--batch") && setup.batch > 0) spec.batch = setup.batch;
  if (same_method && !o.was_given("--window") && setup.window > 0) spec.window = setup.window;
  // (The recorded tolerance of a kind that takes none, a chain's, is no setting to repeat.)
  if (same_method && !o.was_given("--tolerance") && !refusal(shape, Setting::tolerance))
    spec.tolerance = setup.tolerance;
  const fs::path recording = dir / "injections.jsonl";
  spec.replayed = load_injections(recording);
  for (std::size_t k = 0; k < spec.replayed.size(); ++k) {
    try {
      check_injection(model, spec.replayed[k]);
    } catch (const InputError& e) {
      throw InputError(recording.string() + ": injection " + std::to_string(k + 1) + " (step " +
                       std::to_string(spec.replayed[k].step) + "): " + e.what());
    }
  }
  if (!spec.realtime.paced()) {
    // Released as fast as the run goes, step by step: injections wait at their steps.
    spec.realtime.clock = ClockSource::wall;
    spec.realtime.factor = std::numeric_limits<double>::infinity();
    spec.realtime.check_feasible = false;
  }
  std::cout << "kausal: replaying " << dir.string() << " (" << spec.replayed.size()
            << " injections) as " << spec.label() << "\n";
  ProcessPlatform platform(platform_options(o));
  AnimationWindow animation(o, platform, out, model);
  const RunResult r = run_with_progress(spec, platform);
  const int code = finish_run(r, out, animation, false);
  const std::string recorded = recorded_digest(dir);
  if (recorded.empty() || r.trajectory_sha256.empty()) return code;
  if (r.trajectory_sha256 == recorded) {
    std::cout << "replay: the same digest as " << dir.string() << "\n";
    return r.completed() || r.exit_code == ExitCode::interrupted ? 0 : code;
  }
  std::cerr << "kausal: replay: the digest differs from " << dir.string() << "'s (" << recorded
            << ")\n";
  return r.completed() ? static_cast<int>(ExitCode::simulation_failed) : code;
}

// The methods of `kind` that --methods names (all without it), sequential first in any case:
// the reference. InputError naming a method the kind does not have.
std::vector<Compared> compared_methods(ModelKind kind, const std::vector<std::string>& names) {
  const std::vector<Compared> all = methods_of(kind);
  if (names.empty()) return all;
  std::string known;
  for (const auto& [m, g] : all) known += (known.empty() ? "" : ", ") + method_label(m, g);
  std::vector<Compared> chosen{all.front()};
  for (const std::string& name : names) {
    bool found = false;
    for (const auto& [m, g] : all) {
      const bool named =
          method_label(m, g) == name || (name == "conservative" && m == SyncMethod::conservative);
      if (!named) continue;
      found = true;
      if (std::find(chosen.begin(), chosen.end(), Compared{m, g}) == chosen.end())
        chosen.emplace_back(m, g);
    }
    if (!found)
      throw InputError("--methods: '" + name + "' is not a method of a " +
                       std::string(name_of(kind)) + " model (its methods: " + known + ")");
  }
  // In the order the kind lists them.
  std::vector<Compared> ordered;
  for (const Compared& m : all)
    if (std::find(chosen.begin(), chosen.end(), m) != chosen.end()) ordered.push_back(m);
  return ordered;
}

int compare_command(const Options& o) {
  const RunModel model = load_model(o);
  warn_if_unstable(o, model);
  // Every method of the kind (or those --methods names) in every layout listed; sequential
  // (no components, no layout) once. One layout: <out>/<method>; several:
  // <out>/<layout>/<method>.
  const std::vector<Compared> methods = compared_methods(kind_of(model), o.methods);
  std::vector<Layout> layouts = o.layouts;
  if (std::holds_alternative<EventsModel>(model) && !o.was_given("--layout"))
    layouts = {Layout::single};
  std::vector<RunShape> shapes;
  for (const auto& [method, guarantee] : methods)
    for (const Layout layout : layouts) shapes.push_back(shape(model, method, guarantee, layout));
  check_capabilities(o, shapes, true);
  check_blocks_fit(o, model);
  const std::string file = scenario_file_of(model);
  const fs::path out = output_dir(o, scenario_name(model), "compare");
  ProcessPlatform platform(platform_options(o));
  AnimationWindow animation(o, platform, out, model);  // one view for every run
  const bool several_layouts = o.layouts.size() > 1;
  std::optional<ReferenceAnswer> reference;
  if (o.reference) reference.emplace(*std::get<PartitionedModel>(model).scenario);
  // Sequential once, every other method in every layout.
  std::size_t per_round = 1;
  for (const auto& m : methods) per_round += layouts.size() * (m.first != SyncMethod::sequential);
  ComparisonRuns runs(file, o.repeat * per_round, several_layouts);
  auto run_one = [&](const Compared& m, Layout layout, std::size_t k) {
    const auto [method, guarantee] = m;
    const bool own_dir = several_layouts && method != SyncMethod::sequential;
    const fs::path where = comparison_dir(out, own_dir ? to_string(layout) : "",
                                          method_dir(method, guarantee), k, o.repeat);
    RunResult r = run_with_progress(spec_for(o, model, method, guarantee, layout, where), platform);
    if (reference && r.completed())
      r.global_error = reference->global_error(where / "trajectory.csv");
    runs.add(r, where, k);
  };
  for (std::size_t k = 0; k < o.repeat && !runs.failed(); ++k) {
    run_one(methods.front(), layouts.front(), k);
    for (const Layout layout : layouts)
      for (const auto& m : methods)
        if (m.first != SyncMethod::sequential && !runs.failed()) run_one(m, layout, k);
  }
  std::vector<StateErrorRow> by_state;
  if (reference && !runs.failed()) by_state = state_error_rows(*reference, runs.all().front().dir);
  present_comparison(file, setup_line(o, model, runs.all().front().result), runs.all(), out,
                     o.wide ? 0 : terminal_width(), by_state);
  animation.hold();
  return comparison_exit_code(runs.all(), accepted_error(o, model));
}

}  // namespace kausal
