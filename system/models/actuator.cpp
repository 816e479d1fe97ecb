#include "system/models/actuator.hpp"

#include <cmath>

#include "common/request_limits.hpp"
#include "system/artificial_work.hpp"
#include "system/model_registry.hpp"

namespace kausal {

const Signature& Actuator::signature() const {
  static const Signature signature{{"spool", "spool_velocity"}, {"command"}, {"spool"}};
  return signature;
}

void Actuator::derivative(double, VectorView x, VectorView u, VectorOut dx) const {
  if (calc_work_) artificial_work(calc_work_);
  dx[spool] = x[spool_velocity];
  dx[spool_velocity] = omega_v_ * omega_v_ * (std::tanh(u[command]) - x[spool]) -
                       2 * zeta_ * omega_v_ * x[spool_velocity];
}

void Actuator::output(double, VectorView x, VectorOut y) const {
  y[0] = x[spool];
}

void Actuator::jacobian(double, VectorView, VectorView, MatrixOut J) const {
  J << 0, 1, -omega_v_ * omega_v_, -2 * zeta_ * omega_v_;
}

void register_actuator(ModelRegistry& registry) {
  registry.add({"actuator",
                "servo-valve spool, fast overdamped 2nd order with saturating torque motor "
                "(hydraulic drive, benchmark D)",
                {{"f_v", 600.0, "spool natural frequency, Hz", positive},
                 {"zeta", 1.5, "spool damping ratio, -", positive},
                 {"spool0", 0.0, "initial spool opening, fraction of full opening"},
                 {"calc_work", 0.0, "artificial work units per derivative evaluation", 0,
                  static_cast<double>(limits::max_calc_work), true}},
                [](const ParameterValues& v) {
                  return std::make_unique<Actuator>(2 * M_PI * v["f_v"], v["zeta"], v["spool0"],
                                                    static_cast<std::uint64_t>(v["calc_work"]));
                }});
}

}  // namespace kausal
