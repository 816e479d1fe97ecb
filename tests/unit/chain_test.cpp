#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>

#include "system/chain.hpp"
#include "system/impact_sweep.hpp"

namespace kausal {
namespace {

// The sweep of a chain, applying every impulse to x and noting the pendulums in order.
std::uint64_t sweep_impacts(const ChainSpec& spec, std::vector<PendulumState>& x,
                            std::uint64_t step, std::vector<std::size_t>* order = nullptr) {
  ImpactSweep sweep(spec);
  return sweep.resolve(x, step, [&](const BobPair& pair, const Impact& impact) {
    if (order) {
      order->push_back(pair.i);
      order->push_back(pair.j);
    }
    apply_pendulum_impulse(spec.pendulums[pair.i], impact.left_impulse, x[pair.i].data());
    apply_pendulum_impulse(spec.pendulums[pair.j], impact.right_impulse, x[pair.j].data());
  });
}

PendulumParams bob(double pivot_x, double length = 1.0, double mass = 1.0, double radius = 0.05) {
  return {pivot_x, length, mass, radius, 0.0, 9.81};
}

double kinetic_energy(const PendulumParams& p, const PendulumState& x) {
  return 0.5 * p.mass * p.length * p.length * x[1] * x[1];
}

double normal_velocity(const PendulumParams& a, const PendulumParams& b, const PendulumState& xa,
                       const PendulumState& xb) {
  const auto ka = bob_kinematics(a, xa.data());
  const auto kb = bob_kinematics(b, xb.data());
  const double dx = kb.x - ka.x, dy = kb.y - ka.y, d = std::hypot(dx, dy);
  return ((kb.vx - ka.vx) * dx + (kb.vy - ka.vy) * dy) / d;
}

// A random pair of bobs in contact (overlapping by a hair) and approaching.
struct RandomContact {
  PendulumParams a, b;
  PendulumState xa, xb;
};

// Picks two random bobs and angles, then moves b's pivot so that the bobs overlap by a hair
// with b to the right; nothing if their heights differ too much to touch.
std::optional<RandomContact> random_contact(std::mt19937_64& rng) {
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  RandomContact c;
  c.a = bob(0.0, u(0.5, 1.5), u(0.2, 3), u(0.03, 0.15));
  c.b = bob(0.0, u(0.5, 1.5), u(0.2, 3), u(0.03, 0.15));
  c.xa = {u(-0.8, 0.8), u(-3, 3)};
  c.xb = {u(-0.8, 0.8), u(-3, 3)};
  const auto ka = bob_kinematics(c.a, c.xa.data());
  const auto kb = bob_kinematics(c.b, c.xb.data());
  const double d = 0.999 * (c.a.radius + c.b.radius);
  const double dy = kb.y - ka.y;
  if (std::abs(dy) >= d) return std::nullopt;
  c.b.pivot_x = ka.x + std::sqrt(d * d - dy * dy) - kb.x;
  if (normal_velocity(c.a, c.b, c.xa, c.xb) >= 0) {
    c.xa[1] = -c.xa[1];
    c.xb[1] = -c.xb[1];
  }
  return c;
}

TEST(Impact, EqualMassesAtTheBottomSwapOmega) {
  const std::vector<PendulumParams> p = {bob(0.0), bob(0.1)};
  for (double w : {1.0, 0.37, 2.5}) {
    const auto impact =
        pair_impact(p[0], p[1], 1.0, PendulumState{0, w}.data(), PendulumState{0, 0}.data());
    ASSERT_TRUE(impact);
    PendulumState a{0, w}, b{0, 0};
    apply_pendulum_impulse(p[0], impact->left_impulse, a.data());
    apply_pendulum_impulse(p[1], impact->right_impulse, b.data());
    EXPECT_NEAR(a[1], 0.0, 1e-15 * w);
    EXPECT_NEAR(b[1], w, 1e-15 * w);
  }
}

TEST(Impact, ElasticImpactsConserveEnergyToRounding) {
  std::mt19937_64 rng(42);
  int checked = 0;
  for (int k = 0; k < 4000; ++k) {
    auto contact = random_contact(rng);
    if (!contact) continue;
    auto& c = *contact;
    auto impact = pair_impact(c.a, c.b, 1.0, c.xa.data(), c.xb.data());
    if (!impact) continue;
    const double before = kinetic_energy(c.a, c.xa) + kinetic_energy(c.b, c.xb);
    apply_pendulum_impulse(c.a, impact->left_impulse, c.xa.data());
    apply_pendulum_impulse(c.b, impact->right_impulse, c.xb.data());
    const double after = kinetic_energy(c.a, c.xa) + kinetic_energy(c.b, c.xb);
    EXPECT_NEAR(after, before, 1e-12 * before) << "case " << k;
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

TEST(Impact, RestitutionSetsTheNormalVelocityAfterwards) {
  std::mt19937_64 rng(7);
  for (double e : {0.0, 0.5, 0.9}) {
    int checked = 0;
    for (int k = 0; k < 1000; ++k) {
      auto contact = random_contact(rng);
      if (!contact) continue;
      auto& c = *contact;
      const double before = normal_velocity(c.a, c.b, c.xa, c.xb);
      auto impact = pair_impact(c.a, c.b, e, c.xa.data(), c.xb.data());
      if (!impact) continue;
      apply_pendulum_impulse(c.a, impact->left_impulse, c.xa.data());
      apply_pendulum_impulse(c.b, impact->right_impulse, c.xb.data());
      // e = 0: the pair leaves with equal normal velocity; in general v_n' = −e v_n.
      EXPECT_NEAR(normal_velocity(c.a, c.b, c.xa, c.xb), -e * before, 1e-12 * std::abs(before));
      ++checked;
    }
    EXPECT_GT(checked, 200);
  }
}

TEST(Impact, TouchingButSeparatingIsNoImpact) {
  const auto a = bob(0.0), b = bob(0.1);
  EXPECT_FALSE(pair_impact(a, b, 1.0, PendulumState{0, -1}.data(), PendulumState{0, 1}.data()));
  EXPECT_FALSE(pair_impact(a, b, 1.0, PendulumState{0, 0}.data(), PendulumState{0, 0}.data()));
  EXPECT_FALSE(
      pair_impact(a, bob(0.2), 1.0, PendulumState{0, 1}.data(), PendulumState{0, 0}.data()));
}

TEST(Sweep, CradleCascadesLeftToRightInOneStep) {
  // Spacing and radii exact in binary, so that neighbours touch exactly at rest.
  const double r = 0.0625;
  ChainSpec spec{{bob(0.0, 1, 1, r), bob(0.125, 1, 1, r), bob(0.25, 1, 1, r), bob(0.375, 1, 1, r),
                  bob(0.5, 1, 1, r)},
                 1.0,
                 100};
  std::vector<PendulumState> x = {{0, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  std::vector<std::size_t> order;
  const auto impacts = sweep_impacts(spec, x, 1, &order);
  EXPECT_EQ(impacts, 4u);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 1, 2, 2, 3, 3, 4}));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(x[i][1], 0.0, 1e-15);
  EXPECT_NEAR(x[4][1], 1.0, 1e-15);
}

TEST(Sweep, RepeatsUntilASweepAppliesNothing) {
  // 1 → 2 ← 3: the first sweep leaves 2 moving left into 1, which the second sweep handles.
  ChainSpec spec{{bob(0.0), bob(0.1), bob(0.2)}, 1.0, 100};
  std::vector<PendulumState> x = {{0, 1}, {0, 0}, {0, -1}};
  std::vector<std::size_t> order;
  const auto impacts = sweep_impacts(spec, x, 1, &order);
  EXPECT_EQ(impacts, 3u);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 1, 2, 0, 1}));
  EXPECT_NEAR(x[0][1], -1.0, 1e-15);
  EXPECT_NEAR(x[1][1], 0.0, 1e-15);
  EXPECT_NEAR(x[2][1], 1.0, 1e-15);
}

