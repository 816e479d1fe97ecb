#pragma once
// The monitor's side of a run's lease (idl::Lease): alive while the monitor holds it.
#include "idl/kausal.hh"

namespace kausal {

class LeaseServant : public POA_kausal::idl::Lease {
 public:
  void ping() override {}
};

}  // namespace kausal
