#pragma once
// The monitor's clock of a run paced from outside, as idl::Clock (kausal tick, HiL rigs).
#include "idl/call_gate.hpp"
#include "idl/kausal.hh"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

class ClockServant : public POA_kausal::idl::Clock {
 public:
  explicit ClockServant(StepClock& clock) : clock_(clock) {}
  CORBA::ULongLong tick() override {
    return gate_.pass([&] { return clock_.tick(); });
  }
  idl::ClockStatus status() override {
    const StepClock::Status s = gate_.pass([&] { return clock_.status(); });
    return {s.ticks, s.overruns, s.committed, s.last};
  }
  // Before the clock goes: calls in progress end, later ones hear OBJECT_NOT_EXIST.
  void close() { gate_.close(); }

 private:
  StepClock& clock_;
  CallGate gate_;
};

}  // namespace kausal