TEST(Sweep, GivesUpAfterTheBoundedNumberOfSweeps) {
  ChainSpec spec{{bob(0.0), bob(0.1), bob(0.2)}, 1.0, 1};
  std::vector<PendulumState> x = {{0, 1}, {0, 0}, {0, -1}};
  try {
    sweep_impacts(spec, x, 17);
    FAIL() << "no error after max_sweeps";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("step 17"), std::string::npos);
  }
}

TEST(BroadPhase, NeverMissesAContactAtAnyAngle) {
  // The cheap boxes may say "maybe" too often, never "no" for bobs in contact, also far
  // beyond one turn (the Taylor bounds are clipped there).
  std::mt19937_64 rng(3);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  int contacts = 0;
  for (int k = 0; k < 200000; ++k) {
    const ChainSpec chain{
        {bob(0.0, u(0.3, 2), 1, u(0.02, 0.2)), bob(u(0.0, 0.6), u(0.3, 2), 1, u(0.02, 0.2))},
        1.0,
        10};
    const auto& [a, b] = std::tie(chain.pendulums[0], chain.pendulums[1]);
    const std::vector<PendulumState> x = {{u(-7, 7), 0}, {u(-7, 7), 0}};
    const auto ka = bob_kinematics(a, x[0].data()), kb = bob_kinematics(b, x[1].data());
    if (std::hypot(kb.x - ka.x, kb.y - ka.y) > a.radius + b.radius) continue;
    ++contacts;
    ImpactSweep sweep(chain);
    ASSERT_EQ(sweep.candidates(x).size(), 1u) << "phi_a " << x[0][0] << " phi_b " << x[1][0];
  }
  EXPECT_GT(contacts, 100);
}

TEST(BroadPhase, RulesOutBobsFarApart) {
  const ChainSpec chain{{bob(0.0), bob(0.5)}, 1.0, 10};
  ImpactSweep sweep(chain);
  auto candidates = [&](double phi_a, double phi_b) {
    const std::vector<PendulumState> x = {{phi_a, 0}, {phi_b, 0}};
    return sweep.candidates(x).size();
  };
  EXPECT_EQ(candidates(0.0, 0.0), 0u);
  EXPECT_EQ(candidates(-0.2, 0.2), 0u);
  EXPECT_EQ(candidates(0.6, -0.6), 0u);    // swung past each other
  EXPECT_EQ(candidates(0.25, -0.25), 1u);  // 6 mm apart
}

}  // namespace
}  // namespace kausal
