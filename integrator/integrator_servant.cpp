#include "integrator/integrator_servant.hpp"

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

}  // namespace

IntegratorServant::IntegratorServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "integrator", orb) {}

IntegratorServant::~IntegratorServant() = default;

kausal::Integrator& IntegratorServant::initialised() {
  if (!integrator_) throw ProtocolError(name(), "used before initialise()");
  return *integrator_;
}

void IntegratorServant::initialise(const idl::IntegratorSetup& setup) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    if (CORBA::is_nil(setup.sys)) throw ModelError(name(), "no System given");
    idl::ComponentInfo_var peer =
        call_peer(name() + "'s System", [&] { return setup.sys->info(); });
    auto link = std::make_unique<CorbaSystemLink>(setup.sys.in(), peer->name.in());
    IntegratorConfig config{name(), parse_method(setup.method.in(), name() + ": "), setup.t0,
                            setup.h, to_vector(setup.x0)};
    integrator_ = std::make_unique<kausal::Integrator>(std::move(config), *link);
    link_ = std::move(link);
  });
}

idl::StateBatch* IntegratorServant::advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return new idl::StateBatch(to_idl(initialised().advance(guarantee, gvt)));
  });
}

idl::DoubleSeq* IntegratorServant::apply_event(const idl::Event& event) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return new idl::DoubleSeq(to_seq(initialised().apply_event(from_idl(event))));
  });
}

idl::StateBatch* IntegratorServant::states_since(CORBA::ULongLong from_step) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return new idl::StateBatch(to_idl(initialised().states_since(from_step)));
  });
}

CORBA::ULong IntegratorServant::rollback(CORBA::ULongLong step, const idl::DoubleSeq& x) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return static_cast<CORBA::ULong>(initialised().rollback(step, to_vector(x)));
  });
}

void IntegratorServant::commit(CORBA::ULongLong gvt) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    initialised().commit(gvt);
  });
}

ActivityTotals IntegratorServant::totals() {
  std::lock_guard lock(mutex_);
  return integrator_ ? integrator_->totals() : ActivityTotals{};
}

}  // namespace kausal
