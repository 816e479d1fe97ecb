#pragma once
// The Integrator servant: the plain Integrator on the wire, calling its System over CORBA.
#include <memory>
#include <mutex>

#include "idl/component_servant.hpp"
#include "integrator/integrator.hpp"

namespace kausal {

class IntegratorServant final : public ComponentServant<POA_kausal::idl::Integrator> {
 public:
  IntegratorServant(const std::string& name, OrbRuntime& orb);
  ~IntegratorServant() override;

  void initialise(const idl::IntegratorSetup& setup) override;
  idl::StateBatch* advance(CORBA::ULongLong guarantee, CORBA::ULongLong gvt) override;
  idl::DoubleSeq* apply_event(const idl::Event& event) override;
  idl::StateBatch* states_since(CORBA::ULongLong from_step) override;
  CORBA::ULong rollback(CORBA::ULongLong step, const idl::DoubleSeq& x) override;
  void commit(CORBA::ULongLong gvt) override;

 protected:
  ActivityTotals totals() override;

 private:
  // (Qualified: inside this class, plain `Integrator` names the CORBA skeleton base.)
  kausal::Integrator& initialised();

  std::mutex mutex_;
  std::unique_ptr<SystemLink> link_;
  std::unique_ptr<kausal::Integrator> integrator_;
};

}  // namespace kausal
