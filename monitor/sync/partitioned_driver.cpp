#include "monitor/sync/partitioned_driver.hpp"

#include <unistd.h>

#include <atomic>
#include <map>
#include <optional>
#include <thread>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/sync/sequential.hpp"
#include "system/errors.hpp"

namespace kausal {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Records the final steps partitions deliver, with the samples in them (the checkpoint's
// input histories): the same for both drivers. In a sequential run the monitor also provides
// those samples to their consumers; started Integrators provide them themselves (the direct
// data path, integrator/routing_sink.hpp).
struct Router {
  const PartitionedPlan& plan;
  PartitionedRecorder& recorder;
  Deployment& deployment;
  bool relay = true;                   // provide the samples (false: the producers do)
  MethodCounters* counters = nullptr;  // calls and bytes between processes (nullptr: none)
  ActivityClock* monitor = nullptr;    // the monitor thread, busy recording and sampling
  Checkpointer* checkpoints = nullptr;
  Readout* readout = nullptr;

  void route(std::size_t p, const StateBatch& batch) const {
    if (readout && batch.count() > 0) read_out(p, batch);
    std::map<std::size_t, std::vector<ChannelSample>> routed;
    {
      std::optional<BusyScope> busy;
      if (monitor) busy.emplace(*monitor, SpanTag{ActivityCall::route});
      recorder.record(p, batch);
      routed = samples_by_consumer(plan.routes[p], batch);
    }
    // Before the monitor provides (a sequential run): a consumer that has died must not
    // keep the checkpoint from the batch the recorder already holds (the resume gives the
    // consumer these samples).
    if (checkpoints) checkpoints->delivered(plan, p, batch, routed, recorder);
    if (counters) {
      ++counters->monitor_calls;
      counters->bytes += 8 * (batch.states.size() + batch.outputs.size());
    }
    for (auto& [q, samples] : routed) {
      if (relay) deployment.integrator(q).provide(samples);
      if (!counters) continue;
      ++(relay ? counters->monitor_calls : counters->direct_calls);
      (relay ? counters->bytes : counters->direct_bytes) += 24 * samples.size();
    }
  }

  // The batch's last state and outputs, at its tick.
  void read_out(std::size_t p, const StateBatch& batch) const {
    const std::size_t last = batch.count() - 1;
    std::vector<double> values(batch.state(last).begin(), batch.state(last).end());
    const auto outputs =
        batch.outputs.begin() + static_cast<std::ptrdiff_t>(last * batch.output_size);
    values.insert(values.end(), outputs, outputs + static_cast<std::ptrdiff_t>(batch.output_size));
    readout->update(p, (batch.first_step + last) * plan.configs[p].ticks_per_step, values);
  }
};

// Hands the operator's pending changes to the partitions they concern: from the stages at
// their tick on (a quarter tick early, so that a stage at the tick itself sees the change
// however its time was rounded: docs/realtime.md).
void install_changes(const PartitionedScenario& s, Deployment& deployment, Injections& injections) {
  for (const Injection& i : injections.take(Injections::none)) {
    if (i.kind != InjectionKind::set) continue;
    const std::size_t dot = i.target.find('.');
    const std::string member = i.target.substr(0, dot);
    for (const SubsystemSpec& sub : s.subsystems) {
      if (sub.name != member) continue;
      const double from = s.t0() + (static_cast<double>(i.step) - 0.25) * s.tick;
      deployment.integrator(sub.partition)
          .change({member, i.target.substr(dot + 1), i.value, from});
    }
  }
}

}  // namespace

void finish_partitioned(RunResult& r, const PartitionedRecorder& recorder,
                        std::chrono::steady_clock::time_point start) {
  r.wall_s = seconds_since(start);
  r.trajectory_sha256 = recorder.digest();
  r.steps = recorder.horizon();
  for (const auto& p : r.partitions) {
    r.calc_calls += p.stats.derivative_calls;
    r.counters.rollbacks += p.stats.rollbacks;
    r.counters.rolled_back_steps += p.stats.rolled_back_steps;
    r.counters.wasted_calc_calls += p.stats.wasted_derivative_calls;
  }
}

namespace {

// The observer watches the recorder and the monitor's trace from construction until end()
// or, on any other way out (an exception that is no kausal::Error), the destructor: it
// never reads the trace after the clock has gone.
class Watch {
 public:
  Watch(RunObserver* observer, PartitionedRecorder& recorder, const ActivityTrace* trace)
      : observer_(observer), recorder_(recorder), traced_(observer && trace) {
    recorder_.observe(observer_);
    if (traced_) observer_->monitor_trace(trace);
  }
  ~Watch() { end(); }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  void end() {
    if (traced_) observer_->monitor_trace(nullptr);
    recorder_.observe(nullptr);
    observer_ = nullptr;
    traced_ = false;
  }

