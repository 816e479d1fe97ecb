#pragma once
// Who watches a run while it happens (the trace collector, the live animation): committed
// values, the horizon of the synchronisation (the conservative guarantee, the optimistic GVT,
// or the last step every partition has made final) and rollbacks. Called from the monitor's
// thread as the run goes: implementations only take note and must never block (the
// animation feed drops what it cannot send).
#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "common/activity_trace.hpp"

namespace kausal {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The committed values of `step`, as trajectory.csv has them without t. Pendulum chains:
  // every step, (phi, omega) per pendulum. Partitioned models: every row of trajectory.csv
  // (step in ticks: every output interval and the last tick), each partition's states in
  // partition order.
  virtual void committed(std::uint64_t step, std::span<const double> values) = 0;
  // Conservative chains: every Integrator may compute up to `horizon` (the guarantee), and
  // reached[i] == horizon. Optimistic chains: `horizon` is the GVT and reached[i] the last
  // step Integrator i has delivered. One entry per pendulum. Partitioned models: the last
  // tick every partition has made final, and per partition the tick of its last final step.
  virtual void horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) = 0;
  // Pendulum (partition) `unit` was rolled back to `step`.
  virtual void rolled_back(std::size_t unit, std::uint64_t step) = 0;
  // The monitor's own activity while the run lasts (nullptr when it ends).
  virtual void monitor_trace(const ActivityTrace* trace) = 0;
  // A hybrid model: an event across the boundary at simulated time t, final (a row of
  // bridge.csv), labelled as common/bridge_mark.hpp says.
  virtual void marked(double /*t*/, const std::string& /*label*/) {}
};

// An observer that shows one run live somewhere else (the animation): what it could not
// show is counted, never waited for.
class LiveFeed : public RunObserver {
 public:
  // Sends what is still pending (for at most `drain`) and the end of the run; returns the
  // frames that were dropped.
  virtual std::uint64_t finish(const std::string& status, double wall_s,
                               std::chrono::milliseconds drain) = 0;
  // The view went away (its window was closed).
  virtual bool view_lost() const = 0;
};

}  // namespace kausal
