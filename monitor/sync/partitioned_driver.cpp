#include "monitor/sync/partitioned_driver.hpp"

#include <unistd.h>

#include <atomic>
#include <map>
#include <optional>
#include <thread>

#include "common/errors.hpp"
#include "monitor/sync/execution.hpp"
#include "monitor/sync/sequential.hpp"

namespace kausal {
namespace {

using Clock = std::chrono::steady_clock;

// Hands an operator's change to the partitions it concerns: from the stages at its tick on (a
// quarter tick early, so that a stage at the tick itself sees the change however its time was
// rounded: docs/realtime.md).
void install_change(const PartitionedScenario& s, Deployment& deployment, const Injection& i) {
  if (i.kind != InjectionKind::set) return;
  const std::size_t dot = i.target.find('.');
  const std::string member = i.target.substr(0, dot);
  for (const SubsystemSpec& sub : s.subsystems) {
    if (sub.name != member) continue;
    const double from = s.t0() + (static_cast<double>(i.step) - 0.25) * s.tick;
    deployment.integrator(sub.partition).change({member, i.target.substr(dot + 1), i.value, from});
  }
}

}  // namespace

std::uint64_t released_state(const IntegratorConfig& c, std::uint64_t released_tick) {
  if (released_tick == 0) return 0;
  return (released_tick - 1) / c.ticks_per_step + 1;
}

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
    PartitionSummary report{
        p.name, {}, std::string(ode_method_name(p.method)), p.h, p.steps, {}, p.chosen_because};
    for (std::size_t m : p.members) report.members.push_back(s.subsystems[m].name);
    r.partitions.push_back(std::move(report));
    if (!r.integrator.empty()) r.integrator += '+';
    r.integrator += ode_method_name(p.method);
  }
  return r;
}

namespace {

// The step each partition delivers first: its start, or the step after a resumed run's
// checkpoint (the monitor has that one).
std::vector<std::uint64_t> first_deliveries(const PartitionedPlan& plan) {
  std::vector<std::uint64_t> next;
  for (const IntegratorConfig& c : plan.configs)
    next.push_back(c.first_step + (c.publish_first_state ? 0 : 1));
  return next;
}

}  // namespace

PartitionedCoupling::PartitionedCoupling(const PartitionedScenario& s, const PartitionedPlan& plan,
                                         const PartitionedWatchers& watchers)
    : s_(s), plan_(plan), watchers_(watchers), delivered_(s, first_deliveries(plan)) {}

void PartitionedCoupling::commit(std::size_t p, const StateBatch& batch,
                                 const RoutedSamples& routed) {
  delivered_.take(p, batch);
  watchers_.commits.delivered(p, batch, routed);
  if (watchers_.observer && delivered_.reached(reached_))
    watchers_.observer->horizon(delivered_.horizon(), reached_);
}

void PartitionedCoupling::route(std::size_t p, const StateBatch& batch, bool relay,
                                MethodCounters* counters, ActivityClock* monitor) {
  RoutedSamples routed;
  {
    std::optional<BusyScope> busy;
    if (monitor) busy.emplace(*monitor, SpanTag{ActivityCall::route});
    routed = samples_by_consumer(plan_.routes[p], batch);
    // Before the monitor provides (a sequential run): a consumer that has died must not
    // keep the checkpoint from the batch already recorded (the resume gives the consumer
    // these samples).
    commit(p, batch, routed);
  }
  for (auto& [q, samples] : routed) {
    if (relay) deployment().integrator(q).provide(samples);
    if (!counters) continue;
    ++(relay ? counters->monitor_calls : counters->direct_calls);
    (relay ? counters->bytes : counters->direct_bytes) += 24 * samples.size();
  }
}

void PartitionedCoupling::watch_monitor(const ActivityTrace& trace) {
  if (!watchers_.observer) return;
  watchers_.observer->monitor_trace(&trace);
  traced_ = true;
}

PartitionedCoupling::~PartitionedCoupling() {
  stop_watching();
}

void PartitionedCoupling::stop_watching() {
  if (traced_) watchers_.observer->monitor_trace(nullptr);
  traced_ = false;
}

void PartitionedCoupling::apply(const Injection& injection) {
  install_change(s_, deployment(), injection);
}

void PartitionedCoupling::add_this_thread(RunResult& r) {
  const auto end_ns = r.start_ns + static_cast<std::uint64_t>(r.wall_s * 1e9);
  add_components(r, {sequential_report(r.start_ns, end_ns, r.calc_calls)});
}

void PartitionedCoupling::finish_partitions(RunResult& r, Deployment* deployment) {
  stop_watching();
  for (std::size_t p = 0; deployment && p < deployment->size(); ++p) {
    try {
      r.partitions[p].stats = deployment->integrator(p).stats();
    } catch (const Error&) {
      // a dead partition: its counters are lost, the failure is already in the result
    }
  }
  r.steps = delivered_.horizon();
  for (const auto& p : r.partitions) {
    r.calc_calls += p.stats.derivative_calls;
    r.counters.rollbacks += p.stats.rollbacks;
    r.counters.rolled_back_steps += p.stats.rolled_back_steps;
    r.counters.wasted_calc_calls += p.stats.wasted_derivative_calls;
  }
  // Whatever happened, the last delivered steps are on disk for a resume, with the digest.
  watchers_.commits.finished(r);
}