 private:
  RunObserver* observer_;
  PartitionedRecorder& recorder_;
  bool traced_;  // the observer was given a trace and must be told when it goes
};

// The last state of a partition that may be computed once the clock has released ticks up
// to `released_tick` (its step n needs the release of step n·k, k its ticks per step).
std::uint64_t released_state(const IntegratorConfig& c, std::uint64_t released_tick) {
  if (released_tick == 0) return 0;
  return (released_tick - 1) / c.ticks_per_step + 1;
}

// Paced distributed runs: a thread that waits for each release of the clock and hands every
// partition what it may compute now. Nothing escapes it: a failure (a partition that cannot
// be told) fails the run's inbox.
class Releaser {
 public:
  Releaser(StepClock& clock, const PartitionedScenario& s, const PartitionedPlan& plan,
           Deployment& deployment, Injections* injections, RunControl& control)
      : clock_(clock),
        scenario_(s),
        plan_(plan),
        deployment_(deployment),
        injections_(injections),
        stop_(control) {
    for (const auto& c : plan.configs) sent_.push_back(released_state(c, clock.released()));
  }
  ~Releaser() {
    if (!thread_.joinable()) return;
    stop_.stopping = true;
    thread_.join();
  }
  Releaser(const Releaser&) = delete;
  Releaser& operator=(const Releaser&) = delete;

  // What each partition may compute before the first release (before start: the thread
  // owns the releases from then on).
  std::uint64_t initial(std::size_t p) const { return sent_[p]; }
  // Releases steps first .. last − 1 as the clock gives them, once every partition has
  // started with its initial release: a release never reaches a partition before its start.
  void start(std::uint64_t first, std::uint64_t last) {
    thread_ = std::thread([this, first, last] { run(first, last); });
  }

 private:
  struct Stop final : RunControl {
    explicit Stop(RunControl& c) : run(c) {}
    bool stop_requested() const override { return stopping || run.stop_requested(); }
    RunControl& run;
    std::atomic<bool> stopping{false};
  };

  void run(std::uint64_t first, std::uint64_t last) {
    try {
      for (std::uint64_t m = first; m < last; ++m) {
        clock_.wait_release(m, stop_);
        // Changes first: nobody has computed past the tick they take effect at.
        std::uint64_t upto = m + 1;
        if (injections_) {
          install_changes(scenario_, deployment_, *injections_);
          upto = std::min(upto, injections_->hold());  // a stop
        }
        for (std::size_t p = 0; p < sent_.size(); ++p) {
          const std::uint64_t state = released_state(plan_.configs[p], upto);
          if (state <= sent_[p]) continue;
          deployment_.integrator(p).release(state);
          sent_[p] = state;
        }
      }
    } catch (const Interrupted&) {
      // the run ends (or was asked to stop: the driver sees that itself)
    } catch (...) {
      deployment_.inbox().fail(std::current_exception());
    }
  }

