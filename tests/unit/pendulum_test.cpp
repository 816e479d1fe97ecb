#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.hpp"
#include "system/pendulum.hpp"
#include "system/system_core.hpp"

namespace kausal {
namespace {

TEST(Pendulum, RightHandSideIsTheEquationOfMotion) {
  PendulumParams p{0.0, 2.0, 1.0, 0.1, 0.3, 9.81};
  double x[2] = {0.4, -1.5};
  double dx[2];
  pendulum_rhs(coefficients_of(p), x, dx);
  EXPECT_EQ(dx[0], -1.5);
  EXPECT_EQ(dx[1], -(9.81 / 2.0) * std::sin(0.4) - 0.3 * -1.5);
}

TEST(Pendulum, KinematicsPutTheBobOnItsString) {
  PendulumParams p{0.5, 2.0, 1.0, 0.1, 0.0, 9.81};
  double x[2] = {M_PI / 2, 3.0};  // horizontal, to the right, moving up
  const auto k = bob_kinematics(p, x);
  EXPECT_NEAR(k.x, 2.5, 1e-15);
  EXPECT_NEAR(k.y, 0.0, 1e-15);
  EXPECT_NEAR(k.vx, 0.0, 1e-15);
  EXPECT_NEAR(k.vy, 6.0, 1e-15);
}

TEST(Pendulum, ImpulseEventChangesOnlyOmega) {
  PendulumModel model({0, 2.0, 4.0, 0.1, 0, 9.81});
  std::vector<double> x = {0.3, 1.0};
  model.handle_event({"impulse", 7, 0.007, {8.0}}, x);
  EXPECT_EQ(x[0], 0.3);
  EXPECT_EQ(x[1], 2.0);  // 1 + 8 / (4 · 2)
  EXPECT_THROW(model.handle_event({"kick", 7, 0.007, {1.0}}, x), ModelError);
}

TEST(Pendulum, ParametersFromTheWireAreChecked) {
  auto good = to_parameters({0, 1, 1, 0.1, 0, 9.81});
  EXPECT_NO_THROW(pendulum_params_from("system-1", good));

  auto negative = good;
  negative[1].second = -1;  // length
  try {
    pendulum_params_from("system-2", negative);
    FAIL() << "negative length accepted";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.component(), "system-2");
    EXPECT_NE(std::string(e.what()).find("length"), std::string::npos);
  }
  auto unknown = good;
  unknown.push_back({"lenght", 1});
  EXPECT_THROW(pendulum_params_from("s", unknown), ModelError);
  Parameters missing(good.begin() + 1, good.end());
  EXPECT_THROW(pendulum_params_from("s", missing), ModelError);
  auto nan = good;
  nan[2].second = std::nan("");
  EXPECT_THROW(pendulum_params_from("s", nan), ModelError);
}

TEST(SystemCore, ChecksStatesThatArriveFromOutside) {
  SystemCore core("system-4");
  Vector dx(2);
  const Vector x{{0.1, 0.2}};
  const Vector none;
  EXPECT_THROW(core.derivative(0, x, none, dx), ProtocolError);  // not configured yet
  EXPECT_EQ(core.configure("pendulum", to_parameters({0, 1, 1, 0.1, 0, 9.81})), 2u);
  core.derivative(0, x, none, dx);
  EXPECT_EQ(dx[0], 0.2);
  const Vector three{{1, 2, 3}};
  Vector dx3(3);
  EXPECT_THROW(core.derivative(0, three, none, dx3), ModelError);
  EXPECT_THROW(core.derivative(0, x, Vector::Ones(1), dx), ModelError);  // it has no inputs
  const Vector inf{{INFINITY, 0}};
  EXPECT_THROW(core.derivative(0, inf, none, dx), ModelError);
  EXPECT_THROW(core.configure("spring", {}), ModelError);
  EXPECT_EQ(core.totals().calc_calls, 1u);
}

}  // namespace
}  // namespace kausal
