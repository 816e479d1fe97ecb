#pragma once
// A hybrid model (docs/events.md, "Across the boundary"): its continuous partitions and its
// discrete-event components, every event at its own time in both directions, under every
// method to the sequential run's digest.
//
// The discrete components form one or more event groups (monitor/sync/discrete_side.hpp)
// driven from the monitor's thread, which is their other side: the crossings the partitions
// have located go to them as events, and its guarantee lets them process exactly the events
// up to the earliest thing that may still happen on this side (the next crossing, or the
// time of the partition furthest behind). A partition's step stays open until no event can arrive in it any more. An event
// for a partition that has already computed past the event's time rolls that partition back
// to the step that reaches it, which is then computed again with the step cut there;
// crossings found before the cut come out the same, bit for bit (integrator/event_ports.hpp),
// so nothing the discrete side has processed is ever undone. The methods differ in which
// partitions step, and where (run_hybrid).
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal {

// Runs the hybrid model `s` (s.bridge set) with the partitions of `deployment` (a deployment
// of partitioned_deployment(s, plan), plan without speculation: in_turn) and its discrete
// components in `groups` event groups (1 to their number; several settle at once, one thread
// each), driven from this thread: sequential, the partitions in turn; conservative, the partitions furthest behind
// step at once, one lane each; optimistic, every partition steps ahead within its window
// (plan.mode.window steps past its last committed one) and is rolled back when an event
// arrives in what it computed. Never throws a kausal::Error: a failure ends the run with its
// status, exit code and message. The observers that want to resume it are told of cuts
// (CommitObserver::cut_reached); `from`: a resumed run's (its plan starts every partition at
// the cut's tick), null for a fresh one.
RunResult run_hybrid(const PartitionedScenario& s, SyncMethod method, std::uint32_t groups,
                     const PartitionedPlan& plan, Deployment& deployment, RunControl& control,
                     const PartitionedWatchers& watchers, const BridgePoint* from = nullptr);

}  // namespace kausal
