#include "system/system_servant.hpp"

#include "idl/wire_errors.hpp"

namespace kausal {

SystemServant::SystemServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "system", orb), core_(name) {}

CORBA::ULong SystemServant::configure(const char* model, const idl::ParameterSeq& parameters) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return static_cast<CORBA::ULong>(core_.configure(model, from_idl(parameters)));
  });
}

idl::DoubleSeq* SystemServant::calc(CORBA::Double t, const idl::DoubleSeq& x) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const std::span<const double> in(x.get_buffer(), x.length());
    auto* dx = new idl::DoubleSeq(x.length());
    dx->length(x.length());
    try {
      core_.calc(t, in, std::span<double>(dx->get_buffer(), dx->length()));
    } catch (...) {
      delete dx;
      throw;
    }
    return dx;
  });
}

idl::DoubleSeq* SystemServant::handle_event(const idl::Event& event, const idl::DoubleSeq& x) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    auto state = to_vector(x);
    core_.handle_event(from_idl(event), state);
    return new idl::DoubleSeq(to_seq(state));
  });
}

ActivityTotals SystemServant::totals() {
  std::lock_guard lock(mutex_);
  return core_.totals();
}

}  // namespace kausal
