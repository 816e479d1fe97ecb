#pragma once
// The System servant: SystemCore on the wire.
#include <functional>
#include <mutex>

#include "idl/component_servant.hpp"
#include "system/shipped_files.hpp"
#include "system/system_core.hpp"

namespace kausal {

class SystemServant final : public ComponentServant<POA_kausal::idl::System> {
 public:
  SystemServant(const std::string& name, OrbRuntime& orb);
  ~SystemServant() override { stop_feed(); }

  CORBA::ULong configure(const char* model, const idl::ParameterSeq& parameters) override;
  idl::ModelShape shape() override;
  idl::DoubleSeq* handle_event(const idl::Event& event, const idl::DoubleSeq& x) override;
  void change(const idl::ModelChange& change) override;

  // Partitioned models (docs/model.md §4).
  CORBA::ULong configure_partition(const idl::MemberSetupSeq& members,
                                   const idl::DirectLinkSeq& links,
                                   const idl::ConstantInputSeq& constants,
                                   const idl::HeldInputSeq& held) override;
  idl::DoubleSeq* derivative(CORBA::Double t, const idl::DoubleSeq& x,
                             const idl::DoubleSeq& u) override;
  idl::DoubleSeq* output(CORBA::Double t, const idl::DoubleSeq& x) override;
  idl::DoubleSeq* jacobian(CORBA::Double t, const idl::DoubleSeq& x,
                           const idl::DoubleSeq& u) override;
  idl::DoubleSeq* indicators(CORBA::Double t, const idl::DoubleSeq& x,
                             const idl::DoubleSeq& u) override;
  idl::DoubleSeq* on_crossing(CORBA::ULong indicator, CORBA::Double t,
                              const idl::DoubleSeq& x) override;
  idl::DoubleSeq* completed_step(CORBA::Double t, const idl::DoubleSeq& x) override;
  idl::DoubleSeq* step(CORBA::Double t, CORBA::Double h, const idl::DoubleSeq& x,
                       const idl::DoubleSeq& u, const idl::DoubleSeq& du) override;
  idl::OctetSeq* save_internal() override;
  void restore_internal(const idl::OctetSeq& bytes) override;

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return core_.trace(); }

 private:
  // x as the model leaves it after `change` (on_crossing, completed_step), under the lock;
  // ModelError naming `call` for an x of the wrong size.
  idl::DoubleSeq* changed_state(const char* call, const idl::DoubleSeq& x,
                                const std::function<void(VectorOut)>& change);

  std::mutex mutex_;                  // omniORB may dispatch from several connection threads
  const bool authenticated_callers_;  // TLS: it may take FMUs sent as bytes
  ShippedFiles shipped_;  // FMUs and model libraries its monitor sent as bytes (outlive the model)
  SystemCore core_;
};

}  // namespace kausal
