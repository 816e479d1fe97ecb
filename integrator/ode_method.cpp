// TEMPORARY stub (euler only) until the numerics branch lands.
#include "integrator/ode_method.hpp"
#include "system/errors.hpp"
namespace kausal {
OdeMethod parse_ode_method(std::string_view name, const std::string& where) {
  if (name == "euler") return OdeMethod::euler;
  if (name == "dre0") return OdeMethod::dre0;
  if (name == "rk4") return OdeMethod::rk4;
  throw InputError(where + "unknown integrator '" + std::string(name) + "'");
}
std::string_view ode_method_name(OdeMethod) { return "euler"; }
bool uses_jacobian(OdeMethod) { return false; }
OdeStepper::OdeStepper(OdeMethod method, std::size_t n, std::vector<StateBlock>) : method_(method), k_(Vector::Zero(static_cast<Eigen::Index>(n))) {}
void OdeStepper::step(RightHandSide& f, double t, double h, Vector& x) { f.derivative(t, x, k_); ++calls_; x = x + h * k_; }
StepperMemory OdeStepper::memory() const { return {}; }
void OdeStepper::restore(const StepperMemory&) {}
void OdeStepper::restart() {}
OdeMethod OdeStepper::method() const { return method_; }
std::uint64_t OdeStepper::derivative_calls() const { return calls_; }
std::uint64_t OdeStepper::jacobian_calls() const { return 0; }
}
