#pragma once
// The conservative monitor (docs/model.md §3). Each round grants every Integrator a guarantee,
// all step in parallel up to it, then the driver checks the impacts step by step.
//  - step: the thesis protocol, one step per guarantee;
//  - lookahead: all steps before the earliest one at which any two bobs could touch,
//    from a bound proved in docs/lookahead.md.
#include "monitor/core/run_kind.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/fan_out.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/integrator_port.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {

struct ConservativeOptions {
  Guarantee guarantee = Guarantee::step;  // step or lookahead
  // See FanOut; the deployment must have pinned pendulum i's components to
  // lane_cpus[i % lane_cpus.size()] for the lanes to pay off.
  std::vector<int> lane_cpus;
  std::uint64_t max_window = 10'000;  // lookahead: at most this many steps per guarantee
  // Paced runs: no guarantee reaches past what the clock has released, nor past a step an
  // injection waits at.
  const Injections* releases = nullptr;
};

class ConservativeStepper final : public ChainStepper {
 public:
  ConservativeStepper(Deployment& deployment, const Scenario& scenario,
                      const ConservativeOptions& options = {});
  void step_all(std::uint64_t m, std::span<PendulumState> states) override;
  void apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                     std::span<PendulumState> states) override;
  bool guaranteed_impact_free(std::uint64_t s) const override;
  MethodCounters counters() const override { return counters_; }
  std::vector<ComponentReport> reports() override { return deployment_.reports(); }

 private:
  void grant(std::uint64_t m, std::span<const PendulumState> states);

  Deployment& deployment_;
  const Scenario& scenario_;
  ConservativeOptions options_;
  FanOut fan_;
  std::vector<BobPair> pairs_within_reach_;  // the pairs the lookahead must look at
  // The states of the current guarantee: steps window_first_ .. guarantee_, per pendulum.
  std::vector<StateBatch> window_;
  std::vector<std::uint64_t> granted_;  // for the observer, reused every round
  std::uint64_t window_first_ = 0;
  std::uint64_t guarantee_ = 0;
  MethodCounters counters_;
};

}  // namespace kausal
