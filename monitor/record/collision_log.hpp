#pragma once
// collisions.csv of a pendulum chain: every impact of its committed steps, one row each (the
// thesis' state-driven output), the same bytes under every method and layout.
//
// The impacts are found again from what was committed, wherever they were resolved (the
// monitor's sweep, a block's own, a block process's). At a step whose impact count grew, the
// pendulums of the pairs that may be in contact there (their angles are the same before and
// after the impulses) are stepped again from their committed states before it, with the
// sequential reference's physics, which every method reproduces to the bit; the sweep over
// those pairs alone applies exactly the impacts of the whole chain's sweep, in its order
// (integrator/pendulum_block.hpp says why), and says what it applies. The states it ends
// with must be the committed ones (SimulationError otherwise). A step without impacts costs a
// copy of the states.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "integrator/stepper.hpp"
#include "monitor/core/commit_observer.hpp"
#include "monitor/scenario/scenario.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {

class CollisionLog final : public CommitObserver {
 public:
  static constexpr const char* kHeader =
      "t,step,left,right,left_impulse,right_impulse,approach_speed,left_phi,"
      "left_omega_before,left_omega_after,right_phi,right_omega_before,right_omega_after";

  // A new collisions.csv; or, when `resumed` (a run resumed at a later step, told through
  // resumed()), the existing one continued: rows of steps after that step, written before
  // the run stopped, are dropped then.
  CollisionLog(const Scenario& s, std::filesystem::path csv, bool resumed);

  void committed(std::uint64_t step, std::span<const PendulumState> states,
                 std::uint64_t collisions) override;
  void resumed(std::uint64_t step, std::span<const PendulumState> states,
               std::uint64_t collisions) override;
  void pushed(std::uint64_t step, std::span<const PendulumState> states) override;
  void finished(RunResult& r) override;

 private:
  void find_impacts(std::uint64_t step, std::span<const PendulumState> states, std::uint64_t count);
  void write(std::uint64_t step, const BobPair& pair, const Impact& impact,
             const PendulumState& left, const PendulumState& right, double left_after,
             double right_after);
  void keep_rows_up_to(std::uint64_t step);

  const Scenario& s_;
  const std::filesystem::path csv_;
  std::vector<PendulumCoefficients> coefficients_;
  StepWork<PendulumState> work_;
  ImpactSweep sweep_;
  std::vector<PendulumState> before_;  // the last committed states (after a push, pushed)
  std::uint64_t collisions_ = 0;       // impacts up to the last committed step
  std::ofstream out_;
};

}  // namespace kausal
