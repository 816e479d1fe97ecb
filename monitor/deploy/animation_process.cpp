#include "monitor/deploy/animation_process.hpp"

#include <cstdlib>

#include "idl/wire_errors.hpp"
#include "system/errors.hpp"

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
                                   std::chrono::milliseconds startup_timeout) {
  std::filesystem::create_directories(log_file.parent_path());
  std::vector<std::string> args{"--name", "animation"};
  for (const auto& a : orb_arguments(child)) args.push_back(a);
  // Test hook: the window closes itself after that many frames (a user closing it mid-run).
  if (const char* n = std::getenv("KAUSAL_TEST_ANIMATION_CLOSE_AFTER_FRAMES"))
    args.insert(args.end(), {"--close-after-frames", n});
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

std::unique_ptr<AnimationFeed> AnimationProcess::begin_run(
    const Scenario& scenario, const std::string& label, const std::vector<std::string>& components,
    std::uint64_t start_ns) {
  idl::AnimationSetup setup;
  setup.scenario = scenario.name.c_str();
  setup.label = label.c_str();
  setup.t0 = scenario.t0();
  setup.h = scenario.h;
  setup.steps = scenario.steps;
  setup.pendulums.length(static_cast<CORBA::ULong>(scenario.pendulums()));
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    const PendulumParams& p = scenario.chain.pendulums[i];
    setup.pendulums[static_cast<CORBA::ULong>(i)] = {p.pivot_x, p.length, p.radius};
  }
  setup.components.length(static_cast<CORBA::ULong>(components.size()));
  for (std::size_t i = 0; i < components.size(); ++i)
    setup.components[static_cast<CORBA::ULong>(i)] = components[i].c_str();
  setup.clock_ns = start_ns;
  return std::make_unique<AnimationFeed>(view_.in(), setup);
}

}  // namespace kausal
