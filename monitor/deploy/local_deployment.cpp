#include "monitor/deploy/local_deployment.hpp"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "integrator/local_model_link.hpp"
#include "integrator/routing_sink.hpp"
#include "integrator/worker.hpp"
#include "system/errors.hpp"

namespace kausal {

struct LocalDeployment::Part final : IntegratorPort, BatchSink {
  SystemCore system;
  LocalModelLink link;
  Integrator integrator;
  std::mutex mutex;
  BatchInbox& inbox;
  std::size_t index;
  std::chrono::milliseconds delay;
  std::vector<Route> routes;
  std::vector<std::unique_ptr<Part>>& parts;  // the deployment's: the consumers of routes
  std::unique_ptr<RoutingSink> sink;          // once started
  std::atomic<Worker*> active{nullptr};       // worker, for callers outside the lock
  std::unique_ptr<Worker> worker;             // last: its thread must end before the rest goes

  Part(const PartitionPlan& plan, std::size_t i, BatchInbox& box, const LocalDeploymentOptions& o,
       std::vector<std::unique_ptr<Part>>& all)
      : system(plan.system),
        link(system),
        integrator(plan.config, link),  // (its constructor does not call the System yet)
        inbox(box),
        index(i),
        delay(o.delivery_delay),
        routes(plan.routes),
        parts(all) {
    configure(system, plan.recipe);
  }

  // Every call reaches the Integrator under its lock; once started, through the worker's
  // exclusive() so that the worker pauses at a step boundary and sees what the call did.
  // The worker is made and published under the lock: a call that finds none there runs
  // before the worker first looks for work (a producer may provide before start()).
  template <typename F>
  auto locked(F&& f) -> decltype(f()) {
    return locked(f, [&](Worker& w) { return w.exclusive(f); });
  }
  // f under the lock before start(); started, to_worker(worker) instead.
  template <typename F, typename G>
  auto locked(F&& f, G&& to_worker) -> decltype(f()) {
    if (Worker* w = active.load()) return to_worker(*w);
    std::unique_lock lock(mutex);
    if (Worker* w = active.load()) {
      lock.unlock();
      return to_worker(*w);
    }
    return f();
  }

  const std::string& name() const override { return integrator.name(); }
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    if (worker) throw ProtocolError(name(), "advance() once started");
    std::lock_guard lock(mutex);
    return integrator.advance(guarantee, gvt);
  }
  void start(std::size_t batch_size, std::uint64_t window, std::uint64_t released) override {
    std::lock_guard lock(mutex);  // producers may provide already
    if (worker) throw ProtocolError(name(), "start() twice");
    if (released != unreleased) integrator.release(released);
    sink = std::make_unique<RoutingSink>(
        *this, routes, [this](std::size_t consumer, const std::vector<ChannelSample>& samples) {
          parts.at(consumer)->provide(samples);
        });
    worker = std::make_unique<Worker>(integrator, mutex, *sink, batch_size, window);
    active.store(worker.get());
  }
  void release(std::uint64_t state) override {
    locked([&] { integrator.release(state); });
  }
  // Started: queued for the worker at once (a producer must not wait for this part's step).
  void provide(const std::vector<ChannelSample>& samples) override {
    locked(
        [&] {
          for (const auto& s : samples) integrator.provide(s);
        },
        [&](Worker& w) { w.provide(samples); });
  }
  void provide_predictions(const std::vector<ChannelPrediction>& predictions) override {
    locked([&] {
      for (const auto& p : predictions) integrator.provide_prediction(p);
    });
  }
  std::vector<double> apply_event(const Event& event) override {
    return locked([&] { return integrator.apply_event(event); });
  }
  void change(const ModelChange& change) override {
    locked([&] { integrator.change(change); });
  }
  RollbackResult rollback(std::uint64_t step) override {
    return locked([&] { return integrator.rollback(step); });
  }
  void commit(std::uint64_t gvt) override {
    locked([&] { integrator.commit(gvt); });
  }
  IntegratorStats stats() override {
    return locked([&] { return integrator.stats(); });
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
  for (auto& p : parts_)
    if (p->worker) p->worker->stop();
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
        p->locked([&] { return std::pair(p->integrator.totals(), p->system.totals()); });
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

}  // namespace kausal
