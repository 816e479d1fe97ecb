#pragma once
// How the Integrator of a partition reaches its System: directly in one process, or over
// CORBA. The calls of the model API (system/model.hpp), one round trip each.
#include "system/model.hpp"

namespace kausal {

class SubsystemLink {
 public:
  virtual ~SubsystemLink() = default;
  virtual void derivative(double t, VectorView x, VectorView u, VectorOut dx) = 0;
  virtual void output(double t, VectorView x, VectorOut y) = 0;
  virtual void jacobian(double t, VectorView x, VectorView u, MatrixOut J) = 0;
  virtual void indicators(double t, VectorView x, VectorView u, VectorOut g) = 0;
  virtual void on_crossing(std::size_t indicator, double t, VectorOut x) = 0;
};

}  // namespace kausal
