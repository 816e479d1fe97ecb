#include "monitor/sync/lookahead.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "integrator/stepper.hpp"
#include "system/chain.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

PendulumParams pendulum_at(double pivot_x, double length = 1.0, double radius = 0.05,
                           double damping = 0.0) {
  return {pivot_x, length, 1.0, radius, damping, 9.81};
}

// Exactly the contact test of pair_impact (before it looks at the approach velocity).
bool in_contact(const PendulumParams& a, const PendulumParams& b, const PendulumState& xa,
                const PendulumState& xb) {
  const auto ka = bob_kinematics(a, xa.data());
  const auto kb = bob_kinematics(b, xb.data());
  const double dx = kb.x - ka.x;
  const double dy = kb.y - ka.y;
  return !(std::sqrt(dx * dx + dy * dy) > a.radius + b.radius);
}

// Free motion (no impacts) with the real steppers, as SequentialStepper::step_all does.
class FreeMotion {
 public:
  FreeMotion(const ChainSpec& chain, OdeMethod method, double h, std::vector<PendulumState> x)
      : chain_(chain), method_(method), h_(h), x_(std::move(x)), work_(PendulumState{}) {
    for (const auto& p : chain.pendulums) coefficients_.push_back(coefficients_of(p));
    update_kinematics();
  }
  void step() {
    const double t = step_time(0.0, h_, m_);
    for (std::size_t i = 0; i < x_.size(); ++i) {
      auto rhs = [&c = coefficients_[i]](double, const PendulumState& x, PendulumState& dx) {
        pendulum_rhs(c, x.data(), dx.data());
      };
      take_step(method_, rhs, t, h_, x_[i], work_);
    }
    ++m_;
    update_kinematics();
  }
  bool pair_in_contact(BobPair pair) const {
    const auto& p = chain_.pendulums;
    const BobKinematics &a = kinematics_[pair.i], &b = kinematics_[pair.j];
    const double dx = b.x - a.x, dy = b.y - a.y;  // as in_contact computes them
    return !(std::sqrt(dx * dx + dy * dy) > p[pair.i].radius + p[pair.j].radius);
  }
  // Any pair of the chain, not only those the lookahead looks at.
  bool any_contact() const {
    for (std::uint32_t i = 0; i < x_.size(); ++i)
      for (std::uint32_t j = i + 1; j < x_.size(); ++j)
        if (pair_in_contact({i, j})) return true;
    return false;
  }
  std::uint64_t step_index() const { return m_; }

 private:
  const ChainSpec& chain_;
  OdeMethod method_;
  double h_;
  std::vector<PendulumState> x_;
  std::vector<PendulumCoefficients> coefficients_;
  StepWork<PendulumState> work_;
  std::uint64_t m_ = 0;
  std::vector<BobKinematics> kinematics_;  // of every bob at the current step

  void update_kinematics() {
    kinematics_.resize(x_.size());
    for (std::size_t i = 0; i < x_.size(); ++i)
      kinematics_[i] = bob_kinematics(chain_.pendulums[i], x_[i].data());
  }
};

// The first step 1..horizon at which any pair is in contact under free motion; 0 if none.
std::uint64_t first_contact(const ChainSpec& chain, OdeMethod method, double h,
                            const std::vector<PendulumState>& x, std::uint64_t horizon) {
  FreeMotion motion(chain, method, h, x);
  for (std::uint64_t k = 1; k <= horizon; ++k) {
    motion.step();
    if (motion.any_contact()) return k;
  }
  return 0;
}

struct Case {
  ChainSpec chain;
  OdeMethod method;
  double h;
  std::vector<PendulumState> x;
};