namespace {

// Every partition in this thread, in turn, each as far as its inputs allow.
class PartitionsInTurn final : public PartitionedCoupling {
 public:
  // No monitor thread: its trace is the run's.
  PartitionsInTurn(const PartitionedScenario& s, const PartitionedPlan& plan, Deployment& in_turn,
                   const PartitionedWatchers& watchers)
      : PartitionedCoupling(s, plan, watchers), deployment_(in_turn) {}

  bool computes_here() const override { return true; }
  void start(std::uint64_t) override {}

  // Unpaced: one turn. Paced: turns while any partition can step within the release (a
  // partition fed by another steps in the turn after it).
  bool advance(std::uint64_t released) override {
    if (released == unpaced) return turn(released);
    bool progress = false;
    while (turn(released)) progress = true;
    return progress;
  }

  std::string stalled() const override {
    return "the partitions wait for each other (no partition can step)";
  }

  void finish(RunResult& r) override {
    finish_partitions(r, &deployment_);
    add_this_thread(r);
  }

 protected:
  Deployment& deployment() override { return deployment_; }

 private:
  // Every partition as far as its inputs, a grant and the release allow. Steps a partition
  // is granted per turn: any number gives the same steps (a partition steps as far as its
  // inputs allow); a batch's worth keeps a stop request answered soon.
  bool turn(std::uint64_t released) {
    const std::uint64_t grant = std::max<std::uint64_t>(1, plan_.mode.batch_size);
    bool progress = false;
    for (std::size_t p = 0; p < deployment_.size(); ++p) {
      const IntegratorConfig& c = plan_.configs[p];
      std::uint64_t last = c.last_step;
      if (released != unpaced) last = std::min(last, released_state(c, released));
      const std::uint64_t next = delivered_.next(p);
      if (next > last) continue;  // every step allowed published
      const std::uint64_t gvt = next > 0 ? next - 1 : 0;
      const StateBatch batch =
          deployment_.integrator(p).advance(gvt + std::min(last - gvt, grant), gvt);
      if (batch.count() == 0) continue;
      progress = true;
      route(p, batch, true);
    }
    return progress;
  }

  Deployment& deployment_;
};

// The partitions of a deployment step by themselves; this thread records their deliveries.
class PartitionsByThemselves final : public PartitionedCoupling {
 public:
  PartitionsByThemselves(const PartitionedScenario& s, const PartitionedPlan& plan,
                         Deployment& deployment, const PartitionedWatchers& watchers)
      : PartitionedCoupling(s, plan, watchers),
        deployment_(deployment),
        sent_(plan.configs.size(), 0) {
    watch_monitor(monitor_.trace());
  }

  bool computes_here() const override { return false; }

  void start(std::uint64_t released) override {
    for (std::size_t p = 0; p < deployment_.size(); ++p) {
      std::uint64_t initial = IntegratorPort::unreleased;
      if (released != unpaced) initial = sent_[p] = released_state(plan_.configs[p], released);
      deployment_.integrator(p).start(plan_.mode.batch_size, plan_.mode.window, initial);
    }
  }

  // One delivery (a timeout only to see a stop request: liveness is the deployment's business).
  bool advance(std::uint64_t) override {
    auto delivery = deployment_.inbox().pop(std::chrono::milliseconds(200));
    if (!delivery) return false;
    if (delivery->failure) std::rethrow_exception(delivery->failure);
    // The Integrators provide each other's samples: the monitor only takes the delivery.
    ++counters_.monitor_calls;
    counters_.bytes += batch_bytes(delivery->batch);
    route(delivery->source, delivery->batch, false, &counters_, &monitor_);
    return true;
  }

  void release(std::uint64_t released) override {
    for (std::size_t p = 0; p < sent_.size(); ++p) {
      const std::uint64_t state = released_state(plan_.configs[p], released);
      if (state <= sent_[p]) continue;
      deployment_.integrator(p).release(state);
      sent_[p] = state;
    }
  }

  void fail(std::exception_ptr failure) override { deployment_.inbox().fail(failure); }

  void finish(RunResult& r) override {
    r.counters = counters_;
    finish_partitions(r, &deployment_);
    add_components(r, {monitor_report(monitor_)});
    add_components(r, deployment_.reports());
  }

 protected:
  Deployment& deployment() override { return deployment_; }

 private:
  ActivityClock monitor_;  // this thread: recording deliveries
  MethodCounters counters_;
  Deployment& deployment_;
  std::vector<std::uint64_t> sent_;  // per partition: the last state released to it
};

}  // namespace

PartitionedPlan in_turn(PartitionedPlan plan) {
  for (auto& config : plan.configs) config.speculate = false;
  return plan;
}

RunResult run_partitions_in_turn(const PartitionedScenario& s, const PartitionedPlan& plan,
                                 Deployment& in_turn, RunControl& control,
                                 const PartitionedWatchers& watchers) {
  PartitionsInTurn coupling(s, plan, in_turn, watchers);
  return execute(coupling, describe_partitioned_run(s, SyncMethod::sequential, {}), control,
                 {watchers.clock, watchers.injections});
}

RunResult run_partitioned_distributed(const PartitionedScenario& s, SyncMethod method,
                                      const PartitionedPlan& plan, Deployment& deployment,
                                      RunControl& control, const PartitionedWatchers& watchers) {
  PartitionsByThemselves coupling(s, plan, deployment, watchers);
  return execute(coupling, describe_partitioned_run(s, method, plan.mode), control,
                 {watchers.clock, watchers.injections});
}

}  // namespace kausal
