#include "monitor/deploy/process_deployment.hpp"

#include <map>

#include "idl/convert.hpp"
#include "idl/wire_errors.hpp"
#include "monitor/deploy/state_sink_servant.hpp"
#include "monitor/sync/local_deployment.hpp"

namespace kausal {
namespace {

// The Integrator of a resumed run counts its steps from the resume point (IntegratorSetup
// has no first step: the interface stays unchanged), so the port translates: step k of the
// run is the Integrator's step k - first. A call that fails while the heartbeat has found a
// stopped component fails with the heartbeat's verdict.
class CorbaIntegratorPort final : public IntegratorPort {
 public:
  CorbaIntegratorPort(std::string name, idl::Integrator_ptr ref, idl::StateSink_ptr sink,
                      std::uint64_t first, const Heartbeat* heartbeat)
      : name_(std::move(name)),
        ref_(idl::Integrator::_duplicate(ref)),
        sink_(idl::StateSink::_duplicate(sink)),
        first_(first),
        heartbeat_(heartbeat) {}
  const std::string& name() const override { return name_; }
  // One call computes for a bounded time (system/request_limits.hpp) and answers with the
  // steps it took: a long grant takes several calls, each well within the call timeout.
  StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) override {
    StateBatch all = advance_once(guarantee, gvt);
    for (std::uint64_t got = all.count(); got > 0 && all.first_step + all.count() <= guarantee;) {
      StateBatch more = advance_once(guarantee, gvt);
      got = more.count();
      if (got > 0 && (more.first_step != all.first_step + all.count() || more.epoch != all.epoch ||
                      more.state_size != all.state_size))
        throw ProtocolError(name_, "answered a continued advance with states from step " +
                                       std::to_string(more.first_step) + ", expected step " +
                                       std::to_string(all.first_step + all.count()));
      all.states.insert(all.states.end(), more.states.begin(), more.states.end());
    }
    return all;
  }
  std::vector<double> apply_event(const Event& event) override {
    Event local = event;
    local.step -= first_;
    const idl::Event e = to_idl(local);
    idl::DoubleSeq_var x = call([&] { return ref_->apply_event(e); });
    return to_vector(x.in());
  }
  void run_ahead(std::size_t batch_size, std::uint64_t window, std::uint64_t last_step) override {
    call([&] {
      ref_->run_ahead(sink_, static_cast<CORBA::ULong>(batch_size), window, last_step - first_);
    });
  }
  RollbackResult rollback(std::uint64_t step) override {
    const idl::RollbackResult r = call([&] { return ref_->rollback(step - first_); });
    return {r.epoch, r.discarded_steps, r.wasted_derivative_calls};
  }
  void commit(std::uint64_t gvt) override {
    call([&] { ref_->commit(gvt - first_); });
  }

 private:
  StateBatch advance_once(std::uint64_t guarantee, std::uint64_t gvt) {
    idl::StateBatch_var b = call([&] { return ref_->advance(guarantee - first_, gvt - first_); });
    StateBatch batch = from_idl(b.in());
    batch.first_step += first_;
    return batch;
  }

  template <typename F>
  auto call(F&& f) -> decltype(f()) {
    return Heartbeat::call(heartbeat_, name_, std::forward<F>(f));
  }

  std::string name_;
  idl::Integrator_var ref_;
  idl::StateSink_var sink_;
  std::uint64_t first_;
  const Heartbeat* heartbeat_;  // null in the single layout
};

}  // namespace

ProcessDeployment::ProcessDeployment(const Scenario& scenario, OrbRuntime& orb,
                                     const LaunchOptions& options, const ChainStart* start)
    : orb_(orb), components_(orb, options.layout), start_(start) {
  try {
    std::vector<ComponentPair> pairs;
    for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
      const int cpu = options.cpus.empty() ? -1 : options.cpus[i % options.cpus.size()];
      pairs.push_back(
          {system_name(i), integrator_name(i), "pendulum-" + std::to_string(i + 1), cpu});
    }
    components_.start(pairs, options);
    heartbeat_ = watch_components(components_, options,
                                  [inbox = inbox_](std::exception_ptr e) { inbox->fail(e); });
    set_up(scenario, options);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

ProcessDeployment::~ProcessDeployment() {
  release();
}

void ProcessDeployment::release() {
  heartbeat_.reset();
  components_.release();
  if (sink_servant_) orb_.deactivate(sink_servant_);
  sink_servant_ = nullptr;
}

void ProcessDeployment::set_up(const Scenario& scenario, const LaunchOptions& options) {
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < scenario.pendulums(); ++i) index_of[integrator_name(i)] = i;
  const std::uint64_t first = start_ ? start_->step : 0;
  auto* sink = new StateSinkServant(inbox_, std::move(index_of), first);
  const std::string sink_ior = orb_.activate(sink);
  sink->_remove_ref();  // the POA owns it now
  sink_servant_ = sink;
  CORBA::Object_var sink_obj = orb_.resolve(sink_ior);
  sink_ = idl::StateSink::_narrow(sink_obj);

  for (std::size_t i = 0; i < scenario.pendulums(); ++i) {
    LaunchedComponent& sys = components_.system(i);
    LaunchedComponent& integ = components_.integrator(i);
    idl::System_var system = narrow<idl::System>(sys.name, sys.ref);
    const idl::ParameterSeq params = to_idl(to_parameters(scenario.chain.pendulums[i]));
    call_peer(sys.name, [&] { return system->configure("pendulum", params); });

    idl::Integrator_var integrator = narrow<idl::Integrator>(integ.name, integ.ref);
    idl::IntegratorSetup setup;
    setup.sys = idl::System::_duplicate(system.in());
    setup.method = std::string(ode_method_name(scenario.method)).c_str();
    // Resumed: the Integrator's step 0 is the run's step `first` (see CorbaIntegratorPort).
    // Its t is then t_first + k·h, not t0 + (first + k)·h: equal up to rounding, and the
    // pendulum's equations do not depend on t (the digest test of resume checks it).
    setup.t0 = step_time(scenario.t0(), scenario.h, first);
    setup.h = scenario.h;
    setup.x0 = to_seq(start_ ? start_->states.at(i) : scenario.initial[i]);
    setup.rollback_check = options.rollback_check;
    call_peer(integ.name, [&] { integrator->initialise(setup); });
    ports_.push_back(std::make_unique<CorbaIntegratorPort>(integ.name, integrator.in(), sink_.in(),
                                                           first, heartbeat_.get()));
  }
}

std::vector<ComponentReport> ProcessDeployment::reports() {
  return components_.reports();
}

void ProcessDeployment::observe(idl::Animation_ptr view) {
  components_.observe(view);
}

std::vector<std::string> ProcessDeployment::component_names() const {
  return components_.names();
}

void ProcessDeployment::shutdown() {
  heartbeat_.reset();  // components about to exit are no failure
  components_.shutdown();
}

std::string ProcessDeployment::post_mortem() {
  return components_.post_mortem();
}

}  // namespace kausal
