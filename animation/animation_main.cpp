// kausal-animation: the Animation component (a live Qt window fed by the monitor over
// CORBA), or, with --snapshot / --timeline / --chart, an offscreen renderer of finished runs.
#include <CLI/CLI.hpp>
#include <QApplication>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

#include "animation/animation_servant.hpp"
#include "animation/live_window.hpp"
#include "animation/operator_controls.hpp"
#include "animation/render_modes.hpp"
#include "common/errors.hpp"
#include "common/help_formatter.hpp"

namespace {

using namespace kausal;
namespace fs = std::filesystem;

// --zoom "FROM..TO" as (FROM, TO) when both are finite numbers with 0 <= FROM < TO; nullopt
// otherwise, and for "" (no zoom).
std::optional<std::pair<double, double>> parse_zoom(const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return std::nullopt;
  const std::string from_text = text.substr(0, dots), to_text = text.substr(dots + 2);
  char* end = nullptr;
  const double from = std::strtod(from_text.c_str(), &end);
  if (from_text.empty() || *end != '\0') return std::nullopt;
  const double to = std::strtod(to_text.c_str(), &end);
  if (to_text.empty() || *end != '\0') return std::nullopt;
  if (!(std::isfinite(from) && std::isfinite(to) && from >= 0 && from < to)) return std::nullopt;
  return std::pair{from, to};
}

struct Options {
  std::string name = "animation";
  OrbSettings orb;
  std::uint64_t close_after_frames = 0;
  // A whole thesis run (20,000 steps) and more: the replay after a fast run starts at step 0.
  std::size_t frame_buffer = 200000;
  fs::path grab_on_close;
  fs::path snapshot, timeline, chart, run;
  std::vector<fs::path> runs;
  std::optional<std::uint64_t> step;
  std::optional<double> time_span;  // --timeline: the axis, 0 to this many seconds
  double time_from = 0;             // --timeline: where the axis starts (seconds)
  std::string zoom;                 // --timeline: FROM..TO, the same as --time-from/--time-span
  bool around_first_event = false;  // --timeline: a window centred on the first impact
  std::string size;                 // empty: a default that fits the mode
  fs::path operator_file;           // a paced run's OUT/operator.ior: the run controls
  ControlKind controls = ControlKind::pendulums;
  std::string control_example;
};

const char* help_text =
    "kausal-animation: the view of a kausal run.\n\n"
    "Live mode (default): the Animation component. Started by the launcher, which reads the\n"
    "object reference printed as the first line on stdout; the monitor feeds it committed\n"
    "frames, the horizon (GVT or guarantee), rollbacks and component activity. The window\n"
    "shows the pendulums (a partitioned model: its recorded states plotted against simulated\n"
    "time, one plot per partition), a progress bar with the horizon, and a\n"
    "busy/waiting/rollback strip per component. Controls: Pause/Resume (Space), Step (Right\n"
    "arrow), speed 0.1x-1x (plots: 1x plays a run in at most 10 s, never slower than real\n"
    "time).\n"
    "Closing the window or Participant::shutdown ends the process (exit 0). Options:\n"
    "  --name, --host, --unix-socket, --call-timeout-ms, --link-delay, --tls-* as for every\n"
    "  component,\n"
    "  --frame-buffer N (frames kept ahead of the playback), and the test hooks\n"
    "  --close-after-frames N (close once N frames arrived), --grab-on-close FILE.png.\n\n"
    "Render modes (offscreen, PNG):\n"
    "  --snapshot FILE.png --run DIR [--step N] [--size WxH]   pendulums at step N (default:\n"
    "                                                          the last) and the timeline;\n"
    "                                                          a partitioned run: its values\n"
    "                                                          plotted up to step N (ticks)\n"
    "  --timeline FILE.png --run DIR [--time-span S] [--time-from F | --around-first-event]\n"
    "             [--zoom F..T] [--size WxH]                   the run's utilisation strips,\n"
    "                                                          over 0..S seconds if given, or\n"
    "                                                          F..F+S or F..T, or S (default\n"
    "                                                          5 ms) centred on the first\n"
    "                                                          impact\n"
    "  --chart FILE.png --runs DIR [DIR...] [--size WxH]       wall time per method: runs of\n"
    "                                                          one method, layout and scenario\n"
    "                                                          are repetitions (median bar,\n"
    "                                                          min-max whisker)\n"
    "DIR is an output directory of `kausal run --out DIR` (summary.json, trace.json,\n"
    "trajectory.csv).\n\n"
    "Exit codes: 0 ok, 2 bad option or run directory, 3 CORBA failure.";

void add_options(CLI::App& app, Options& o) {
  app.add_option("--name", o.name, "component name used in messages");
  app.add_option("--operator", o.operator_file,
                 "live mode, a paced run: its operator.ior (written when the run starts); the "
                 "window gets the run controls (pace, push, set, stop)");
  app.add_option_function<std::string>(
         "--controls",
         [&o](const std::string& v) {
           o.controls = v == "values"   ? ControlKind::values
                        : v == "events" ? ControlKind::events
                                        : ControlKind::pendulums;
         },
         "with --operator: what the model takes besides pace and stop: pendulums (push), "
         "values (set an input or a parameter), events (send one to a component)")
      ->default_str("pendulums")
      ->check(CLI::IsMember({"pendulums", "values", "events"}));
  app.add_option("--control-example", o.control_example,
                 "with --controls values or events: an assignment the model takes, shown in "
                 "the empty entry field (\"upper.inflow = 0.05\")");
  add_orb_options(app, o.orb);
  app.add_option("--close-after-frames", o.close_after_frames,
                 "test hook: close the window once N frames have arrived (live mode; 1 to 2^62)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 62).description(""));
  app.add_option("--frame-buffer", o.frame_buffer,
                 "frames kept ahead of the playback (a fast run arrives long before it is "
                 "played); beyond it the oldest are dropped and counted")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  app.add_option("--grab-on-close", o.grab_on_close,
                 "test hook: save the view as a PNG when the window closes itself (live mode)");
  auto* snapshot = app.add_option("--snapshot", o.snapshot,
                                  "write the pendulums (a partitioned run: its plots) at a step");
  auto* timeline = app.add_option("--timeline", o.timeline, "write the run's timeline");
  auto* chart = app.add_option("--chart", o.chart, "write the wall-time chart of --runs");
  snapshot->excludes(timeline)->excludes(chart);
  timeline->excludes(chart);
  auto* run = app.add_option("--run", o.run, "run directory for --snapshot / --timeline");
  auto* runs = app.add_option("--runs", o.runs, "run directories for --chart")->expected(1, -1);
  auto* step = app.add_option("--step", o.step, "committed step for --snapshot (default: last)");
  app.add_option("--time-span", o.time_span,
                 "--timeline: draw the axis from 0 to this many seconds (timelines compared "
                 "side by side share one scale); default: the run's own length")
      ->check(CLI::Range(1e-9, 1e9))
      ->needs(timeline);
  app.add_option("--time-from", o.time_from,
                 "--timeline: start the axis at this many seconds of wall time (a zoom: with "
                 "--time-span, the window [FROM, FROM + SPAN])")
      ->check(CLI::Range(0.0, 1e9))
      ->needs(timeline);
  app.add_flag("--around-first-event", o.around_first_event,
               "--timeline: a window of --time-span (default 0.005 s) centred on the moment the "
               "monitor applied the run's first impact (trace.json's first \"event\" span), "
               "where a chain's rounds are wide enough to see")
      ->needs(timeline)
      ->excludes("--time-from");
  app.add_option("--zoom", o.zoom,
                 "--timeline: the window FROM..TO in seconds of wall time since the run began, "
                 "e.g. 0.045..0.050 (the same as --time-from FROM --time-span TO-FROM)")
      ->check([](const std::string& text) -> std::string {
        return parse_zoom(text) ? "" : "must be FROM..TO, two numbers with 0 <= FROM < TO";
      })
      ->needs(timeline)
      ->excludes("--time-from")
      ->excludes("--time-span")
      ->excludes("--around-first-event");
  app.add_option("--size", o.size,
                 "image size WxH of a render mode (default: 1000 wide, as tall as the mode needs)");
  run->excludes(runs);
  step->needs(snapshot);
  for (auto* servant_only : {app.get_option("--close-after-frames"),
                             app.get_option("--frame-buffer"), app.get_option("--grab-on-close")})
    for (auto* mode : {snapshot, timeline, chart}) servant_only->excludes(mode);
}

// The render mode chosen, after the checks CLI11 cannot express.
int render(Options o) {
  if (const auto window = parse_zoom(o.zoom)) {
    o.time_from = window->first;
    o.time_span = window->second - window->first;
  }
  // Default heights: a bar or a strip needs about 30 px, the chain the rest.
  auto size_or = [&](int default_height) {
    return o.size.empty() ? QSize(1000, std::max(200, default_height)) : parse_size(o.size);
  };
  if (!o.chart.empty()) {
    if (o.runs.empty()) throw InputError("--chart needs --runs DIR [DIR...]");
    std::vector<RunView> runs;
    for (const auto& dir : o.runs) runs.push_back(load_run_summary(dir));
    const int height = 52 + 48 * static_cast<int>(runs.size());
    save_png(render_chart(runs, size_or(height)), o.chart);
    return 0;
  }
  if (o.run.empty()) throw InputError("--snapshot and --timeline need --run DIR");
  const RunView run = o.snapshot.empty() ? load_run_activity(o.run) : load_run_dir(o.run);
  const int strips = 29 * static_cast<int>(run.tracks.size());
  const int model = run.partitioned() ? 40 + 170 * static_cast<int>(run.plot.plots.size()) : 450;
  if (!o.snapshot.empty())
    save_png(render_snapshot(run, o.step, size_or(std::min(model, 2400) + strips)), o.snapshot);
  else if (o.around_first_event)
    save_png(around_first_event(run, size_or(60 + strips), o.time_span.value_or(0.005)),
             o.timeline);
  else
    save_png(render_timeline(run, size_or(60 + strips), o.time_span, o.time_from), o.timeline);
  return 0;
}

// Qt must not see our options: it gets a command line of its own.
int qt_argc = 1;
char qt_arg0[] = "kausal-animation";
char* qt_argv[] = {qt_arg0, nullptr};

int live(const Options& o) {
  // The monitor ends its components; Ctrl-C in the terminal is the monitor's business.
  std::signal(SIGINT, SIG_IGN);
  if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") &&
      !std::getenv("WAYLAND_DISPLAY")) {
    std::cerr << o.name << ": no display; the window is drawn offscreen\n";
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  }
  // The feed must be applied in the order the monitor sent it (begin_run before frames):
  // one thread per connection, never a second one for a connection's next oneway call.
  setenv("ORBmaxServerThreadPerConnection", "1", 0);
  Playback playback(o.frame_buffer);  // outlives the ORB, whose servant feeds it
  OrbRuntime orb(o.orb);
  // The POA holds the servant once it is active; this reference goes at the end of main.
  const PortableServer::Servant_var<AnimationServant> servant =
      new AnimationServant(o.name, orb, playback);
  const std::string ior = orb.activate(servant);
  // The window first, the reference after it: a view that cannot open its window (no
  // display server) ends before the monitor hears of it, so the monitor can say so.
  QApplication app(qt_argc, qt_argv);
  LiveOptions live_options;
  if (o.close_after_frames) live_options.close_after_frames = o.close_after_frames;
  live_options.grab_on_close = o.grab_on_close;
  live_options.shutdown_requested = [servant] { return servant->shutdown_requested(); };
  if (!o.operator_file.empty())
    live_options.controls = operator_controls(orb, o.operator_file, o.controls, o.control_example);
  LiveWindow window(playback, live_options);
  window.show();
  std::cout << ior << std::endl;
  const int code = app.exec();
  const auto c = playback.counters();
  std::cerr << o.name << ": " << c.received << " frames received, " << c.dropped << " dropped, "
            << c.rejected << " rejected\n";
  orb.deactivate(servant);  // no more upcalls; the POA deletes it once the last one ends
  return code;
}

}  // namespace

