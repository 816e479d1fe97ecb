#pragma once
// The synchronous machine of the turbogenerator (docs/benchmarks.md C: x1..x3): a
// single machine on an infinite bus, one-axis ("flux decay") model with saliency,
//   δ̇  = ω
//   ω̇  = −c1 ω − c2 sin(δ) e'q − ½ c3 sin(2δ) + (1/M) pm
//   ė'q = c5 cos(δ) − c4 e'q + c6 efd
// with δ the rotor angle against the infinite bus (rad), ω the speed deviation from
// synchronous speed (electrical rad/s), e'q the transient q-axis voltage (pu), pm the
// turbine's mechanical power (pu, an input) and efd the field voltage (pu, constant: no
// exciter). The c's follow from the machine and network data (Anderson & Fouad, "Power
// System Control and Stability", ch. 4, one-axis model; Kundur, "Power System Stability and
// Control", 1994, §3.3 and §12.3):
//   M = 2H/ωs, c1 = KD/(2H), c2 = V/(M X'), c3 = V² (1/Xq − 1/X')/M,
//   c4 = Xd/(X' T'd0), c5 = (xd − x'd) V/(X' T'd0), c6 = 1/T'd0,
// where X' = x'd + xe, Xq = xq + xe, Xd = xd + xe include the step-up transformer and line.
//
// Default data (pu on the machine rating): xd, xq, x'd, T'd0 and H of Kundur's 555 MVA,
// 60 Hz thermal unit (Kundur Example 3.1 / §12.3: Xd = 1.81, Xq = 1.76, X'd = 0.30,
// T'd0 = 8.0 s, H = 3.5 s), and its network of that example: step-up transformer 0.15 pu and
// two lines of 0.5 and 0.93 pu in parallel, xe = 0.475 pu, to a bus of V = 1 pu. The damping
// KD = 8 pu is the one value chosen for the benchmark rather than taken from a table: it
// gives the electromechanical mode (λ ≈ −0.51 ± 7.7i, 1.2 Hz) a damping ratio of about
// 6.6 %, so that explicit Euler on the coupled machine + turbine is stable at h = 10 ms
// (limit 2 |Re λ| / |λ|² ≈ 17 ms) and unstable at h = 30 ms, the pattern of docs/benchmarks.md C (a
// criterion of this choice; tests/unit/models_test.cpp checks it). The initial state and
// efd are the equilibrium at 80 % load (pm = 0.8, terminal voltage 1 pu), computed from
// these data: delta0 = 1.22357732 rad, eq0 = 0.881636624 pu, efd = 1.93640091 pu.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

struct MachineCoefficients {
  double c1, c2, c3, c4, c5, c6, inv_m;
};

class SynchronousMachine final : public Model {
 public:
  SynchronousMachine(const MachineCoefficients& c, double efd, Vector x0)
      : c_(c), efd_(efd), x0_(std::move(x0)) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return x0_; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  void output(double t, VectorView x, VectorOut y) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  // Indices into the state vector x and the input vector u.
  enum State { delta, omega, eq };
  enum Input { pm };
  MachineCoefficients c_;
  double efd_;
  Vector x0_;
};

void register_synchronous_machine(ModelRegistry& registry);

}  // namespace kausal
