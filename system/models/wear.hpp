#pragma once
// A machine's wear w (0: new, 1: worn out) growing while it runs, the faster the more worn it
// is:  dw/dt = running · rate · (1 + growth · w).  Input: running (1 or 0, set by whoever
// stops and restarts it); output: the wear. A hybrid model (docs/events.md, "Across the
// boundary") reports the wear's crossing of a limit as a failure and resets it after repair.
#include "system/model.hpp"

namespace kausal {

class ModelRegistry;

struct WearParams {
  double rate = 0.01;  // 1/s at w = 0
  double growth = 1;   // how much faster a worn machine wears
  double wear0 = 0;
};

class Wear final : public Model {
 public:
  explicit Wear(const WearParams& p) : p_(p) {}
  const Signature& signature() const override;
  Vector initial_state() const override { return Vector{{p_.wear0}}; }
  void derivative(double t, VectorView x, VectorView u, VectorOut dx) const override;
  bool has_jacobian() const override { return true; }
  void jacobian(double t, VectorView x, VectorView u, MatrixOut J) const override;

 private:
  WearParams p_;
};

void register_wear(ModelRegistry& registry);

}  // namespace kausal
