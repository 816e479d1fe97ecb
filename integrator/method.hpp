#pragma once
// The integration methods a partition can be stepped with (integrator/ode_method.hpp
// implements them; stepper.hpp holds Euler and RK4 as templates).
#include <string>
#include <string_view>

namespace kausal {

// co_simulation: the model steps itself (Model::step, a co-simulation FMU's fmi2DoStep).
enum class OdeMethod { euler, rk3, rk4, ab3, backward_euler, dre0, pdre0, co_simulation };

// Throws InputError "<where>unknown integrator 'x' (known: euler, rk3, rk4, ab3,
// backward_euler, dre0, pdre0, co-simulation)".
OdeMethod parse_ode_method(std::string_view name, const std::string& where);
std::string_view ode_method_name(OdeMethod m);
bool uses_jacobian(OdeMethod m);  // backward_euler, dre0, pdre0

}  // namespace kausal
