#include "system/models/sampled_pi.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "system/model_registry.hpp"

namespace kausal {

const Signature& SampledPi::signature() const {
  static const Signature signature{{"integral", "command"}, {"measurement"}, {"command"}};
  return signature;
}

Vector SampledPi::initial_state() const {
  return Vector{{clamp(p_.command0), clamp(p_.command0)}};
}

double SampledPi::clamp(double value) const {
  return std::clamp(value, p_.command_min, p_.command_max);
}

void SampledPi::derivative(double, VectorView, VectorView, VectorOut) const {
  throw ModelError("sampled_pi", "steps itself (a sampled controller): it has no derivative");
}

void SampledPi::output(double, VectorView x, VectorOut y) const {
  y[0] = x[command];
}

// A sampled controller: its measurement is the one at the sampling instant (du unused).
void SampledPi::step(double t, double h, VectorView u, MatrixView, VectorOut x) const {
  const double error = p_.setpoint(t) - u[measurement];
  x[integral] = clamp(x[integral] + p_.ki * error * h);
  x[command] = clamp(p_.kp * error + x[integral]);
}

void register_sampled_pi(ModelRegistry& registry) {
  registry.add(
      {"sampled_pi",
       "discrete PI controller sampled every h of its partition, command held between "
       "samples (steps itself: integrator \"co-simulation\")",
       {{"kp", {}, "proportional gain, command units per measurement unit", 0},
        {"ki", {}, "integral gain, command units per measurement unit and second", 0},
        {"command_min", 0.0, "lowest command (also bounds the integral)"},
        {"command_max", {}, "highest command (also bounds the integral)"},
        {"command0", 0.0, "command until the first sample's result, clamped to the bounds"},
        {"setpoint", {}, "setpoint from t = 0, measurement units"},
        {"setpoint_step", 0.0, "change of the setpoint at setpoint_time, measurement units"},
        {"setpoint_time", 0.0, "time of the setpoint step, s", 0}},
       [](const ParameterValues& v) -> std::unique_ptr<Model> {
         if (v["command_max"] < v["command_min"])
           throw InvalidParameters("command_max is below command_min");
         SampledPiParams p;
         p.kp = v["kp"];
         p.ki = v["ki"];
         p.command_min = v["command_min"];
         p.command_max = v["command_max"];
         p.command0 = v["command0"];
         p.setpoint = {v["setpoint"], v["setpoint"] + v["setpoint_step"], v["setpoint_time"], 0};
         return std::make_unique<SampledPi>(p);
       }});
}

}  // namespace kausal
