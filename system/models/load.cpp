#include "system/models/load.hpp"

#include <cmath>

#include "common/request_limits.hpp"
#include "system/artificial_work.hpp"
#include "system/model_registry.hpp"

namespace kausal {

namespace {

constexpr double pa_per_bar = 1e5;

// The smoothed signed root ρ(Δp) = Δp (Δp² + δ²)^(−1/4) and its derivative.
double root(double dp, double delta) {
  return dp / std::sqrt(std::sqrt(dp * dp + delta * delta));
}
double root_slope(double dp, double delta) {
  const double q = dp * dp + delta * delta;
  return (0.5 * dp * dp + delta * delta) / (q * std::sqrt(std::sqrt(q)));
}

// The opening of the P→A / B→T edges (pos) and of the P→B / A→T edges (neg): xs split into
// its two signs, each never quite zero (the underlap's leakage).
double pos_part(double xs, double eps) {
  return 0.5 * (xs + std::sqrt(xs * xs + eps * eps));
}
double neg_part(double xs, double eps) {
  return 0.5 * (-xs + std::sqrt(xs * xs + eps * eps));
}

std::unique_ptr<Model> make_load(const ParameterValues& v) {
  LoadParams p{v["beta"],       v["ps"],
               v["pt"],         v["area"],
               v["v0"],         v["mass"],
               v["damping"],    v["coulomb"],
               v["v_stribeck"], v["force"],
               v["kv"],         v["underlap"],
               v["dp_smooth"],  v["kp"],
               v["ki"],         Ramp{v["ref_start"], v["ref_end"], v["ref_time"], v["ref_ramp"]},
               v["p1_0"],       v["p2_0"],
               v["x0"],         static_cast<std::uint64_t>(v["calc_work"])};
  if (!(p.pt < p.ps)) throw InvalidParameters("parameter 'pt' must be < ps");
  if (!(std::abs(p.x0) * p.area < p.v0))
    throw InvalidParameters("parameter 'x0' leaves no chamber volume (|x0| A must be < v0)");
  return std::make_unique<Load>(p);
}

}  // namespace

const Signature& Load::signature() const {
  static const Signature signature{{"p1", "p2", "position", "velocity", "integral"},
                                   {"spool"},
                                   {"command", "position", "velocity", "p1", "p2"}};
  return signature;
}

Vector Load::initial_state() const {
  return Vector{{p_.p1_0, p_.p2_0, p_.x0, 0.0, 0.0}};
}

// Valve openings, orifice flows into the chambers and chamber volumes: what the derivative
// and the Jacobian both start from.
Load::Flows Load::flows(VectorView x, VectorView u) const {
  Flows f;
  f.open_p = pos_part(u[spool], p_.underlap);
  f.open_n = neg_part(u[spool], p_.underlap);
  const double d = p_.dp_smooth;
  f.q1 = p_.kv * (f.open_p * root(p_.ps - x[p1], d) - f.open_n * root(x[p1] - p_.pt, d));
  f.q2 = p_.kv * (f.open_n * root(p_.ps - x[p2], d) - f.open_p * root(x[p2] - p_.pt, d));
  f.v1 = p_.v0 + p_.area * x[position];
  f.v2 = p_.v0 - p_.area * x[position];
  return f;
}

void Load::derivative(double t, VectorView x, VectorView u, VectorOut dx) const {
  if (p_.calc_work) artificial_work(p_.calc_work);
  const Flows f = flows(x, u);
  const double v = x[velocity];
  dx[p1] = p_.beta / f.v1 * (f.q1 - p_.area * v);
  dx[p2] = p_.beta / f.v2 * (f.q2 + p_.area * v);
  dx[position] = v;
  dx[velocity] = (p_.area * pa_per_bar * (x[p1] - x[p2]) - p_.damping * v -
                  p_.coulomb * std::tanh(v / p_.v_stribeck) - p_.force) /
                 p_.mass;
  dx[integral] = p_.reference(t) - x[position];
}

void Load::output(double t, VectorView x, VectorOut y) const {
  y[0] = p_.kp * (p_.reference(t) - x[position]) + p_.ki * x[integral];
  y[1] = x[position];
  y[2] = x[velocity];
  y[3] = x[p1];
  y[4] = x[p2];
}

void Load::jacobian(double, VectorView x, VectorView u, MatrixOut J) const {
  const Flows f = flows(x, u);
  const double open_p = f.open_p, open_n = f.open_n, q1 = f.q1, q2 = f.q2, v1 = f.v1, v2 = f.v2;
  const double d = p_.dp_smooth;
  const double v = x[velocity];
  const double sech = 1 / std::cosh(v / p_.v_stribeck);
  J.setZero();
  J(p1, p1) = -p_.beta / v1 * p_.kv *
              (open_p * root_slope(p_.ps - x[p1], d) + open_n * root_slope(x[p1] - p_.pt, d));
  J(p1, position) = -p_.beta * p_.area / (v1 * v1) * (q1 - p_.area * v);
  J(p1, velocity) = -p_.beta * p_.area / v1;
  J(p2, p2) = -p_.beta / v2 * p_.kv *
              (open_n * root_slope(p_.ps - x[p2], d) + open_p * root_slope(x[p2] - p_.pt, d));
  J(p2, position) = p_.beta * p_.area / (v2 * v2) * (q2 + p_.area * v);
  J(p2, velocity) = p_.beta * p_.area / v2;
  J(position, velocity) = 1;
  J(velocity, p1) = p_.area * pa_per_bar / p_.mass;
  J(velocity, p2) = -p_.area * pa_per_bar / p_.mass;
  J(velocity, velocity) = -(p_.damping + p_.coulomb / p_.v_stribeck * sech * sech) / p_.mass;
  J(integral, position) = -1;
}

void register_load(ModelRegistry& registry) {
  registry.add(
      {"load",
       "position-controlled hydraulic cylinder with a heavy mass, orifice flows, friction "
       "(hydraulic drive, benchmark D)",
       {{"beta", 7000.0, "effective bulk modulus of the oil, bar", positive},
        {"ps", 210.0, "supply pressure, bar"},
        {"pt", 0.0, "tank pressure, bar (< ps)"},
        {"area", 2e-3, "piston area (each side), m^2", positive},
        {"v0", 1e-3, "chamber volume at mid stroke, hoses included, m^3", positive},
        {"mass", 800.0, "moved mass, kg", positive},
        {"damping", 33000.0, "viscous friction, N s/m", 0},
        {"coulomb", 500.0, "Coulomb friction, N", 0},
        {"v_stribeck", 0.01, "velocity over which Coulomb friction builds up, m/s", positive},
        {"force", 5000.0, "external load force against positive motion, N"},
        {"kv", 1.5e-4, "valve flow coefficient at full opening, m^3/s per sqrt(bar)", positive},
        {"underlap", 0.01, "valve underlap, fraction of full opening", positive},
        {"dp_smooth", 5.0, "pressure difference below which the orifice root is smoothed, bar",
         positive},
        {"kp", 25.0, "controller proportional gain, 1/m", 0},
        {"ki", 25.0, "controller integral gain, 1/(m s)", 0},
        {"ref_start", 0.0, "position setpoint before the ramp, m"},
        {"ref_end", 0.1, "position setpoint after the ramp, m"},
        {"ref_time", 0.05, "time the setpoint ramp begins, s"},
        {"ref_ramp", 0.2, "duration of the setpoint ramp, s (0: a step)", 0},
        {"p1_0", 117.5, "initial pressure in chamber 1, bar"},
        {"p2_0", 92.5, "initial pressure in chamber 2, bar"},
        {"x0", 0.0, "initial piston position from mid stroke, m"},
        {"calc_work", 0.0, "artificial work units per derivative evaluation", 0,
         static_cast<double>(limits::max_calc_work), true}},
       make_load});
}

}  // namespace kausal