  StepClock& clock_;
  const PartitionedScenario& scenario_;
  const PartitionedPlan& plan_;
  Deployment& deployment_;
  Injections* injections_;
  Stop stop_;
  std::vector<std::uint64_t> sent_;
  std::thread thread_;  // last: started once the rest is there
};

}  // namespace

void add_components(RunResult& r, std::vector<ComponentReport> components) {
  for (auto& c : components) {
    r.state_list_peak = std::max(r.state_list_peak, c.totals.state_list_peak);
    r.components.push_back(std::move(c));
  }
}

RunResult describe_partitioned_run(const PartitionedScenario& s, SyncMethod method,
                                   const PartitionedMode& mode) {
  RunResult r;
  r.method = method;
  r.model = "partitioned";
  r.scenario = s.name;
  r.h = s.tick;
  r.planned_steps = s.ticks;
  r.tolerance = mode.tolerance;
  r.window = mode.speculate ? mode.window : 0;
  r.layout = method == SyncMethod::sequential ? RunLayout{} : RunLayout{Layout::process};
  for (const auto& p : s.partitions) {
    PartitionSummary report{p.name, {}, std::string(ode_method_name(p.method)), p.h, p.steps, {}};
    for (std::size_t m : p.members) report.members.push_back(s.subsystems[m].name);
    r.partitions.push_back(std::move(report));
    if (!r.integrator.empty()) r.integrator += '+';
    r.integrator += ode_method_name(p.method);
  }
  return r;
}

RunResult run_partitioned_sequential(const PartitionedScenario& s, const PartitionedPlan& plan,
                                     PartitionedRecorder& recorder, RunControl& control,
                                     const PartitionedWatchers& watchers) {
  RunResult r = describe_partitioned_run(s, SyncMethod::sequential, {});
  Watch watch(watchers.observer, recorder, nullptr);  // no monitor thread: its trace is the run's
  const auto start = Clock::now();
  r.start_ns = monotonic_ns(start);
  PartitionedPlan in_turn = plan;
  for (auto& config : in_turn.configs) config.speculate = false;
  std::optional<LocalDeployment> deployment;
  try {
    deployment.emplace(partitioned_deployment(s, in_turn));
    const Router router{in_turn, recorder, *deployment,          true,
                        nullptr, nullptr,  watchers.checkpoints, watchers.readout};
    Injections* injections = watchers.injections;
    // Steps a partition is granted per turn: any number gives the same steps (a partition
    // steps as far as its inputs allow); a batch's worth keeps a stop request answered soon.
    const std::uint64_t grant = std::max<std::uint64_t>(1, plan.mode.batch_size);
    StepClock* clock = watchers.clock;
    std::uint64_t next_release = recorder.horizon();  // paced: the clock's next step
    if (clock) clock->start();
    // One turn: every partition as far as its inputs, the grant and the clock allow.
    auto turn = [&] {
      bool progress = false;
      for (std::size_t p = 0; p < deployment->size(); ++p) {
        const IntegratorConfig& c = in_turn.configs[p];
        std::uint64_t last = c.last_step;
        if (clock)
          last = std::min(
              last, released_state(c, injections ? injections->released() : clock->released()));
        if (recorder.recorded(p) > last) continue;  // every step allowed published
        const std::uint64_t gvt = recorder.recorded(p) > 0 ? recorder.recorded(p) - 1 : 0;
        const StateBatch batch =
            deployment->integrator(p).advance(gvt + std::min(last - gvt, grant), gvt);
        if (batch.count() == 0) continue;
        progress = true;
        router.route(p, batch);
      }
      return progress;
    };
    while (!recorder.complete()) {
      if (control.stop_requested()) throw Interrupted();
      if (injections) injections->check_stop(recorder.horizon());
      bool progress = false;
      if (clock && next_release < s.ticks) {
        clock->wait_release(next_release++, control);
        if (injections) install_changes(s, *deployment, *injections);
        while (turn()) progress = true;
        clock->committed(recorder.horizon());
        if (!progress) continue;  // nothing to do until the next release
      } else {
        progress = turn();
      }
      control.progress(recorder.horizon(), s.ticks);
      if (!progress && !recorder.complete())
        throw SimulationError("the partitions wait for each other (no partition can step)");
    }
  } catch (const Error& e) {
    r.end_with(e);
  }
  if (watchers.checkpoints) watchers.checkpoints->write_final(recorder, r);
  watch.end();
  if (deployment)
    for (std::size_t p = 0; p < deployment->size(); ++p)
      r.partitions[p].stats = deployment->integrator(p).stats();
  finish_partitioned(r, recorder, start);
  add_components(
      r, {sequential_report(r.start_ns, r.start_ns + static_cast<std::uint64_t>(r.wall_s * 1e9),
                            r.calc_calls)});
  recorder.flush();
  return r;
}

RunResult run_partitioned_distributed(const PartitionedScenario& s, SyncMethod method,
                                      const PartitionedPlan& plan, Deployment& deployment,
                                      PartitionedRecorder& recorder, RunControl& control,
                                      const PartitionedWatchers& watchers) {
  RunResult r = describe_partitioned_run(s, method, plan.mode);
  const auto start = Clock::now();
  r.start_ns = monotonic_ns(start);
  ActivityClock monitor;  // this thread: recording deliveries
  Watch watch(watchers.observer, recorder, &monitor.trace());
  // The Integrators provide each other's samples: the monitor only records.
  const Router router{plan,        recorder, deployment,           false,
                      &r.counters, &monitor, watchers.checkpoints, watchers.readout};
  StepClock* clock = watchers.clock;
  Injections* injections = watchers.injections;
  std::optional<Releaser> releaser;
  try {
    if (clock) {
      clock->start();
      releaser.emplace(*clock, s, plan, deployment, injections, control);
    }
    for (std::size_t p = 0; p < deployment.size(); ++p)
      deployment.integrator(p).start(plan.mode.batch_size, plan.mode.window,
                                     releaser ? releaser->initial(p) : IntegratorPort::unreleased);
    if (releaser) releaser->start(recorder.horizon(), s.ticks);
    while (!recorder.complete()) {
      if (control.stop_requested()) throw Interrupted();
      if (injections) injections->check_stop(recorder.horizon());
      // (A timeout only to see a stop request: liveness is the deployment's business.)
      auto delivery = deployment.inbox().pop(std::chrono::milliseconds(200));
      if (!delivery) continue;
      if (delivery->failure) std::rethrow_exception(delivery->failure);
      router.route(delivery->source, delivery->batch);
      if (clock) clock->committed(recorder.horizon());
      control.progress(recorder.horizon(), s.ticks);
    }
  } catch (const Error& e) {
    r.end_with(e);
  }
  releaser.reset();
  if (watchers.checkpoints) watchers.checkpoints->write_final(recorder, r);
  watch.end();
  for (std::size_t p = 0; p < deployment.size(); ++p) {
    try {
      r.partitions[p].stats = deployment.integrator(p).stats();
    } catch (const Error&) {
      // a dead partition: its counters are lost, the failure is already in the result
    }
  }
  finish_partitioned(r, recorder, start);
  add_components(r, {monitor_report(monitor)});
  add_components(r, deployment.reports());
  recorder.flush();
  return r;
}

}  // namespace kausal
