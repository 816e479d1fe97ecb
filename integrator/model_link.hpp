#pragma once
// How an Integrator reaches its System, directly in one process or over CORBA: the calls of
// the model API (system/model.hpp), one round trip each. Every model kind goes through this
// one link: the pendulum chain's Integrators as much as a partition's.
#include <cstddef>
#include <span>

#include "system/model.hpp"
#include "system/model_change.hpp"

namespace kausal {

class ModelLink {
 public:
  virtual ~ModelLink() = default;
  virtual void derivative(double t, VectorView x, VectorView u, VectorOut dx) = 0;
  virtual void output(double t, VectorView x, VectorOut y) = 0;
  virtual void jacobian(double t, VectorView x, VectorView u, MatrixOut J) = 0;
  virtual void indicators(double t, VectorView x, VectorView u, VectorOut g) = 0;
  virtual void on_crossing(std::size_t indicator, double t, VectorOut x) = 0;
  // A step ended at (t, x) (Model::completed_step); x as the model leaves it.
  virtual void completed_step(double t, VectorOut x) = 0;
  // A time-stamped event from outside the partition (the chain's impact impulse).
  virtual void handle_event(const Event& event, std::span<double> x) = 0;
  // A partition's constant input or parameter changes from change.from on.
  virtual void change(const ModelChange& change) = 0;
  // A model that steps itself (Model::step): from t to t + h with the inputs u and their
  // derivatives du at t; writes the new x.
  virtual void step(double t, double h, VectorView u, MatrixView du, VectorOut x) = 0;
  // State the vector x does not hold (Model::internal_state).
  virtual Bytes save_internal() = 0;
  virtual void restore_internal(std::span<const std::uint8_t> bytes) = 0;
};

}  // namespace kausal
