#pragma once
// What a run reports (docs/model.md §3): written to summary.json and shown on the terminal.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/activity_clock.hpp"
#include "common/errors.hpp"
#include "integrator/integrator.hpp"
#include "monitor/core/run_kind.hpp"
#include "system/pendulum.hpp"

namespace kausal {

// Values a component's trace track shows over time (trace.json "C" events, a counter graph
// in Perfetto): one value per series at each sample, on the monitor's clock.
struct CounterTrack {
  std::string name;                 // "events"
  std::vector<std::string> series;  // "processed", "committed", ...
  struct Sample {
    std::uint64_t at_ns = 0;
    std::vector<double> values;  // one per series
  };
  std::vector<Sample> samples;
};

struct ComponentReport {
  std::string name;  // "monitor", "integrator-3", "system-3", "sequential"
  ComponentRole role = ComponentRole::monitor;
  std::string host;
  long pid = 0;
  bool reachable = true;  // false: it died or hung before its timing could be read
  ActivityTotals totals;
  int cpu = -1;  // the CPU it was pinned to, -1 if not pinned
  // Its busy / rollback intervals (trace.json, the timelines), on its host's clock.
  // In-process runs only: streamed runs write them to trace.json as they go.
  std::vector<ActivitySpan> spans;
  std::uint64_t dropped_spans = 0;       // spans not in trace.json (lost, or past its limit)
  std::string node;                      // the node agent that started it (multi-host runs)
  std::uint64_t trace_slices = 0;        // slices trace.json holds for it
  std::vector<CounterTrack> counters{};  // in-process runs: written to trace.json at the end
};

// How much of the activity trace.json keeps (kausal run --trace, --trace-limit).
enum class TraceMode { full, coarse, off };
const char* trace_mode_name(TraceMode mode);

// What a trace.json holds (monitor/record/trace_writer.hpp).
struct TraceStats {
  TraceMode mode = TraceMode::full;
  std::uint64_t limit = 0;
  std::uint64_t events = 0;       // slices and flow ends written
  std::uint64_t not_written = 0;  // spans past the limit (or all of them with --trace off)
  std::uint64_t lost = 0;         // overwritten in a component before the monitor read them
  std::uint64_t clamped = 0;      // began before the trace's origin: moved to 0
  bool capped() const { return not_written > 0 && mode != TraceMode::off; }
};

// What a method adds to the report about its own traffic and speculation.
struct MethodCounters {
  // Calls between the monitor and the Integrators: each request the monitor makes (advance,
  // run_ahead, commit, rollback, apply_event, provide, ...) and each batch an Integrator
  // delivers to it, counted once per call whether or not it crosses a process boundary
  // (the single layout makes them collocated calls). Not counted: the Integrators' Calc
  // calls to their Systems, which are inter-process calls of their own in the process layout.
  std::uint64_t monitor_calls = 0;
  std::uint64_t bytes = 0;  // payload of those calls: 8 per double and step number
  // Partitioned models: calls from one Integrator straight to another (the direct data
  // path: the samples of a batch to one consumer), and their payload (24 per sample).
  std::uint64_t direct_calls = 0;
  std::uint64_t direct_bytes = 0;
  std::uint64_t rounds = 0;             // conservative: guarantees granted (rounds of the protocol)
  std::uint64_t rollbacks = 0;          // optimistic: Integrators rolled back
  std::uint64_t rolled_back_steps = 0;  // steps computed and then discarded
  std::uint64_t wasted_calc_calls = 0;  // Calc calls of those steps
  std::uint64_t stale_batches = 0;      // batches of an old epoch, dropped
};

// A partition of a coupled model (partitioned scenarios only).
struct PartitionSummary {
  std::string name;
  std::vector<std::string> members;  // its subsystems
  std::string integrator;
  double h = 0;
  std::uint64_t steps = 0;
  IntegratorStats stats;
  std::string integrator_choice;  // integrator = "auto": why this one (else empty)
};

// Nearest-rank percentiles of one figure over the steps of a run.
struct Spread {
  std::uint64_t count = 0;
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};
Spread spread_of(std::vector<double> samples);

// One component's part in each step of a paced run, from its activity trace: Integrators
// (a pendulum's or a partition's) and the monitor.
struct ComponentTiming {
  std::string name;
  // From its first to its last piece of work on the step: its own work and its waits for
  // its System (the System's Calcs, and the calls to it in the process layout).
  Spread step_s;
  Spread busy_s;  // its own work alone
};

// What a paced run's stall watch saw while the run lasted (monitor/core/stall_watch.hpp):
// how often the machine kept a CPU from a thread that asked for it longer than the
// threshold, and how many overruns its stalls explain (docs/realtime.md, "Whose overruns").
struct MachineStalls {
  bool watched = false;
  bool preempts = false;  // the watch preempted the run's threads: they cannot delay it
  unsigned cpus = 0;
  double threshold_s = 0;
  std::uint64_t samples = 0;
  std::uint64_t stalls = 0;  // longer than the threshold
  std::uint64_t over_1ms = 0;
  double longest_s = 0;
  // Overruns the machine made: in the last stretch before each was due (as long as its
  // lateness plus a typical step) up to its commit, the stalls held a CPU back at least as
  // long as it came late.
  std::uint64_t overruns_machine = 0;
};

// How a paced run kept up with its clock (docs/realtime.md). Per step: the delay of its
// start after its release, its time (from its start, or the commit of the state it starts
// from if later, to the commit of the state it computes), that time split into compute
// (the slowest component's part, the monitor's added) and communication (the rest), the
// load (step time over the time between its release and the next one: the real-time factor
// of HiL rigs, above 1 cannot keep up), and the lateness of its state (commit minus due
// time; negative: early). An overrun is a state committed after it was due.
struct RealtimeFigures {
  ClockSource clock = ClockSource::none;
  double factor = 0;  // wall
  ReleaseWait wait = ReleaseWait::hybrid;
  int priority = 0;         // --rt-priority: SCHED_FIFO priority (0: the default scheduler)
  double budget_s = 0;      // wall: h / factor per step; external: 0 (the ticks decide)
  std::uint64_t ticks = 0;  // external: ticks received
  std::uint64_t overruns = 0;
  Spread start_delay_s;
  Spread step_s;
  Spread compute_s;
  Spread communication_s;
  Spread load;
  Spread lateness_s;
  std::vector<ComponentTiming> components;
  MachineStalls machine;
};

// What the co-simulation master did (monitor/sync/cosim_master.hpp).
struct CosimulationFigures {
  std::string exchange;              // "jacobi" or "gauss-seidel"
  std::uint64_t macro_steps = 0;     // accepted
  std::uint64_t rejected_steps = 0;  // prediction error above the tolerance: repeated smaller
  std::uint64_t extra_passes = 0;    // iterations beyond each step's first pass
  std::uint64_t halvings = 0;        // iteration did not converge: repeated at half the step
  std::uint64_t messages = 0;        // calls from the master to the partitions
  std::uint64_t bytes = 0;           // their payload: 8 per double
  // Communication points where an input jumps (value not continuous): where a variable-step
  // solver in the receiver would have to restart.
  std::uint64_t input_discontinuities = 0;
  // Accepted with the error above the tolerance: at the smallest step, or with a partition
  // that cannot repeat a step (an FMU without get/set state).
  std::uint64_t above_tolerance = 0;
  // Partitions stood in for by a surrogate while the others iterated and the step was judged
  // ([master] surrogate): how many, and how far their outputs came out from the surrogate's
  // prediction, normalised as the error control measures (1: at the tolerance): the largest
  // miss, and the steps with a miss above 1.
  std::uint32_t surrogates = 0;
  double surrogate_max_miss = 0;
  std::uint64_t surrogate_misses = 0;
  double min_step_s = 0;  // of the accepted macro steps
  double max_step_s = 0;
  std::array<std::uint64_t, 4> predictions_of_order{};  // shipped, per polynomial order
};

// What a discrete-event run did (docs/events.md), summed over its components.
struct EventFigures {
  std::string model;  // "phold", ...
  std::size_t components = 0;
  std::uint32_t groups = 0;  // threads that ran them (1 for sequential)
  double end = 0;            // events below it are committed when the run completes
  double committed_to = 0;   // every event below this time is committed (end when completed)
  // A resumed run: the cut it continued from (the counts below are this attempt's; the
  // events committed before are RunResult::resumed_from.back()). 0 for a fresh run.
  double resumed_at = 0;
  std::uint64_t committed = 0;
  std::uint64_t processed = 0;    // re-executions included
  std::uint64_t rolled_back = 0;  // processed, then undone
  std::uint64_t rollbacks = 0;
  std::uint64_t stragglers = 0;
  std::uint64_t anti_messages = 0;
  std::uint64_t messages = 0;       // events and anti-events between groups
  std::uint64_t null_messages = 0;  // conservative guarantees
  std::uint64_t batches = 0;        // hand-overs between groups (calls in the process layout)
  std::uint64_t gvt_rounds = 0;
  std::uint64_t deadlocks = 0;  // found by the watch (recovered from, or the one that ended it)
  std::uint64_t permits = 0;    // events processed by the watch's permission
  // Optimistic: model errors raised on a speculative state and held back, and those a
  // rollback then cleared (the rest failed the run once GVT passed them).
  std::uint64_t deferred_errors = 0;
  std::uint64_t cleared_errors = 0;
  double window = 0;  // optimistic
  std::size_t peak_uncommitted = 0;
  // A hybrid model (docs/events.md, "Across the boundary"): the crossings its partitions
  // sent the discrete components, and the events those sent its partitions.
  std::uint64_t crossings = 0;
  std::uint64_t to_partitions = 0;
  // Per component, in component order: its name and what it processed, committed, undid,
  // received too late and cancelled.
  struct Component {
    std::string name;
    std::uint64_t processed = 0, committed = 0, rolled_back = 0, rollbacks = 0, stragglers = 0,
                  anti_messages = 0;
  };
  std::vector<Component> per_component;
  double efficiency() const {
    return processed ? static_cast<double>(committed) / static_cast<double>(processed) : 1.0;
  }
};

struct RunResult {
  SyncMethod method = SyncMethod::sequential;
  Guarantee guarantee = Guarantee::none;  // step or lookahead for conservative runs
  std::string model;
  std::string scenario;
  std::string integrator;
  std::size_t pendulums = 0;
  double h = 0;
  std::uint64_t planned_steps = 0;
  std::uint64_t steps = 0;  // committed steps (== planned_steps when completed)
  double wall_s = 0;
  std::uint64_t calc_calls = 0;
  std::uint64_t collisions = 0;
  MethodCounters counters;
  std::uint64_t state_list_peak = 0;  // over all Integrators
  std::string trajectory_sha256;
  std::vector<ComponentReport> components;
  std::vector<PendulumParams> geometry;  // for views: pivot, length and radius of each bob
  std::uint64_t start_ns = 0;            // the monitor's monotonic clock when the run started
  Pinning placement = Pinning::none;     // cores: components and fan-out lanes pinned per CPU
  // How the components were packed into processes (docs/architecture.md); empty for
  // sequential, which has no components.
  RunLayout layout = Layout::process;
  std::uint32_t blocks = 0;      // layout blocks: how many
  std::string deployment;        // --deploy: the deployment file; "" when everything ran here
  std::uint64_t batch_size = 0;  // optimistic
  std::uint64_t window = 0;      // optimistic
  // Partitioned models: the partitions and the optimistic prediction tolerance.
  std::vector<PartitionSummary> partitions;
  double tolerance = 0;
  std::optional<CosimulationFigures> cosimulation;  // runs under the master
  std::optional<EventFigures> events;               // discrete-event models
  // kausal compare --reference: the largest deviation of a state from the monolithic CVODE
  // answer over the rows, relative to the state's range (monitor/analysis/global_error.hpp).
  std::optional<double> global_error;
  TraceStats trace;                         // what its trace.json holds
  std::optional<RealtimeFigures> realtime;  // paced runs (--realtime, --clock external)

