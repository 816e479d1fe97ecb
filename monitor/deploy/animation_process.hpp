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
#include "monitor/record/event_live_view.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/partitioned_plan.hpp"

namespace kausal {

// Why kausal-animation cannot show a window in this environment, "" if it can: neither
// DISPLAY nor WAYLAND_DISPLAY is set and QT_QPA_PLATFORM names no platform that needs none.
std::string missing_display();
// True if QT_QPA_PLATFORM draws to no screen (offscreen, minimal): a window nobody can close.
bool windowless_platform();

class AnimationProcess {
 public:
  // Throws PeerError if it does not start (no display, missing executable) and
  // VersionMismatch if it speaks another interface version. `operator_file` (a paced run's
  // operator.ior; empty for none) gives the window its run controls.
  AnimationProcess(OrbRuntime& orb, const std::filesystem::path& executable,
                   const std::filesystem::path& log_file, const OrbSettings& child,
                   std::chrono::milliseconds startup_timeout,
                   const std::filesystem::path& operator_file = {});
  // Asks the view to close, then ends it by signal if it does not.
  ~AnimationProcess();

  // A feed for one run; components is the list of timeline strips; clock: a paced run's
  // (null otherwise). A pendulum chain gets the pendulum view (a frame every step); a
  // partitioned model the plot view (live_plot: a plot per partition; a frame per row of
  // trajectory.csv, steps in ticks).
  std::unique_ptr<AnimationFeed> begin_run(const Scenario& scenario, const std::string& label,
                                           const std::vector<std::string>& components,
                                           std::uint64_t start_ns, const StepClock* clock);
  std::unique_ptr<AnimationFeed> begin_run(const PartitionedScenario& scenario,
                                           const PartitionedPlan& plan, const std::string& label,
                                           const std::vector<std::string>& components,
                                           std::uint64_t start_ns, const StepClock* clock);
  // A discrete-event run: the plot view of event_live_view.hpp (a frame per tick of the
  // layout), fed by an EventLiveView.
  std::unique_ptr<AnimationFeed> begin_run(const std::string& scenario,
                                           const EventViewLayout& layout, const std::string& label,
                                           std::uint64_t start_ns);
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
  idl::Animation_var view_;
};

}  // namespace kausal