// Random chains in three regimes: near rest with small gaps (where the bound is tightest),
// wild (large angles, fast), and the chains of testing::random_scenario with random speeds.
Case random_case(unsigned seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  const auto n = std::uniform_int_distribution<std::size_t>(2, 12)(rng);
  const int regime = std::uniform_int_distribution<>(0, 2)(rng);
  Case c;
  c.method = u(0, 1) < 0.5 ? OdeMethod::euler : OdeMethod::rk4;
  c.h = u(0.5e-3, 2e-3);
  if (regime == 2) {
    const Scenario s = testing::random_scenario(seed, n, 1);
    c.chain = s.chain;
    c.x = s.initial;
    for (auto& p : c.chain.pendulums) p.damping = u(0, 0.5);
    for (auto& x : c.x) x[1] = u(-4, 4);
    return c;
  }
  const double max_phi = regime == 0 ? 0.05 : 3.5;  // beyond π: upside down and past it
  const double max_omega = regime == 0 ? 0.5 : 6;
  const double max_gap = regime == 0 ? 0.03 : 0.3;
  double pivot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    PendulumParams p{pivot, u(0.3, 1.5), u(0.2, 3), u(0.03, 0.12), u(0, 0.5), 9.81};
    if (i > 0) {
      p.pivot_x = pivot + c.chain.pendulums.back().radius + p.radius + u(0, max_gap);
      pivot = p.pivot_x;
    }
    PendulumState x{u(-max_phi, max_phi), u(-max_omega, max_omega)};
    // A few tries at a start out of contact with the left neighbour (else that pair gives 0).
    for (int t = 0; t < 8 && i > 0 && in_contact(c.chain.pendulums.back(), p, c.x.back(), x); ++t)
      x[0] = u(-max_phi, max_phi);
    c.chain.pendulums.push_back(p);
    c.x.push_back(x);
  }
  return c;
}

TEST(LookaheadProperty, NoContactWithinTheWindowUnderFreeMotion) {
  const auto start = std::chrono::steady_clock::now();
  constexpr std::uint64_t kMaxSteps = 2000;
  int cases = 0, pairs = 0, positive_pairs = 0, capped_pairs = 0, contacts_seen = 0;
  double tightness_sum = 0;  // Σ S/K over pairs whose first contact K was found
  double worst_tightness = 1;
  // 150 chains: with the interval bound most windows run to kMaxSteps, every pair of a chain
  // gets its own window and each is simulated past its end, so this is the slowest test of
  // the suite (the ASan build runs it too); IntervalBoundAcrossDirectionsAnglesAndDamping adds
  // 2400 targeted cases.
  for (unsigned seed = 1; seed <= 150; ++seed) {
    const Case c = random_case(seed);
    const std::size_t n = c.x.size();
    // Every pair: those out of reach must never touch, the others get a window each.
    std::vector<BobPair> all;
    for (std::uint32_t i = 0; i < n; ++i)
      for (std::uint32_t j = i + 1; j < n; ++j) all.push_back({i, j});
    const std::vector<BobPair> reachable = pairs_within_reach(c.chain);
    std::vector<std::uint64_t> window(all.size(), kMaxSteps);
    std::uint64_t horizon = 0;
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (!std::binary_search(reachable.begin(), reachable.end(), all[k])) continue;
      const BobPair one[] = {all[k]};
      window[k] = safe_free_steps(c.chain, one, c.method, c.h, c.x, kMaxSteps);
      ASSERT_LE(window[k], kMaxSteps);
      horizon = std::max(horizon, window[k]);
    }
    const std::uint64_t global = safe_free_steps(c.chain, c.method, c.h, c.x, kMaxSteps);
    ASSERT_EQ(global, *std::min_element(window.begin(), window.end())) << "seed " << seed;
    // Simulate past the longest window too, to see how close the bound is to a real contact.
    horizon = std::min(kMaxSteps, 2 * horizon + 20);
    FreeMotion motion(c.chain, c.method, c.h, c.x);
    std::vector<std::uint64_t> first(all.size(), 0);
    while (motion.step_index() < horizon) {
      motion.step();
      const std::uint64_t k = motion.step_index();
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (first[i] != 0 || !motion.pair_in_contact(all[i])) continue;
        first[i] = k;
        ASSERT_GT(k, window[i]) << "seed " << seed << " pair (" << all[i].i << ", " << all[i].j
                                << "): contact at step " << k << " inside the window of "
                                << window[i] << " steps";
      }
    }
    ++cases;
    for (std::size_t i = 0; i < all.size(); ++i) {
      ++pairs;
      positive_pairs += window[i] > 0;
      capped_pairs += window[i] == kMaxSteps;
      if (first[i] > 0 && window[i] > 0) {
        ++contacts_seen;
        const double ratio = static_cast<double>(window[i]) / static_cast<double>(first[i]);
        tightness_sum += ratio;
        worst_tightness = std::min(worst_tightness, ratio);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[lookahead] %d chains, %d pairs (%d with S > 0, %d at max_steps); %d pairs met later: "
      "S/K mean %.2f, worst %.2f; %.2f s\n",
      cases, pairs, positive_pairs, capped_pairs, contacts_seen,
      contacts_seen ? tightness_sum / contacts_seen : 0.0, worst_tightness, seconds);
  // The property is only tested if many windows are non-trivial and some contacts follow them.
  EXPECT_GT(positive_pairs, pairs / 2);
  EXPECT_GT(contacts_seen, 300);
}