  // Resumed runs (kausal run --resume): the steps the run was resumed from, in order. Steps
  // and collisions count the whole run; wall time, Calc calls, monitor calls and components
  // only this last stretch.
  std::vector<std::uint64_t> resumed_from;

  RunStatus status = RunStatus::completed;
  std::string error;
  ExitCode exit_code = ExitCode::ok;

  // "conservative/lookahead", "optimistic", ...: the label used in tables.
  std::string label() const { return method_label(method, guarantee); }
  // A partitioned (coupled) model rather than a pendulum chain: no collisions, no batches,
  // no guarantee rounds, no stale batches — figures of the chain that are not printed.
  bool partitioned() const { return model == "partitioned"; }
  // A pendulum chain: the only model kind with collisions, guarantee rounds and batches.
  bool chain() const { return !partitioned() && !events; }
  bool completed() const { return status == RunStatus::completed; }
  // Ends the run with this error: interrupted for Ctrl-C and SIGTERM, failed otherwise.
  void end_with(const Error& e) {
    status = e.exit_code() == ExitCode::interrupted ? RunStatus::interrupted : RunStatus::failed;
    error = e.what();
    exit_code = e.exit_code();
  }
};

// Mean over the components of busy / (busy + idle + rollback): how much of its life a
// component spent computing something that was kept.
double mean_utilisation(const RunResult& r);
// Microseconds the caller of a Calc waits for it: Integrators' waits for their Systems per
// Calc call (the round trip in the process layout), or the sequential reference's time per
// Calc. 0 when nothing was measured.
double calc_cost_us(const RunResult& r);

}  // namespace kausal
