#pragma once
// TEMPORARY stub until the numerics branch lands (same interface).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include "system/model.hpp"
#include "system/state_block.hpp"
namespace kausal {
enum class OdeMethod { euler, rk3, rk4, ab3, backward_euler, dre0, pdre0 };
OdeMethod parse_ode_method(std::string_view name, const std::string& where);
std::string_view ode_method_name(OdeMethod m);
bool uses_jacobian(OdeMethod m);
class RightHandSide {
 public:
  virtual ~RightHandSide() = default;
  virtual void derivative(double t, VectorView x, VectorOut dx) = 0;
  virtual void jacobian(double t, VectorView x, MatrixOut J) = 0;
};
struct StepperMemory { std::vector<Vector> past; int started = 0; };
class OdeStepper {
 public:
  OdeStepper(OdeMethod method, std::size_t state_size, std::vector<StateBlock> blocks = {});
  void step(RightHandSide& f, double t, double h, Vector& x);
  StepperMemory memory() const;
  void restore(const StepperMemory& m);
  void restart();
  OdeMethod method() const;
  std::uint64_t derivative_calls() const;
  std::uint64_t jacobian_calls() const;
 private:
  OdeMethod method_; Vector k_; std::uint64_t calls_ = 0;
};
}
