#include "system/system_servant.hpp"

#include <memory>

#include "idl/composite_convert.hpp"
#include "idl/wire_errors.hpp"

namespace kausal {
namespace {

Eigen::Map<const Vector> view_of(const idl::DoubleSeq& s) {
  return {s.get_buffer(), static_cast<Eigen::Index>(s.length())};
}

// du as |u| rows, one column an order; ModelError for values that are not whole orders of u.
Eigen::Map<const Matrix> derivatives_of(const std::string& component, const idl::DoubleSeq& u,
                                        const idl::DoubleSeq& du) {
  const CORBA::ULong rows = u.length();
  if (rows == 0 ? du.length() != 0 : du.length() % rows != 0)
    throw ModelError(component, "step: " + std::to_string(du.length()) +
                                    " input derivatives are not whole orders of " +
                                    std::to_string(rows) + " inputs");
  const CORBA::ULong cols = rows == 0 ? 0 : du.length() / rows;
  return {du.get_buffer(), static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols)};
}

// A reply of n values that `fill` writes (a VectorOut over the reply's own buffer).
template <typename Fill>
idl::DoubleSeq* reply_of(std::size_t n, Fill&& fill) {
  auto out = std::make_unique<idl::DoubleSeq>(wire_size(n));
  out->length(wire_size(n));
  Eigen::Map<Vector> y(out->get_buffer(), static_cast<Eigen::Index>(n));
  fill(y);
  return out.release();
}

}  // namespace

SystemServant::SystemServant(const std::string& name, OrbRuntime& orb)
    : ComponentServant(name, "system", orb),
      authenticated_callers_(orb.callers_authenticated()),
      core_(name) {}

CORBA::ULong SystemServant::configure(const char* model, const idl::ParameterSeq& parameters) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return static_cast<CORBA::ULong>(core_.configure(model, from_idl(parameters)));
  });
}

idl::ModelShape SystemServant::shape() {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const Model& m = core_.model();
    return idl::ModelShape{wire_size(m.state_size()), wire_size(m.input_size()),
                           wire_size(m.output_size()), wire_size(m.indicator_count())};
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

void SystemServant::change(const idl::ModelChange& change) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    core_.change(from_idl(change));
  });
}

CORBA::ULong SystemServant::configure_partition(const idl::MemberSetupSeq& members,
                                                const idl::DirectLinkSeq& links,
                                                const idl::ConstantInputSeq& constants,
                                                const idl::HeldInputSeq& held) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    CompositeRecipe recipe = from_idl(members, links, constants, held);
    shipped_.place(name(), recipe, authenticated_callers_);
    auto model = build_composite(name(), recipe);
    return static_cast<CORBA::ULong>(core_.configure(std::move(model)));
  });
}

// The core checks x and u (sizes, finiteness) before the model sees them; the reply sizes
// come from the configured model.
idl::DoubleSeq* SystemServant::derivative(CORBA::Double t, const idl::DoubleSeq& x,
                                          const idl::DoubleSeq& u) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return reply_of(core_.model().state_size(),
                    [&](VectorOut dx) { core_.derivative(t, view_of(x), view_of(u), dx); });
  });
}

idl::DoubleSeq* SystemServant::output(CORBA::Double t, const idl::DoubleSeq& x) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return reply_of(core_.model().output_size(),
                    [&](VectorOut y) { core_.output(t, view_of(x), y); });
  });
}

idl::DoubleSeq* SystemServant::jacobian(CORBA::Double t, const idl::DoubleSeq& x,
                                        const idl::DoubleSeq& u) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const auto n = static_cast<Eigen::Index>(core_.model().state_size());
    Matrix J(n, n);
    core_.jacobian(t, view_of(x), view_of(u), J);
    return reply_of(static_cast<std::size_t>(n * n), [&](VectorOut out) {
      for (Eigen::Index r = 0; r < n; ++r) out.segment(r * n, n) = J.row(r).transpose();
    });
  });
}

idl::DoubleSeq* SystemServant::indicators(CORBA::Double t, const idl::DoubleSeq& x,
                                          const idl::DoubleSeq& u) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return reply_of(core_.model().indicator_count(),
                    [&](VectorOut g) { core_.indicators(t, view_of(x), view_of(u), g); });
  });
}

idl::DoubleSeq* SystemServant::on_crossing(CORBA::ULong indicator, CORBA::Double t,
                                           const idl::DoubleSeq& x) {
  return changed_state("on_crossing", x,
                       [&](VectorOut state) { core_.on_crossing(indicator, t, state); });
}

idl::DoubleSeq* SystemServant::completed_step(CORBA::Double t, const idl::DoubleSeq& x) {
  return changed_state("completed_step", x,
                       [&](VectorOut state) { core_.completed_step(t, state); });
}

// The model writes into x: its size is checked before (finiteness after, by the core).
idl::DoubleSeq* SystemServant::changed_state(const char* call, const idl::DoubleSeq& x,
                                             const std::function<void(VectorOut)>& change) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const std::size_t n = core_.model().state_size();
    if (x.length() != n) {
      std::string reason = std::string(call) + ": x has ";
      reason += std::to_string(x.length()) + " values, the model's state has " + std::to_string(n);
      throw ModelError(name(), reason);
    }
    return reply_of(n, [&](VectorOut state) {
      state = view_of(x);
      change(state);
    });
  });
}

idl::DoubleSeq* SystemServant::step(CORBA::Double t, CORBA::Double h, const idl::DoubleSeq& x,
                                    const idl::DoubleSeq& u, const idl::DoubleSeq& du) {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    const std::size_t n = core_.model().state_size();
    if (x.length() != n) {
      std::string reason = "step: x has ";
      reason += std::to_string(x.length()) + " values, the model's state has " + std::to_string(n);
      throw ModelError(name(), reason);
    }
    return reply_of(n, [&](VectorOut state) {
      state = view_of(x);
      core_.step(t, h, view_of(u), derivatives_of(name(), u, du), state);
    });
  });
}

idl::OctetSeq* SystemServant::save_internal() {
  return serve(name(), [&] {
    std::lock_guard lock(mutex_);
    return new idl::OctetSeq(to_octets(core_.save_internal()));
  });
}

void SystemServant::restore_internal(const idl::OctetSeq& bytes) {
  serve(name(), [&] {
    std::lock_guard lock(mutex_);
    core_.restore_internal({bytes.get_buffer(), bytes.length()});
  });
}

ActivityTotals SystemServant::totals() {
  std::lock_guard lock(mutex_);
  return core_.totals();
}

}  // namespace kausal
