#pragma once
// A ball falling onto the floor (the smallest model with a zero crossing): ḣ = v, v̇ = −g;
// indicator h; when h crosses zero the ball bounces, v ← e |v| upwards and h ← |h| (the
// crossing is located to the step, so the ball may be found slightly below the floor).
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

class BouncingBall final : public Model {
 public:
  // bounce false: the ball only falls and rises, and something else makes it bounce (the floor
  // of scenarios/bouncing-ball-floor.toml, through the bridge).
  BouncingBall(double g, double e, double h0, bool bounce = true)
      : g_(g), e_(e), h0_(h0), bounce_(bounce) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector{{h0_, 0.0}}; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;
  std::size_t indicator_count() const override { return bounce_ ? 1 : 0; }
  void indicators(double t, VectorView x, VectorView u, VectorOut g) const override;
  void on_crossing(std::size_t indicator, double t, VectorOut x) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { height, vel };
  double g_, e_, h0_;
  bool bounce_;
};

void register_bouncing_ball(ModelRegistry& registry);

}  // namespace kausal
