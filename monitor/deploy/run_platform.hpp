#pragma once
// Where the components of a run are placed and who shows the run live. run() (run.hpp) is
// written against this alone: the kausal command places components as processes over the
// ORB and shows runs in the animation (monitor/deploy/process_platform); tests place them
// in this process (monitor/deploy/local_platform). Placement is configuration, not code.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "monitor/core/run_observer.hpp"
#include "monitor/deploy/deployment_plan.hpp"
#include "monitor/record/view_layout.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/integrator_port.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

class Operator;

// How one run asks for its components.
struct Placing {
  Layout layout = Layout::process;
  std::vector<int> cpus;          // pin partition i's process(es) to cpus[i % size]; empty: no
  std::filesystem::path log_dir;  // each component process writes its log here
};

class RunPlatform {
 public:
  virtual ~RunPlatform() = default;

  // The components of `plan`, whatever their kind, started (in a layout, here or on
  // nodes), set up (the pairs at their first step) and watched. Throws PeerError (a
  // component did not start or answer), VersionMismatch, ModelError, InputError (a limit
  // the placement would exceed, or components this platform cannot place).
  virtual std::unique_ptr<Deployment> place(const ComponentPlan& plan, const Placing& placing) = 0;

  // The live view's feed for one run, shown as `layout` says (a chain's pendulums, a
  // partitioned model's or an event run's plots); null without a view. `strips`: the
  // components shown as timelines; `deployment` (null when nothing is deployed) sends its
  // components' activity to the view from now on; `clock`: a paced run's (the view follows
  // it and shows lateness), null otherwise.
  virtual std::unique_ptr<LiveFeed> show(const ViewLayout& /*layout*/, const std::string& /*label*/,
                                         const std::vector<std::string>& /*strips*/,
                                         Deployment* /*deployment*/, const StepClock* /*clock*/) {
    return nullptr;
  }

  // A run paced by ticks from outside: makes its clock reachable (kausal tick, the Clock
  // interface of idl/kausal.idl; its reference in out_dir/clock.ior) until the returned
  // handle goes. Null: nobody outside can tick it.
  virtual std::shared_ptr<void> serve_clock(StepClock& /*clock*/,
                                            const std::filesystem::path& /*out_dir*/) {
    return nullptr;
  }
  // A paced run: makes its Operator reachable (kausal inject, the animation's buttons,
  // controllers; its reference in out_dir/operator.ior) until the returned handle goes.
  virtual std::shared_ptr<void> serve_operator(Operator& /*op*/,
                                               const std::filesystem::path& /*out_dir*/) {
    return nullptr;
  }
};

}  // namespace kausal
