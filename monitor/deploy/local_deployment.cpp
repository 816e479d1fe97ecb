#include "monitor/deploy/local_deployment.hpp"

#include <unistd.h>

#include <mutex>
#include <optional>
#include <thread>

#include "common/errors.hpp"
#include "integrator/integrator_access.hpp"
#include "integrator/local_model_link.hpp"
#include "integrator/routing_sink.hpp"

namespace kausal {

struct LocalDeployment::Part final : IntegratorPort, BatchSink {
  SystemCore system;
  LocalModelLink link;
  Integrator integrator;
  BatchInbox& inbox;
  std::size_t index;
  std::chrono::milliseconds delay;
  std::vector<Route> routes;
  std::vector<std::unique_ptr<Part>>& parts;  // the deployment's: the consumers of routes
  std::unique_ptr<RoutingSink> sink;          // once started
  IntegratorAccess access;                    // last: the worker ends before the rest goes

  Part(const PartitionPlan& plan, std::size_t i, BatchInbox& box, const LocalDeploymentOptions& o,
       std::vector<std::unique_ptr<Part>>& all)
      : system(plan.system),
        // The System is configured before the Integrator is built: a resumed partition's
        // Integrator hands its System the saved internal state (an FMU's) as it is built.
        link(configured(system, plan.recipe)),
        integrator(plan.config, link),
        inbox(box),
        index(i),
        delay(o.delivery_delay),
        routes(plan.routes),
        parts(all) {}

  static SystemCore& configured(SystemCore& system, const SystemRecipe& recipe) {
    configure(system, recipe);
    return system;
  }

  const std::string& name() const override { return integrator.name(); }
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    return access.call(
        [&] { return integrator.advance(guarantee, gvt); },
        [&](Worker&) -> StateBatch { throw ProtocolError(name(), "advance() once started"); });
  }
  void start(std::size_t batch_size, std::uint64_t window, std::uint64_t released) override {
    access.start(name(), [&](std::mutex& mutex) {
      if (released != unreleased) integrator.release(released);
      ReceiversHere here{true, {}};  // every receiver: calls from the worker's thread
      for (const Route& r : routes) here.consumers.insert(r.consumer);
      sink = std::make_unique<RoutingSink>(
          *this, routes,
          [this](std::size_t consumer, const std::vector<ChannelSample>& samples) {
            parts.at(consumer)->provide(samples);
          },
          std::move(here));
      return std::make_unique<Worker>(integrator, mutex, *sink, batch_size, window);
    });
  }
  void release(std::uint64_t state) override {
    access.call([&] { integrator.release(state); });
  }
  // Started: queued for the worker at once (a producer must not wait for this part's step).
  void provide(const std::vector<ChannelSample>& samples) override {
    access.call(
        [&] {
          for (const auto& s : samples) integrator.provide(s);
        },
        [&](Worker& w) { w.provide(samples); });
  }
  void provide_predictions(const std::vector<ChannelPrediction>& predictions) override {
    access.call([&] {
      for (const auto& p : predictions) integrator.provide_prediction(p);
    });
  }
  std::vector<double> apply_event(const Event& event) override {
    return access.call([&] { return integrator.apply_event(event); });
  }
  void schedule(const std::vector<ArrivingEvent>& events) override {
    access.call([&] { integrator.schedule(events); });
  }
  void change(const ModelChange& change) override {
    access.call([&] { integrator.change(change); });
  }
  RollbackResult rollback(std::uint64_t step) override {
    return access.call([&] { return integrator.rollback(step); });
  }
  void commit(std::uint64_t gvt) override {
    access.call([&] { integrator.commit(gvt); });
  }
  IntegratorStats stats() override {
    return access.call([&] { return integrator.stats(); });
  }

  // BatchSink: straight into the monitor's inbox (after the test delay, if any); the
  // routing sink in front of it provides the batch's samples to their consumers.
  void deliver(const StateBatch& batch) override {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    inbox.push({index, batch, nullptr});
  }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    inbox.push({index, StateBatch::empty_at(epoch, step), error, step});
  }
};

LocalDeployment::LocalDeployment(const DeploymentPlan& plan,
                                 const LocalDeploymentOptions& options) {
  for (std::size_t i = 0; i < plan.size(); ++i)
    parts_.push_back(std::make_unique<Part>(plan[i], i, inbox_, options, parts_));
}

LocalDeployment::LocalDeployment(const Scenario& scenario, const LocalDeploymentOptions& options,
                                 bool rollback_check)
    : LocalDeployment(chain_deployment(scenario, rollback_check), options) {}

LocalDeployment::~LocalDeployment() {
  // Every worker and every sender ends before any part goes: they provide to other parts.
  for (auto& p : parts_) p->access.stop();
  for (auto& p : parts_) p->sink.reset();
}

IntegratorPort& LocalDeployment::integrator(std::size_t i) {
  return *parts_.at(i);
}

std::vector<std::string> LocalDeployment::component_names() const {
  std::vector<std::string> names;
  for (const auto& p : parts_) names.insert(names.end(), {p->integrator.name(), p->system.name()});
  return names;
}

std::vector<ComponentReport> LocalDeployment::reports() {
  std::vector<ComponentReport> out;
  const long pid = static_cast<long>(getpid());
  for (auto& p : parts_) {
    // Under the lock: a worker updates both while it steps.
    const auto [integrator_totals, system_totals] =
        p->access.call([&] { return std::pair(p->integrator.totals(), p->system.totals()); });
    for (auto [name, role, totals, trace] :
         {std::tuple(p->integrator.name(), ComponentRole::integrator, integrator_totals,
                     &p->integrator.trace()),
          std::tuple(p->system.name(), ComponentRole::system, system_totals, &p->system.trace())})
      out.push_back({name,
                     role,
                     "local",
                     pid,
                     true,
                     totals,
                     -1,
                     trace->page(0, trace->recorded()),
                     trace->dropped(),
                     {}});
  }
  return out;
}

RunResult run_partitioned_sequential(const PartitionedScenario& s, const PartitionedPlan& plan,
                                     RunControl& control, const PartitionedWatchers& watchers) {
  const PartitionedPlan sequential = in_turn(plan);
  std::optional<LocalDeployment> deployment;
  try {
    deployment.emplace(partitioned_deployment(s, sequential));
  } catch (const Error& e) {
    RunResult r = describe_partitioned_run(s, SyncMethod::sequential, {});
    r.end_with(e);
    return r;
  }
  return run_partitions_in_turn(s, sequential, *deployment, control, watchers);
}

}  // namespace kausal
