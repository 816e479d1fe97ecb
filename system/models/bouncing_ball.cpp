#include "system/models/bouncing_ball.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "system/model_registry.hpp"

namespace kausal {

const Signature& BouncingBall::signature() const {
  static const Signature signature{{"h", "v"}, {}, {"h", "v"}};
  return signature;
}

void BouncingBall::derivative(double, VectorView x, VectorView, VectorOut dx) const {
  dx[height] = x[vel];
  dx[vel] = -g_;
}

void BouncingBall::jacobian(double, VectorView, VectorView, MatrixOut J) const {
  J << 0, 1, 0, 0;
}

void BouncingBall::indicators(double, VectorView x, VectorView, VectorOut g) const {
  g[0] = x[height];
}

// Whichever way the crossing was found, the ball leaves upwards from above the floor: the
// absolute values make the handler idempotent and keep a located-late bounce physical.
void BouncingBall::on_crossing(std::size_t indicator, double, VectorOut x) const {
  if (indicator != 0)
    throw ModelError("bouncing_ball", "no zero crossing " + std::to_string(indicator));
  x[vel] = e_ * std::abs(x[vel]);
  x[height] = std::abs(x[height]);
}

void register_bouncing_ball(ModelRegistry& registry) {
  registry.add({"bouncing_ball",
                "ball bouncing on the floor, one zero crossing at h = 0 (event handling example)",
                {{"g", 9.81, "gravitational acceleration, m/s^2", positive},
                 {"e", 0.8, "coefficient of restitution, -", 0, 1},
                 {"h0", 1.0, "initial height (dropped at rest), m", 0},
                 {"bounce", 1.0,
                  "1: it bounces at the end of the step that finds h = 0; 0: "
                  "something else makes it bounce (a hybrid model's floor)",
                  0, 1}},
                [](const ParameterValues& v) {
                  return std::make_unique<BouncingBall>(v["g"], v["e"], v["h0"], v["bounce"] != 0);
                }});
}

}  // namespace kausal