// The worst case of the bound: the left bob, horizontal, falls straight down onto a bob hanging
// right below it (|sin φ| = 1, velocity and acceleration both towards the neighbour, chord
// almost equal to arc). The neighbour is nearly weightless, so that its own bound stays ~0 and
// the window measures the falling bob's bound alone: it must end before the contact, and only
// just before (a bound that is a few per cent short, or one that drops RK4's stage terms, fails
// here even when the random chains above miss it).
TEST(LookaheadProperty, NearlyExactWhenABobFallsOntoItsNeighbour) {
  std::mt19937_64 rng(11);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  double worst = 1;
  for (int k = 0; k < 400; ++k) {
    const OdeMethod method = k % 2 ? OdeMethod::euler : OdeMethod::rk4;
    const double h = u(0.5e-3, 2e-3);
    const PendulumParams a{0.0, u(0.5, 1.5), 1.0, u(0.03, 0.1), 0.0, 9.81};
    const double gap = u(1e-3, 3e-2);
    const double rb = u(0.03, 0.1);
    const PendulumParams b{a.length, a.radius + rb + gap, 1.0, rb, 0.0, 1e-9};
    const ChainSpec chain{{a, b}, 1.0, 100};
    const std::vector<PendulumState> x = {{M_PI / 2, -u(0, 3)}, {0, 0}};
    const auto contact = first_contact(chain, method, h, x, 100000);
    ASSERT_GT(contact, 0u);
    const auto s = safe_free_steps(chain, method, h, x, 100000);
    ASSERT_LT(s, contact) << "case " << k;
    worst = std::min(worst, static_cast<double>(s + 1) / static_cast<double>(contact));
  }
  std::printf("[lookahead] falling bob: (S + 1) / K >= %.3f\n", worst);
  EXPECT_GT(worst, 0.9);
}

// Pairs (and some triples) where the interval bound differs most from a magnitude bound: bobs
// pushed apart that swing back, large angles (past horizontal, over the top) and fast spins,
// strong damping; Euler and RK4. Short strings, small gaps and h = 1 .. 4 ms, so that most
// windows end at a contact within a few hundred steps.
Case interval_case(unsigned seed) {
  std::mt19937_64 rng(seed + 1'000'000);
  auto u = [&](double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); };
  const int regime = static_cast<int>(seed % 3);  // 0: apart, 1: wild, 2: damped
  const std::size_t n = u(0, 1) < 0.8 ? 2 : 3;
  Case c;
  c.method = u(0, 1) < 0.5 ? OdeMethod::euler : OdeMethod::rk4;
  c.h = u(1e-3, 4e-3);
  const double max_gap = regime == 1 ? 0.1 : 0.02;
  for (std::size_t i = 0; i < n; ++i) {
    const double damping = regime == 2 ? u(0, 3) : u(0, 0.3);
    PendulumParams p{0.0, u(0.1, 0.5), u(0.2, 3), u(0.02, 0.1), damping, 9.81};
    if (i > 0) {
      const PendulumParams& left = c.chain.pendulums.back();
      p.pivot_x = left.pivot_x + left.radius + p.radius + u(0, max_gap);
    }
    auto draw = [&]() -> PendulumState {
      if (regime == 0) return {u(-0.3, 0.3), (i == 0 ? -1 : 1) * u(0, 2)};  // apart
      if (regime == 1) return {u(-3.1, 3.1), u(-8, 8)};
      return {u(-1.5, 1.5), (i == 0 ? 1 : -1) * u(-1, 4)};  // mostly towards each other
    };
    PendulumState x = draw();
    for (int t = 0; t < 8 && i > 0 && in_contact(c.chain.pendulums.back(), p, c.x.back(), x); ++t)
      x = draw();
    c.chain.pendulums.push_back(p);
    c.x.push_back(x);
  }
  return c;
}

