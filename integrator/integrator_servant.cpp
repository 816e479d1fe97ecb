#include "integrator/integrator_servant.hpp"

#include <cstdlib>
#include <thread>

#include "idl/wire_errors.hpp"

namespace kausal {
namespace {

// The System of this Integrator, in another process.
class CorbaSystemLink final : public SystemLink {
 public:
  CorbaSystemLink(idl::System_ptr system, std::string name)
      : system_(idl::System::_duplicate(system)), name_(std::move(name)) {}

  void calc(double t, std::span<const double> x, std::span<double> dx) override {
    const idl::DoubleSeq in = to_seq(x);
    idl::DoubleSeq_var out = call_peer(name_, [&] { return system_->calc(t, in); });
    if (out->length() != dx.size())
      throw ProtocolError(name_, "calc returned " + std::to_string(out->length()) +
                                     " values for a state of " + std::to_string(dx.size()));
    std::copy(out->get_buffer(), out->get_buffer() + out->length(), dx.begin());
  }

  void handle_event(const Event& event, std::span<double> x) override {
    const idl::DoubleSeq in = to_seq(x);
    const idl::Event e = to_idl(event);
    idl::DoubleSeq_var out = call_peer(name_, [&] { return system_->handle_event(e, in); });
    if (out->length() != x.size())
      throw ProtocolError(name_, "handle_event changed the state size");
    std::copy(out->get_buffer(), out->get_buffer() + out->length(), x.begin());
  }

 private:
  idl::System_var system_;
  std::string name_;
};

// The monitor's inbox, reached over CORBA. KAUSAL_TEST_DELIVERY_DELAY_MS holds every batch
// that long before sending it: a test hook that lets rollbacks overtake batches on their way.
class CorbaBatchSink final : public BatchSink {
 public:
  CorbaBatchSink(idl::StateSink_ptr sink, std::string component)
      : sink_(idl::StateSink::_duplicate(sink)), component_(std::move(component)) {
    if (const char* ms = std::getenv("KAUSAL_TEST_DELIVERY_DELAY_MS"))
      delay_ = std::chrono::milliseconds(std::strtol(ms, nullptr, 10));
  }
  void deliver(const StateBatch& batch) override {
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const idl::StateBatch b = to_idl(batch);
    call_peer("monitor", [&] { sink_->deliver(component_.c_str(), b); });
  }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    const ReportedFailure r = describe_failure(component_, error);
    call_peer("monitor", [&] {
      sink_->fail(component_.c_str(), epoch, step, r.kind.c_str(), r.component.c_str(),
                  r.reason.c_str());
    });
  }

 private:
  idl::StateSink_var sink_;
  std::string component_;
  std::chrono::milliseconds delay_{0};
};

}  // namespace

IntegratorServant::IntegratorServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "integrator", orb) {}

IntegratorServant::~IntegratorServant() {
  stop_feed();
}

kausal::Integrator& IntegratorServant::initialised() {
  if (!integrator_) throw ProtocolError(name(), "used before initialise()");
  return *integrator_;
}

template <typename F>
auto IntegratorServant::with_integrator(F&& f) -> decltype(f(std::declval<kausal::Integrator&>())) {
  if (RunAhead* r = active_.load()) return r->exclusive([&] { return f(*integrator_); });
  std::lock_guard lock(mutex_);
  return f(initialised());
}

void IntegratorServant::initialise(const idl::IntegratorSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    if (active_.load()) throw ProtocolError(name(), "initialise() while running ahead");
    if (CORBA::is_nil(setup.sys)) throw ModelError(name(), "no System given");
    idl::ComponentInfo_var peer =
        call_peer(name() + "'s System", [&] { return setup.sys->info(); });
    auto link = std::make_unique<CorbaSystemLink>(setup.sys.in(), peer->name.in());
    IntegratorConfig config{name(),
                            parse_method(setup.method.in(), name() + ": "),
                            setup.t0,
                            setup.h,
                            to_vector(setup.x0),
                            setup.rollback_check != 0};
    stop_feed();  // it reads the trace of the Integrator about to be replaced
    trace_ = &no_trace_;
    integrator_ = std::make_unique<kausal::Integrator>(std::move(config), *link);
    link_ = std::move(link);
    trace_ = &integrator_->trace();
  });
}

idl::StateBatch* IntegratorServant::advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) {
  return serve(name(), [&] {
    if (active_.load()) throw ProtocolError(name(), "advance() while running ahead");
    std::lock_guard lock(mutex_);
    return new idl::StateBatch(to_idl(initialised().advance(guarantee, gvt)));
  });
}

idl::DoubleSeq* IntegratorServant::apply_event(const idl::Event& event) {
  return serve(name(), [&] {
    const Event e = from_idl(event);
    return new idl::DoubleSeq(to_seq(with_integrator([&](auto& i) { return i.apply_event(e); })));
  });
}

idl::StateBatch* IntegratorServant::states_since(CORBA::ULongLong from_step) {
  return serve(name(), [&] {
    return new idl::StateBatch(
        to_idl(with_integrator([&](auto& i) { return i.states_since(from_step); })));
  });
}

void IntegratorServant::run_ahead(idl::StateSink_ptr sink, CORBA::ULong batch_size,
                                  CORBA::ULongLong window, CORBA::ULongLong last_step) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    if (active_.load()) throw ProtocolError(name(), "run_ahead() twice");
    if (CORBA::is_nil(sink)) throw ProtocolError(name(), "run_ahead() without a sink");
    kausal::Integrator& integrator = initialised();
    sink_ = std::make_unique<CorbaBatchSink>(sink, name());
    running_ =
        std::make_unique<RunAhead>(integrator, mutex_, *sink_, batch_size, window, last_step);
    active_.store(running_.get());
  });
}

idl::RollbackResult IntegratorServant::rollback(CORBA::ULongLong step, const idl::DoubleSeq& x) {
  return serve(name(), [&] {
    const auto state = to_vector(x);
    RunAhead* r_ahead = active_.load();
    const RollbackResult r =
        r_ahead ? r_ahead->rollback(step, state)
                : with_integrator([&](auto& i) { return i.rollback(step, state); });
    return idl::RollbackResult{r.epoch, r.discarded_steps};
  });
}

void IntegratorServant::commit(CORBA::ULongLong gvt) {
  serve(name(), [&] {
    if (RunAhead* r = active_.load()) return r->commit(gvt);
    with_integrator([&](auto& i) { i.commit(gvt); });
  });
}

ActivityTotals IntegratorServant::totals() {
  if (RunAhead* r = active_.load()) return r->exclusive([&] { return integrator_->totals(); });
  std::lock_guard lock(mutex_);  // asked before initialise() is legal: nothing done yet
  return integrator_ ? integrator_->totals() : ActivityTotals{};
}

}  // namespace kausal
