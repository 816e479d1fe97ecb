// A model library for the tests (docs/adding-a-model.md, "A model out of tree"), built with
// the release build so that a test can run a model kausal does not have without building a
// project first: test_spring, a mass on a spring and a damper driven by a force,
//   m x'' = F - k x - d x'.
#include <memory>

#include "system/model_library.hpp"

namespace {

class Spring final : public kausal::Model {
 public:
  Spring(double mass, double stiffness, double damping)
      : mass_(mass), stiffness_(stiffness), damping_(damping) {}

  const kausal::Signature& signature() const override {
    static const kausal::Signature signature{{"x", "v"}, {"force"}, {"x", "v"}};
    return signature;
  }

  void derivative(double, kausal::VectorView x, kausal::VectorView u,
                  kausal::VectorOut dx) const override {
    dx[0] = x[1];
    dx[1] = (u[0] - stiffness_ * x[0] - damping_ * x[1]) / mass_;
  }

 private:
  double mass_, stiffness_, damping_;
};

}  // namespace

KAUSAL_MODEL_LIBRARY(registry) {
  registry.add({"test_spring",
                "a mass on a spring and a damper driven by a force (a test model library)",
                {{"mass", 1.0, "m, kg", kausal::positive},
                 {"stiffness", 100.0, "spring stiffness k, N/m", 0},
                 {"damping", 0.5, "damping d, N s/m", 0}},
                [](const kausal::ParameterValues& v) {
                  return std::make_unique<Spring>(v["mass"], v["stiffness"], v["damping"]);
                }});
}