// Free motion through the window and past it: no pair may be in contact at steps 1 .. S, and
// the first contact K after it shows how tight S is.
TEST(LookaheadProperty, IntervalBoundAcrossDirectionsAnglesAndDamping) {
  const auto start = std::chrono::steady_clock::now();
  constexpr std::uint64_t kMaxSteps = 400;
  int cases = 0, positive = 0, capped = 0, met = 0, exact = 0;
  double tightness_sum = 0, worst_tightness = 1;
  for (unsigned seed = 1; seed <= 2400; ++seed) {
    const Case c = interval_case(seed);
    const std::uint64_t s = safe_free_steps(c.chain, c.method, c.h, c.x, kMaxSteps);
    ASSERT_LE(s, kMaxSteps);
    const std::uint64_t horizon = std::min(kMaxSteps, 2 * s + 20);
    FreeMotion motion(c.chain, c.method, c.h, c.x);
    std::uint64_t first = 0;
    while (first == 0 && motion.step_index() < horizon) {
      motion.step();
      if (motion.any_contact()) first = motion.step_index();
    }
    ASSERT_TRUE(first == 0 || first > s)
        << "seed " << seed << ": contact at step " << first << " inside the window of " << s;
    ++cases;
    positive += s > 0;
    capped += s == kMaxSteps;
    if (first > 0 && s > 0) {
      ++met;
      exact += s + 1 == first;
      const double ratio = static_cast<double>(s) / static_cast<double>(first);
      tightness_sum += ratio;
      worst_tightness = std::min(worst_tightness, ratio);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[lookahead] interval bound: %d chains (%d with S > 0, %d at max_steps); %d met later: "
      "S/K mean %.3f, worst %.2f, S = K - 1 in %d; %.2f s\n",
      cases, positive, capped, met, met ? tightness_sum / met : 0.0, worst_tightness, exact,
      seconds);
  EXPECT_GT(positive, cases / 2);
  EXPECT_GT(met, cases / 3);
  EXPECT_GT(tightness_sum, 0.9 * met);  // a direction-blind bound gets about 0.5
}

std::uint64_t pair_at_rest(OdeMethod method, double gap, double h = 1e-3,
                           std::uint64_t max_steps = 100000) {
  const ChainSpec chain{{pendulum_at(0.0), pendulum_at(0.1 + gap)}, 1.0, 100};
  const std::vector<PendulumState> x = {{0, 0}, {0, 0}};
  return safe_free_steps(chain, method, h, x, max_steps);
}

TEST(LookaheadTightness, BobsAtRestWithACentimetreGap) {
  // φ = ω = 0 is a fixed point of both steppers (sin 0 = 0 exactly): the bobs never move, and
  // the interval bound knows it. (The magnitude bound, blind to direction, gave 32 / 31 steps.)
  for (OdeMethod m : {OdeMethod::euler, OdeMethod::rk4}) {
    const auto s = pair_at_rest(m, 0.01, 1e-3, 20000);
    std::printf("[lookahead] at rest, 1 cm gap, h = 1 ms, %s: S = %llu\n",
                std::string(ode_method_name(m)).c_str(), static_cast<unsigned long long>(s));
    EXPECT_EQ(s, 20000u);
  }
}

TEST(LookaheadTightness, BobsMovingApartUntilTheySwingBack) {
  // Two equal bobs at the bottom, 1 cm apart, pushed apart: they swing out and meet again near
  // the bottom after about half a period (K ≈ 1000 steps). The magnitude bound gave S = 9
  // (0.5 rad/s) and S = 2 (2 rad/s) for both methods.
  for (OdeMethod m : {OdeMethod::euler, OdeMethod::rk4}) {
    for (double omega : {0.5, 2.0}) {
      const ChainSpec chain{{pendulum_at(0.0), pendulum_at(0.11)}, 1.0, 100};
      const std::vector<PendulumState> x = {{0, -omega}, {0, omega}};
      const auto k = first_contact(chain, m, 1e-3, x, 100000);
      ASSERT_GT(k, 0u);
      const auto s = safe_free_steps(chain, m, 1e-3, x, 100000);
      std::printf("[lookahead] moving apart, %s, omega %.1f: S = %llu, contact at K = %llu\n",
                  std::string(ode_method_name(m)).c_str(), omega,
                  static_cast<unsigned long long>(s), static_cast<unsigned long long>(k));
      EXPECT_LT(s, k);
      EXPECT_GE(s + 10, k);  // within 1 % of the real contact
      EXPECT_GT(s, 500u);    // the magnitude bound: 9 or 2
    }
  }
}

TEST(LookaheadTightness, TouchingOrInContactGivesZero) {
  // Spacing and radii exact in binary: the bobs touch exactly at rest.
  const ChainSpec touching{{pendulum_at(0.0, 1, 0.0625), pendulum_at(0.125, 1, 0.0625)}, 1.0, 100};
  const std::vector<PendulumState> rest = {{0, 0}, {0, 0}};
  EXPECT_EQ(safe_free_steps(touching, OdeMethod::euler, 1e-3, rest, 1000), 0u);
  EXPECT_EQ(safe_free_steps(touching, OdeMethod::rk4, 1e-3, rest, 1000), 0u);
  // Moving apart does not help: the window starts with the contact that is there.
  const std::vector<PendulumState> apart = {{0, -1}, {0, 1}};
  EXPECT_EQ(safe_free_steps(touching, OdeMethod::rk4, 1e-3, apart, 1000), 0u);
  // Overlapping, and a gap far below the rounding margin.
  EXPECT_EQ(pair_at_rest(OdeMethod::rk4, -0.01), 0u);
  EXPECT_EQ(pair_at_rest(OdeMethod::rk4, 1e-14), 0u);
}

TEST(LookaheadTightness, SinglePendulumGetsMaxSteps) {
  const ChainSpec one{{pendulum_at(0.0)}, 1.0, 100};
  const std::vector<PendulumState> x = {{2.5, 40.0}};
  EXPECT_EQ(safe_free_steps(one, OdeMethod::rk4, 1e-3, x, 1234), 1234u);
  const auto huge = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(safe_free_steps(one, OdeMethod::euler, 1e-3, x, huge), huge);
}

TEST(LookaheadTightness, BobsFarApart) {
  // 40 cm apart: the bound reaches the gap only after about 200 steps.
  const ChainSpec near{{pendulum_at(0.0), pendulum_at(0.5)}, 1.0, 100};
  const std::vector<PendulumState> rest = {{0, 0}, {0, 0}};
  EXPECT_EQ(safe_free_steps(near, OdeMethod::euler, 1e-3, rest, 50), 50u);
  const auto s = safe_free_steps(near, OdeMethod::rk4, 1e-3, rest, 100000);
  std::printf("[lookahead] at rest, 40 cm gap, h = 1 ms, rk4: S = %llu\n",
              static_cast<unsigned long long>(s));
  EXPECT_GE(s, 150u);
  // Further apart than both strings can reach: every window, at once even for a huge one.
  const ChainSpec far{{pendulum_at(0.0), pendulum_at(10.0)}, 1.0, 100};
  const std::vector<PendulumState> fast = {{1, 50}, {-2, -50}};
  const auto huge = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(safe_free_steps(far, OdeMethod::rk4, 1e-3, fast, huge), huge);
  EXPECT_EQ(safe_free_steps(near, OdeMethod::rk4, 1e-3, rest, 0), 0u);
}

TEST(LookaheadTightness, WindowEndsBeforeAComingContact) {
  // A bob swinging into its neighbour at rest; K = the first step with contact.
  for (OdeMethod m : {OdeMethod::euler, OdeMethod::rk4}) {
    for (double omega : {0.2, 2.0, 8.0}) {
      for (double gap : {0.002, 0.01, 0.05}) {
        const ChainSpec chain{{pendulum_at(0.0, 1, 0.05, 0.3), pendulum_at(0.1 + gap)}, 1.0, 100};
        const std::vector<PendulumState> x = {{0, omega}, {0, 0}};
        const auto k = first_contact(chain, m, 1e-3, x, 100000);
        ASSERT_GT(k, 0u);
        const auto s = safe_free_steps(chain, m, 1e-3, x, 100000);
        std::printf("[lookahead] %s, omega %.1f, gap %.3f: S = %llu, contact at K = %llu\n",
                    std::string(ode_method_name(m)).c_str(), omega, gap,
                    static_cast<unsigned long long>(s), static_cast<unsigned long long>(k));
        EXPECT_LT(s, k);
        if (omega >= 2) {
          EXPECT_GE(2 * s + 2, k);  // fast approach: the bound is nearly exact
        }
      }
    }
  }
}

TEST(LookaheadArguments, AreChecked) {
  const ChainSpec chain{{pendulum_at(0.0), pendulum_at(0.2)}, 1.0, 100};
  const std::vector<PendulumState> one = {{0, 0}};
  EXPECT_THROW(safe_free_steps(chain, OdeMethod::rk4, 1e-3, one, 10), SimulationError);
  const std::vector<PendulumState> two = {{0, 0}, {0, 0}};
  const BobPair no_such_pair[] = {{1, 2}};
  EXPECT_THROW(safe_free_steps(chain, no_such_pair, OdeMethod::rk4, 1e-3, two, 10),
               SimulationError);
  EXPECT_THROW(safe_free_steps(chain, OdeMethod::rk4, 0.0, two, 10), SimulationError);
  // A state that is no longer finite gives no window rather than a wrong one.
  const std::vector<PendulumState> nan = {{std::nan(""), 0}, {0, 0}};
  EXPECT_EQ(safe_free_steps(chain, OdeMethod::rk4, 1e-3, nan, 10), 0u);
}

// The windows the conservative monitor would grant along the real thesis trajectory (the
// sequential reference is bit-identical to every method): a window is granted at m = 0 and
// then at the step after each window, as ConservativeStepper::grant does. Inside a window
// (steps m+1 .. m+S) no pair may even be in contact, let alone receive an impulse.
TEST(LookaheadThesis, NoContactInsideAnyWindowAndFewRounds) {
  const Scenario s = testing::shipped("thesis.toml");
  constexpr std::uint64_t kMaxWindow = 10'000;  // the monitor's default max_window
  SequentialStepper stepper(s);
  ImpactSweep sweep(s.chain);
  std::vector<PendulumState> states = s.initial;
  std::uint64_t rounds = 0, impacts = 0;
  std::uint64_t next_grant = 0, window_end = 0;  // the window: steps .. window_end
  for (std::uint64_t m = 0; m < s.steps; ++m) {
    if (m == next_grant) {
      const std::uint64_t left = s.steps - m - 1;
      const auto free_steps =
          safe_free_steps(s.chain, s.method, s.h, states, std::min(kMaxWindow, left));
      window_end = m + free_steps;
      next_grant = window_end + 1;
      ++rounds;
    }
    const std::uint64_t hits = step_chain(stepper, sweep, m, states);
    impacts += hits;
    if (m + 1 <= window_end) {
      ASSERT_EQ(hits, 0u) << "impulse at step " << m + 1 << " inside a window";
      const auto contact = sweep.first_contact(states);
      ASSERT_FALSE(contact) << "contact of pair (" << contact->i << ", " << contact->j
                            << ") at step " << m + 1 << " inside a window";
    }
  }
  std::printf("[lookahead] thesis.toml: %llu steps, %llu impacts, %llu rounds\n",
              static_cast<unsigned long long>(s.steps), static_cast<unsigned long long>(impacts),
              static_cast<unsigned long long>(rounds));
  EXPECT_GT(impacts, 0u);
  // The magnitude bound needed 2477 rounds. Knowing the first contact in advance would give 238
  // (a window ends before each contact and none starts at one): docs/lookahead.md, "Measured".
  EXPECT_LE(rounds, 250u);
}

}  // namespace
}  // namespace kausal
