#pragma once
// Can a run paced by the wall clock keep up? (docs/realtime.md, "Can it keep up?") Checked
// before the run starts: the step budget h / factor against the step's measured compute and
// the communication its layout adds per step, and, for partitioned models, every partition's
// step against the stability limit of its own method at the start.
#include <optional>
#include <string>
#include <vector>

#include "monitor/analysis/partition_analysis.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "system/model_change.hpp"

namespace kausal {

struct StepBudget {
  double h = 0;  // s of model time per step (partitioned: per tick)
  double factor = 1;
  double compute_s = 0;               // p99 of a step's compute, measured in this process
  std::uint64_t measured = 0;         // steps measured
  double calls_per_step = 0;          // calls between processes per step in the run's layout
  double call_s = 0;                  // a call's round trip, measured on the deployment
  std::vector<std::string> unstable;  // partitions whose h exceeds their stability limit

  double budget_s() const { return h / factor; }
  double step_s() const { return compute_s + calls_per_step * call_s; }
  bool keeps_up() const { return step_s() <= budget_s(); }
  // The fastest factor at which the measured step still fits.
  double fastest_factor() const { return step_s() > 0 ? h / step_s() : 0; }
};

// Partitions whose step exceeds the stability limit of their method at the start, with the
// numbers ("upper: h = 1 s exceeds the rk4 limit 0.3095 s"); with `change`, in the model as
// that change leaves it (an operator's set of a parameter or an input).
std::vector<std::string> unstable_partitions(const PartitionedScenario& s,
                                             const std::optional<ModelChange>& change = {});

// integrator = "auto" (docs/model.md §4): each such partition gets its method from the
// eigenvalues of its own Jacobian block at the start and its h, and the reason in
// chosen_because:
//   rk4             every mode keeps h·|λ| within 90 % of RK4's limit on its ray (explicit,
//                   fourth order, no Newton: the cheapest accurate step);
//   backward_euler  otherwise, if the modes beyond that reach all decay faster than they
//                   turn (stiff: L-stable, it damps them as they are damped);
//   am2             otherwise (an oscillation beyond RK4's reach: the trapezoidal rule is
//                   A-stable and keeps its amplitude).
// Deterministic: a resumed run chooses the same. InputError when the model has a member that
// steps itself (its Jacobian is not known: such a model names its integrators).
void choose_integrators(PartitionedScenario& s);

// The diagnostics of `kausal analyze`: the Jacobian of the coupled model (`model`, built
// from s by build_monolithic_model) at (t, x).
PartitionReport analyze_partitioned(const PartitionedScenario& s, CompositeModel& model, double t,
                                    const Vector& x);

// Throws InputError (exit 2) with the numbers and the alternatives when the run cannot keep
// up or a partition is unstable.
void require_feasible(const StepBudget& budget);

// --animate without a pace (RealtimeOptions::for_view; budget.factor is then the view's
// playback rate): that rate if a step fits it, else half the fastest factor the run keeps up
// with (the probe measures a quiet moment). Never refused, an unstable
// start included: a view is not a deadline (the run warns of instability).
double pace_for_view(const StepBudget& budget);
// What pace_for_view chose and why, for the terminal.
std::string describe_view_pace(const StepBudget& budget, double factor);

}  // namespace kausal
