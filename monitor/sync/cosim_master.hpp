#pragma once
// The co-simulation master (docs/cosimulation.md): couples the partitions of a scenario with
// a [master] table in macro steps, instead of by routing samples.
//
// A macro step [T, T + H] (ticks, on the grid of every partition's step):
//  1. For every coupling the master predicts the producer's output over the step from its
//     outputs at earlier communication points (integrator/prediction.hpp: order fixed or
//     chosen, calibrated by extrapolation or least squares, Hermite-blended from the input
//     used so far, reduced to what the receiver accepts) and ships it to the consumer as a
//     polynomial valid on [T, T + H]: the consumer cannot step past it.
//  2. Jacobi: every partition steps to T + H at once. Gauss–Seidel: one after the other
//     (producers first), each from the fresh output at T + H of those before it.
//  3. Iterated (iterations > 0): while an output at T + H differs from the input used there by
//     more than the tolerance, every partition is rolled back to T and the step repeated from
//     the fresh outputs; after `iterations` passes the step is rolled back and halved, and at
//     the smallest step the run fails. A step is never accepted unconverged.
//  4. Error control: the prediction error at T + H relative to the tolerance sets the next
//     step (monitor/core/macro_step_control.hpp); a step whose error exceeds the tolerance is
//     rolled back and repeated smaller.
//  5. Accepted: the steps are recorded and committed; the next step ends no later than the
//     next synchronisation point.
// Rollbacks are the Integrators' own (the optimistic method's machinery): a partition
// restores its state list, an FMU its saved state.
//
// The arithmetic is the same in every layout, so sequential (every partition in this thread)
// and conservative (each partition in its own process, a Jacobi step's partitions at once)
// give one digest.
#include "monitor/core/master_point.hpp"
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal {

// A partitioned run under the master. `concurrent`: the partitions of a Jacobi step are
// advanced at once (one thread each), else in turn. Never throws a kausal::Error: a failure
// ends the run with its status, exit code and message.
// A resumed run (`from`: the master where its checkpoint was taken; the plan starts every
// partition there) takes the macro steps the uninterrupted run took.
RunResult run_cosimulation(const PartitionedScenario& s, SyncMethod method,
                           const PartitionedPlan& plan, Deployment& deployment, RunControl& control,
                           const PartitionedWatchers& watchers, bool concurrent,
                           const MasterPoint* from = nullptr);

}  // namespace kausal
