#include "animation/operator_controls.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "idl/kausal.hh"

namespace kausal {

// The window's run controls over the ORB: the run's Operator, found in `file` when a control is
// first used (the run writes it as it starts). Every answer, refusal or failure is a line.
RunControls operator_controls(OrbRuntime& orb, const std::filesystem::path& file, ControlKind kind,
                              const std::string& example) {
  auto call = [&orb, file](const std::string& what, auto&& action) -> std::string {
    try {
      std::ifstream in(file);
      std::string ior;
      if (!in || !std::getline(in, ior) || ior.rfind("IOR:", 0) != 0)
        return what + ": the run serves no operator (not started yet, or ended)";
      CORBA::Object_var object = orb.resolve(ior);
      idl::Operator_var op = idl::Operator::_narrow(object);
      if (CORBA::is_nil(op)) return what + ": " + file.string() + " is not an operator";
      return what + action(op.in());
    } catch (const idl::Refused& refused) {
      return what + ": refused: " + refused.reason.in();
    } catch (const CORBA::Exception& e) {
      return what + ": the run cannot be reached (" + e._name() + ")";
    }
  };
  auto at_step = [](CORBA::ULongLong step) { return " at step " + std::to_string(step); };
  RunControls c;
  c.kind = kind;
  c.example = example;
  c.pace = [call](double f) {
    return call("pace", [f](idl::Operator_ptr op) {
      op->pace(f);
      std::ostringstream factor;  // "0.25×", not "0.250000×"
      factor << f;
      return f == 0 ? std::string(": as fast as possible") : ": " + factor.str() + "×";
    });
  };
  c.push = [call, at_step](std::uint64_t pendulum, double impulse) {
    return call("push " + std::to_string(pendulum), [&](idl::Operator_ptr op) {
      return at_step(op->push(static_cast<CORBA::ULong>(pendulum), impulse));
    });
  };
  c.set = [call, at_step](const std::string& target, double value) {
    return call("set " + target,
                [&](idl::Operator_ptr op) { return at_step(op->set(target.c_str(), value)); });
  };
  c.send = [call, at_step](const std::string& target, double value) {
    return call("send " + target,
                [&](idl::Operator_ptr op) { return at_step(op->send(target.c_str(), value)); });
  };
  c.stop = [call, at_step] {
    return call("stop", [&](idl::Operator_ptr op) { return at_step(op->stop()); });
  };
  return c;
}

}  // namespace kausal
