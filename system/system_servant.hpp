#pragma once
// The System servant: SystemCore on the wire.
#include <mutex>

#include "idl/component_servant.hpp"
#include "system/system_core.hpp"

namespace kausal {

class SystemServant final : public ComponentServant<POA_kausal::idl::System> {
 public:
  SystemServant(const std::string& name, OrbRuntime& orb);
  ~SystemServant() override { stop_feed(); }

  CORBA::ULong configure(const char* model, const idl::ParameterSeq& parameters) override;
  idl::DoubleSeq* calc(CORBA::Double t, const idl::DoubleSeq& x) override;
  idl::DoubleSeq* handle_event(const idl::Event& event, const idl::DoubleSeq& x) override;

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return core_.trace(); }

 private:
  std::mutex mutex_;  // omniORB may dispatch from several connection threads
  SystemCore core_;
};

}  // namespace kausal
