#pragma once
// Runs a partitioned model (docs/model.md §4): sequentially in this thread, or with every
// partition stepping on its own (in this process or in others) while the monitor routes the
// final outputs of each partition to the partitions they feed, records them, and watches
// for dead or stuck partitions.
#include <chrono>
#include <filesystem>
#include <string>

#include "monitor/core/commit_observer.hpp"
#include "monitor/core/run_control.hpp"
#include "monitor/core/run_observer.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/sync/coupling.hpp"
#include "monitor/sync/delivered_steps.hpp"
#include "monitor/sync/injections.hpp"
#include "monitor/sync/integrator_port.hpp"
#include "monitor/sync/partitioned_plan.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

// The payload of a partition's batch of steps: 8 bytes per state and output value.
inline std::uint64_t batch_bytes(const StateBatch& batch) {
  return 8 * (batch.states.size() + batch.outputs.size());
}

// Adds components' reports to a result (and their state lists' peak).
void add_components(RunResult& r, std::vector<ComponentReport> components);

// What the result says about the scenario before the run (method, model, partitions).
RunResult describe_partitioned_run(const PartitionedScenario& s, SyncMethod method,
                                   const PartitionedMode& mode);

// What watches a partitioned run: the observers of its commits (the recorder, the
// checkpointer, the readout) are told of every delivery; an observer (the trace collector,
// the live animation) sees how far every partition has got and the monitor thread's trace
// (and the recorder's rows: PartitionedRecorder::observe).
struct PartitionedWatchers {
  RunObserver* observer = nullptr;
  CommitObservers commits;
  // Paced runs: the clock releases the ticks (a partition's step n with its first tick), and
  // times the rows as they complete.
  StepClock* clock = nullptr;
  // Paced runs: changes of constant inputs and parameters (checked already: the subsystem
  // and the name exist) and a stop from the operator. A change is handed to its partition
  // before any partition computes past its tick.
  Injections* injections = nullptr;
  // A hybrid model: where its events across the boundary are written as they are committed
  // (bridge.csv, docs/events.md); empty: nowhere.
  std::filesystem::path bridge_log = {};
};

// What every coupling of partitions shares (sequential, distributed, the co-simulation
// master): the run's position is the horizon of the delivered steps in ticks; every delivery
// is checked and told to the run's observers; the observer watches the horizon (and the
// monitor thread's trace, watch_monitor) until the run finishes; the operator's changes go
// to the partitions they concern as soon as they come, each from its own tick on.
class PartitionedCoupling : public Coupling {
 public:
  PartitionedCoupling(const PartitionedScenario& s, const PartitionedPlan& plan,
                      const PartitionedWatchers& watchers);
  ~PartitionedCoupling() override;
  PartitionedCoupling(const PartitionedCoupling&) = delete;
  PartitionedCoupling& operator=(const PartitionedCoupling&) = delete;

  std::uint64_t committed() const override { return delivered_.horizon(); }
  std::uint64_t end() const override { return s_.ticks; }
  std::uint64_t injections_due() const override { return Injections::none; }
  void apply(const Injection& injection) override;

 protected:
  // The ports of the partitions (once started).
  virtual Deployment& deployment() = 0;
  // The observer also sees the monitor thread's activity (the thread recording deliveries,
  // the master's), until the run finishes.
  void watch_monitor(const ActivityTrace& trace);
  // Partition p's final steps: checked (ProtocolError unless they continue its steps) and
  // told, with the samples routed from them, to every observer.
  void commit(std::size_t p, const StateBatch& batch, const RoutedSamples& routed = {});
  // The same, and the samples the batch carries for other partitions routed: provided by the
  // monitor (`relay`: a run in this thread) or only counted (the producers provide them
  // themselves). `counters`, `monitor`: the calls and bytes of providing them, the monitor
  // thread's busy time.
  void route(std::size_t p, const StateBatch& batch, bool relay, MethodCounters* counters = nullptr,
             ActivityClock* monitor = nullptr);
  // The end every coupling of partitions shares: the last checkpoint, the partitions'
  // counters (`deployment`: null when it never started), the digest.
  void finish_partitions(RunResult& r, Deployment* deployment);
  // A run whose partitions all step in the loop's thread: that thread is its one component.
  static void add_this_thread(RunResult& r);

  const PartitionedScenario& s_;
  const PartitionedPlan& plan_;
  const PartitionedWatchers watchers_;
  DeliveredSteps delivered_;

 private:
  void stop_watching();
  bool traced_ = false;  // the observer was given a trace and must be told when it goes
  std::vector<std::uint64_t> reached_;  // for the observer, reused every delivery
};

// The last state of a partition with `config` that may be computed once the clock has
// released ticks up to `released_tick` (its step n needs the release of step n·k, k its ticks
// per step).
std::uint64_t released_state(const IntegratorConfig& config, std::uint64_t released_tick);

// The plan of a sequential run: no partition speculates (it steps as far as its inputs
// allow, in turn with the others).
PartitionedPlan in_turn(PartitionedPlan plan);

// Every partition of `in_turn` (a deployment of partitioned_deployment(s, in_turn(plan)) in
// this process) in this thread, in turn, each as far as its inputs allow. Never throws a
// kausal::Error: a failure ends the run with its status, exit code and message. A resumed
// run: the plan starts each partition at its checkpoint, the recorder continues there.
// (deploy/local_deployment.hpp: run_partitioned_sequential builds the deployment.)
RunResult run_partitions_in_turn(const PartitionedScenario& s, const PartitionedPlan& plan,
                                 Deployment& in_turn, RunControl& control,
                                 const PartitionedWatchers& watchers);

// The partitions of `deployment` (a deployment of partitioned_deployment(s, plan)) step by
// themselves; conservative or optimistic is the plan's mode. The deployment watches its components
// (a dead or stopped one becomes a failure in its inbox, exit code 3): however long the partitions
// take, the monitor only waits. Never throws a kausal::Error. The monitor thread is a component of
// the run ("monitor": busy while it takes a delivery and computes the samples it routes); an
// observer sees its trace as well as the horizon.
RunResult run_partitioned_distributed(const PartitionedScenario& s, SyncMethod method,
                                      const PartitionedPlan& plan, Deployment& deployment,
                                      RunControl& control, const PartitionedWatchers& watchers);

}  // namespace kausal
