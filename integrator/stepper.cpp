#include "integrator/stepper.hpp"

#include "system/errors.hpp"

namespace kausal {

Method parse_method(std::string_view name, const std::string& where) {
  if (name == "euler") return Method::euler;
  if (name == "rk4") return Method::rk4;
  throw InputError(where + "unknown integrator '" + std::string(name) + "' (known: euler, rk4)");
}

std::string_view method_name(Method m) {
  return m == Method::euler ? "euler" : "rk4";
}

int calcs_per_step(Method m) {
  return m == Method::euler ? 1 : 4;
}

}  // namespace kausal
