#pragma once
// The monitor's clock of a run paced from outside, as idl::Clock (kausal tick, HiL rigs).
#include "idl/kausal.hh"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

class ClockServant : public POA_kausal::idl::Clock {
 public:
  explicit ClockServant(StepClock& clock) : clock_(clock) {}
  CORBA::ULongLong tick() override { return clock_.tick(); }
  idl::ClockStatus status() override {
    const StepClock::Status s = clock_.status();
    return {s.ticks, s.overruns, s.committed, s.last};
  }

 private:
  StepClock& clock_;
};

}  // namespace kausal
