#pragma once
// The integration methods a partition can be stepped with (integrator/ode_method.hpp
// implements them; stepper.hpp holds Euler and RK4 as templates).
#include <cstddef>
#include <string>
#include <string_view>

namespace kausal {

// The Adams families (integrator/adams.hpp), each of order k = 1..4: abK Adams–Bashforth,
// amK Adams–Moulton (am1 is backward Euler's formula, am2 the trapezoidal rule), abmK the
// predictor–corrector pair in PECE mode and abmK_pec2e / abmK_pec3e in P(EC)^M E mode.
// dre0 / pdre0 the exponential method with the inhomogeneity held over the step, dre1 / pdre1
// with it a ramp through its last two values (docs/model.md §4).
// combined: RK4, or backward Euler where the step's Jacobian says RK4 could not keep it
// stable, judged at every step (the hardware-in-the-loop texts' combined solver).
// rk4_substeps: RK4 in as many equal sub-steps as the step's Jacobian says keep it stable,
// judged at every step (the hardware-in-the-loop texts' step-size control within a fixed
// frame).
// co_simulation: the model steps itself (Model::step, a co-simulation FMU's fmi2DoStep).
enum class OdeMethod {
  euler,
  rk3,
  rk4,
  ab1,
  ab2,
  ab3,
  ab4,
  am1,
  am2,
  am3,
  am4,
  abm1,
  abm2,
  abm3,
  abm4,
  abm1_pec2e,
  abm2_pec2e,
  abm3_pec2e,
  abm4_pec2e,
  abm1_pec3e,
  abm2_pec3e,
  abm3_pec3e,
  abm4_pec3e,
  backward_euler,
  dre0,
  pdre0,
  dre1,
  pdre1,
  combined,
  rk4_substeps,
  co_simulation
};

// Throws InputError "<where>unknown integrator 'x' (known: euler, rk3, rk4, ab1, ...)".
OdeMethod parse_ode_method(std::string_view name, const std::string& where);
std::string_view ode_method_name(OdeMethod m);
bool uses_jacobian(OdeMethod m);   // backward_euler, Adams–Moulton, the exponential methods
bool is_exponential(OdeMethod m);  // dre0, pdre0, dre1, pdre1
bool uses_newton(OdeMethod m);     // backward_euler and the Adams–Moulton methods
// The vectors of earlier steps the method keeps with the state (StepperMemory::past): the
// Adams methods' derivatives, dre1's derivative and state at the last step's start; 0 for
// one-step methods, at most max_history_length (ab4, abm4).
std::size_t history_length(OdeMethod m);
inline constexpr std::size_t max_history_length = 3;
inline bool is_multistep(OdeMethod m) {
  return history_length(m) > 0;
}

}  // namespace kausal
