#include "monitor/sync/local_deployment.hpp"

#include <unistd.h>

#include <mutex>
#include <thread>

#include "integrator/run_ahead.hpp"
#include "system/errors.hpp"

namespace kausal {

std::string system_name(std::size_t i) {
  return "system-" + std::to_string(i + 1);
}
std::string integrator_name(std::size_t i) {
  return "integrator-" + std::to_string(i + 1);
}

namespace {

IntegratorConfig config(const Scenario& s, std::size_t i, const LocalDeploymentOptions& o) {
  const PendulumState& x0 = o.start ? o.start->states.at(i) : s.initial[i];
  return {
      integrator_name(i),         s.method, s.t0(), s.h, {x0.begin(), x0.end()}, o.rollback_check,
      o.start ? o.start->step : 0};
}

}  // namespace

struct LocalDeployment::Pendulum final : IntegratorPort, BatchSink {
  SystemCore system;
  LocalModelLink link;
  Integrator integrator;
  std::mutex mutex;
  BatchInbox& inbox;
  std::size_t index;
  std::chrono::milliseconds delay;
  std::unique_ptr<RunAhead> running;  // last: its worker must end before the rest goes

  Pendulum(const Scenario& s, std::size_t i, BatchInbox& box, const LocalDeploymentOptions& o)
      : system(system_name(i)),
        link(system),
        integrator(config(s, i, o), link),
        inbox(box),
        index(i),
        delay(o.delivery_delay) {
    system.configure("pendulum", to_parameters(s.chain.pendulums[i]));
  }

  // Every call reaches the Integrator under its lock; while it runs ahead, through the
  // worker's exclusive() so that the worker pauses at a step boundary.
  template <typename F>
  auto locked(F&& f) -> decltype(f()) {
    if (running) return running->exclusive(f);
    std::lock_guard lock(mutex);
    return f();
  }

  const std::string& name() const override { return integrator.name(); }
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    if (running) throw ProtocolError(name(), "advance() while running ahead");
    std::lock_guard lock(mutex);
    return integrator.advance(guarantee, gvt);
  }
  std::vector<double> apply_event(const Event& event) override {
    return locked([&] { return integrator.apply_event(event); });
  }
  void run_ahead(std::size_t batch_size, std::uint64_t window, std::uint64_t last_step) override {
    if (running) throw ProtocolError(name(), "run_ahead() twice");
    running = std::make_unique<RunAhead>(integrator, mutex, *this, batch_size, window, last_step);
  }
  RollbackResult rollback(std::uint64_t step) override {
    if (running) return running->rollback(step);
    std::lock_guard lock(mutex);
    return integrator.rollback(step);
  }
  void commit(std::uint64_t gvt) override {
    if (running) return running->commit(gvt);
    std::lock_guard lock(mutex);
    integrator.commit(gvt);
  }

  // BatchSink: straight into the monitor's inbox (after the test delay, if any).
  void deliver(const StateBatch& batch) override {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    inbox.push({index, batch, nullptr});
  }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    inbox.push({index, StateBatch{epoch, step, 0, {}}, error, step});
  }
};

LocalDeployment::LocalDeployment(const Scenario& s, const LocalDeploymentOptions& options) {
  for (std::size_t i = 0; i < s.pendulums(); ++i)
    parts_.push_back(std::make_unique<Pendulum>(s, i, inbox_, options));
}

LocalDeployment::~LocalDeployment() = default;

IntegratorPort& LocalDeployment::integrator(std::size_t i) {
  return *parts_.at(i);
}

std::vector<ComponentReport> LocalDeployment::reports() {
  std::vector<ComponentReport> out;
  const long pid = static_cast<long>(getpid());
  for (auto& p : parts_) {
    // Under the lock: a running-ahead worker updates both while it steps.
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
