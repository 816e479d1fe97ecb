#pragma once
// The kausal-animation process started by `kausal run/compare --animate`: a child like the
// other components (own process group, ended and reaped by PID), found by the object
// reference it prints. One view serves every run of a compare.
#include <filesystem>
#include <memory>

#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "monitor/core/child_process.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/record/animation_feed.hpp"
#include "monitor/record/view_layout.hpp"

namespace kausal {

// Why kausal-animation cannot show a window in this environment, "" if it can: neither
// DISPLAY nor WAYLAND_DISPLAY is set and QT_QPA_PLATFORM names no platform that needs none.
std::string missing_display();
// True if QT_QPA_PLATFORM draws to no screen (offscreen, minimal): a window nobody can close.
bool windowless_platform();

// The window's run controls: a paced run's operator.ior (empty: none), what the model takes
// besides pace and stop ("pendulums": push; "values": set an input or a parameter;
// "events": send an event) and an assignment it takes, for the entry field.
struct ViewControls {
  std::filesystem::path operator_file;
  std::string kind = "pendulums";
  std::string example;
};

class AnimationProcess {
 public:
  // Throws PeerError if it does not start (no display, missing executable) and
  // VersionMismatch if it speaks another interface version. `controls` with an operator file
  // gives the window its run controls.
  AnimationProcess(OrbRuntime& orb, const std::filesystem::path& executable,
                   const std::filesystem::path& log_file, const OrbSettings& child,
                   std::chrono::milliseconds startup_timeout, const ViewControls& controls = {});
  // Asks the view to close, then ends it by signal if it does not.
  ~AnimationProcess();

  // A feed for one run of any model kind, shown as `layout` says; components is the list of
  // timeline strips; clock: a paced run's (null otherwise).
  std::unique_ptr<AnimationFeed> begin_run(const ViewLayout& layout, const std::string& label,
                                           const std::vector<std::string>& components,
                                           std::uint64_t start_ns, const StepClock* clock);
  // The view's object reference, stringified (components send their activity there).
  const std::string& reference() const { return reference_; }
  idl::Animation_ptr view() const { return view_.in(); }
  bool running() { return process_->running(); }
  pid_t pid() const { return process_->pid(); }
  // Blocks until the window is closed (or `stop` says so); polls every 100 ms.
  template <typename Stop>
  void wait_until_closed(Stop&& stop) {
    while (process_->running() && !stop()) process_->wait_for_exit(std::chrono::milliseconds(100));
  }

 private:
  std::unique_ptr<ChildProcess> process_;
  std::string reference_;
  idl::Animation_var view_;
};

}  // namespace kausal
