#pragma once
// A hybrid model in this thread (docs/events.md, "Across the boundary"): its continuous
// partitions and its discrete-event components, every event at its own time in both
// directions. The sequential reference whose digest every other method must give.
//
// The partitions step one at a time, the one furthest behind first; a step stays open until
// no event can arrive in it any more. The discrete components form an event group driven
// from this thread as the other group of a conservative pair: the crossings the partitions
// have located go to it as events, and its guarantee lets it process exactly the events up to
// the earliest thing that may still happen on this side (the next crossing, or the time of
// the partition furthest behind). An event it sends a partition that has already computed
// past the event's time rolls that partition back to the step that reaches it, which is then
// computed again with the step cut there; crossings found before the cut come out the same,
// bit for bit (integrator/event_ports.hpp), so nothing the discrete side has processed is
// ever undone.
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal {

// Runs the hybrid model `s` (s.bridge set) with the partitions of `in_turn` (a deployment of
// partitioned_deployment(s, in_turn(plan)) in this process). Never throws a kausal::Error: a
// failure ends the run with its status, exit code and message.
RunResult run_hybrid_sequential(const PartitionedScenario& s, const PartitionedPlan& plan,
                                Deployment& in_turn, RunControl& control,
                                const PartitionedWatchers& watchers);

}  // namespace kausal
