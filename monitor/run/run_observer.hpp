#pragma once
// Who watches a run while it happens (the live animation): committed states, the horizon of
// the synchronisation (the conservative guarantee or the optimistic GVT) and rollbacks.
// Called from the monitor's thread at every step: implementations only take note and must
// never block (the animation feed drops what it cannot send).
#include <cstdint>
#include <span>

#include "system/activity_trace.hpp"
#include "system/chain.hpp"

namespace kausal {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void committed(std::uint64_t step, std::span<const PendulumState> states) = 0;
  // Conservative: every Integrator may compute up to `horizon` (the guarantee), and
  // reached[i] == horizon. Optimistic: `horizon` is the GVT and reached[i] the last step
  // Integrator i has delivered. One entry per pendulum.
  virtual void horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) = 0;
  virtual void rolled_back(std::size_t pendulum, std::uint64_t step) = 0;
  // The monitor's own activity while the run lasts (nullptr when it ends).
  virtual void monitor_trace(const ActivityTrace* trace) = 0;
};

}  // namespace kausal
