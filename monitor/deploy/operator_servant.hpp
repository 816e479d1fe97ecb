#pragma once
// The monitor's Operator of a paced run, as idl::Operator (kausal inject, the animation's
// buttons, controllers in the loop). A refused action is idl::Refused with the reason.
#include "idl/call_gate.hpp"
#include "idl/convert.hpp"
#include "idl/kausal.hh"
#include "monitor/sync/operator.hpp"

namespace kausal {

class OperatorServant : public POA_kausal::idl::Operator {
 public:
  // (Qualified: inside this class, plain `Operator` names the CORBA skeleton base.)
  explicit OperatorServant(kausal::Operator& op) : op_(op) {}
  CORBA::ULongLong push(CORBA::ULong pendulum, CORBA::Double impulse) override {
    return refused_or([&] { return op_.push(pendulum, impulse); });
  }
  CORBA::ULongLong set(const char* target, CORBA::Double value) override {
    return refused_or([&] { return op_.set(target, value); });
  }
  CORBA::ULongLong send(const char* target, CORBA::Double value) override {
    return refused_or([&] { return op_.send(target, value); });
  }
  CORBA::ULongLong stop() override {
    return refused_or([&] { return op_.stop(); });
  }
  idl::Reading* read(const idl::StringSeq& names) override {
    return refused_or([&] {
      std::vector<std::string> asked;
      for (CORBA::ULong k = 0; k < names.length(); ++k) asked.emplace_back(names[k].in());
      const Readout::Reading r = op_.read(asked);
      return new idl::Reading{r.step, r.t, to_seq(r.values)};
    });
  }
  void pace(CORBA::Double factor) override {
    refused_or([&] { op_.pace(factor); });
  }
  // Before the operator goes: calls in progress end, later ones hear OBJECT_NOT_EXIST.
  void close() { gate_.close(); }

 private:
  // Every kausal::Error (and anything else) becomes Refused: the caller learns why, and the
  // run goes on.
  template <typename F>
  auto refused_or(F&& f) -> decltype(f()) {
    return gate_.pass([&]() -> decltype(f()) {
      try {
        return f();
      } catch (const std::exception& e) {
        throw idl::Refused(e.what());
      }
    });
  }

  kausal::Operator& op_;
  CallGate gate_;
};

}  // namespace kausal
