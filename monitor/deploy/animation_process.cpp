#include "monitor/deploy/animation_process.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/errors.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {

namespace {

std::string environment(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

bool windowless_platform() {
  const std::string platform = environment("QT_QPA_PLATFORM");
  return platform.rfind("offscreen", 0) == 0 || platform.rfind("minimal", 0) == 0;
}

std::string missing_display() {
  const std::string platform = environment("QT_QPA_PLATFORM");
  // Platforms that draw on a screen of their own (eglfs, linuxfb, vnc, ...) need no display
  // server; xcb and wayland do.
  const bool needs_server =
      platform.empty() || platform.rfind("xcb", 0) == 0 || platform.rfind("wayland", 0) == 0;
  if (!needs_server || !environment("DISPLAY").empty() || !environment("WAYLAND_DISPLAY").empty())
    return "";
  return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set" +
         (platform.empty() ? std::string() : " (QT_QPA_PLATFORM=" + platform + ")");
}

AnimationProcess::AnimationProcess(OrbRuntime& orb, const std::filesystem::path& executable,
                                   const std::filesystem::path& log_file, const OrbSettings& child,
                                   std::chrono::milliseconds startup_timeout,
                                   const ViewControls& controls) {
  std::filesystem::create_directories(log_file.parent_path());
  std::vector<std::string> args{"--name", "animation"};
  for (const auto& a : orb_arguments(child)) args.push_back(a);
  if (!controls.operator_file.empty()) {
    args.insert(args.end(),
                {"--operator", controls.operator_file.string(), "--controls", controls.kind});
    if (!controls.example.empty()) args.insert(args.end(), {"--control-example", controls.example});
  }
  // Test hook: the window closes itself after that many frames (a user closing it mid-run).
  if (const char* n = std::getenv("KAUSAL_TEST_ANIMATION_CLOSE_AFTER_FRAMES"))
    args.insert(args.end(), {"--close-after-frames", n});
  // Test hook: the view as a PNG when it closes (its last picture of the run).
  if (const char* png = std::getenv("KAUSAL_TEST_ANIMATION_GRAB_ON_CLOSE"))
    args.insert(args.end(), {"--grab-on-close", png});
  try {
    process_ = std::make_unique<ChildProcess>("animation", executable, args, log_file);
  } catch (const std::exception& e) {
    throw PeerError("animation",
                    std::string("cannot start ") + executable.string() + ": " + e.what());
  }
  const auto ior = process_->read_line(startup_timeout);
  if (!ior || ior->rfind("IOR:", 0) != 0)
    throw PeerError("animation", "did not start (" + process_->status() + "; no display? see " +
                                     log_file.string() + ")");
  reference_ = *ior;
  CORBA::Object_var obj = orb.resolve(*ior);
  view_ = call_peer("animation", [&] { return idl::Animation::_narrow(obj); });
  if (CORBA::is_nil(view_))
    throw PeerError("animation", "its object reference is not an Animation");
  idl::ComponentInfo_var info = call_peer("animation", [&] { return view_->info(); });
  if (info->interface_version != idl::INTERFACE_VERSION)
    throw VersionMismatch("animation", info->interface_version, idl::INTERFACE_VERSION);
}

AnimationProcess::~AnimationProcess() {
  if (!process_->running()) return;
  try {
    view_->shutdown();
  } catch (const CORBA::Exception&) {
  }
  if (!process_->wait_for_exit(std::chrono::seconds(2))) process_->stop(std::chrono::seconds(1));
}

namespace {

// What every view's setup says: the run, its strips, its clock.
idl::AnimationSetup setup_of(const std::string& scenario, const std::string& label, double t0,
                             double h, std::uint64_t steps,
                             const std::vector<std::string>& components, std::uint64_t start_ns,
                             bool paced) {
  idl::AnimationSetup setup;
  setup.scenario = scenario.c_str();
  setup.label = label.c_str();
  setup.t0 = t0;
  setup.h = h;
  setup.steps = steps;
  setup.frame_every = 1;
  setup.components.length(static_cast<CORBA::ULong>(components.size()));
  for (std::size_t i = 0; i < components.size(); ++i)
    setup.components[static_cast<CORBA::ULong>(i)] = components[i].c_str();
  setup.clock_ns = start_ns;
  setup.paced = paced;
  return setup;
}

// The plot view of `plot` in `setup`.
void with_plots(idl::AnimationSetup& setup, const LivePlot& plot) {
  setup.plots.length(static_cast<CORBA::ULong>(plot.plots.size()));
  for (std::size_t i = 0; i < plot.plots.size(); ++i)
    setup.plots[static_cast<CORBA::ULong>(i)] = plot.plots[i].c_str();
  setup.series.length(static_cast<CORBA::ULong>(plot.series.size()));
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    auto& out = setup.series[static_cast<CORBA::ULong>(i)];
    out.name = plot.series[i].name.c_str();
    out.plot = static_cast<CORBA::ULong>(plot.series[i].plot);
  }
}

}  // namespace

std::unique_ptr<AnimationFeed> AnimationProcess::begin_run(
    const ViewLayout& layout, const std::string& label, const std::vector<std::string>& components,
    std::uint64_t start_ns, const StepClock* clock) {
  idl::AnimationSetup setup = setup_of(layout.scenario, label, layout.t0, layout.h, layout.steps,
                                       components, start_ns, clock != nullptr);
  setup.frame_every = layout.frame_every;
  setup.pendulums.length(static_cast<CORBA::ULong>(layout.pendulums.size()));
  for (std::size_t i = 0; i < layout.pendulums.size(); ++i) {
    const ViewLayout::Pendulum& p = layout.pendulums[i];
    setup.pendulums[static_cast<CORBA::ULong>(i)] = {p.pivot_x, p.length, p.radius};
  }
  with_plots(setup, layout.plot);
  return std::make_unique<AnimationFeed>(view_.in(), setup, layout.columns, clock);
}

}  // namespace kausal