// $XDG_RUNTIME_DIR when the session has none: a fresh directory only this user may use
// (mode 0700, as the XDG specification asks), removed at the end.
class RuntimeDir {
 public:
  RuntimeDir() {
    if (std::getenv("XDG_RUNTIME_DIR")) return;
    std::string dir = (std::filesystem::temp_directory_path() / "kausal-runtime-XXXXXX").string();
    if (!mkdtemp(dir.data())) return;  // Qt falls back to its own (and says so)
    dir_ = dir;
    setenv("XDG_RUNTIME_DIR", dir_.c_str(), 1);
  }
  ~RuntimeDir() {
    if (dir_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  RuntimeDir(const RuntimeDir&) = delete;
  RuntimeDir& operator=(const RuntimeDir&) = delete;

 private:
  std::string dir_;
};

int main(int argc, char** argv) {
  CLI::App app{help_text};
  app.formatter(std::make_shared<kausal::HelpFormatter>());
  Options o;
  add_options(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }
  const bool render_mode = !o.snapshot.empty() || !o.timeline.empty() || !o.chart.empty();
  try {
    if (!render_mode) {
      if (!o.run.empty() || !o.runs.empty() || app.count("--size"))
        throw InputError("--run, --runs and --size belong to --snapshot, --timeline or --chart");
      return live(o);
    }
    setenv("QT_QPA_PLATFORM", "offscreen", 0);  // a render mode never needs a display
    // Offscreen Qt wants a runtime directory and warns, on every picture, when the session
    // has none (a CI job, a cron run): it gets a private one for the process's life.
    const RuntimeDir runtime;
    QGuiApplication qt(qt_argc, qt_argv);  // fonts for the text in the pictures
    return render(o);
  } catch (const Error& e) {
    std::cerr << "kausal-animation: " << e.what() << '\n';
    return static_cast<int>(e.exit_code());
  } catch (const CORBA::Exception& e) {
    std::cerr << o.name << ": CORBA " << e._name() << '\n';
    return static_cast<int>(ExitCode::peer_failure);
  } catch (const std::exception& e) {
    std::cerr << "kausal-animation: " << e.what() << '\n';
    return static_cast<int>(ExitCode::simulation_failed);
  }
}
