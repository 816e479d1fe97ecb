#include "monitor/sync/block_horizon.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <string>

#include "common/errors.hpp"
#include "monitor/sync/lookahead.hpp"

namespace kausal {
namespace {

constexpr double kUnitRoundoff = 0x1p-53;

// Affine bounds in B >= |ω_j|: a·B + b. All coefficients are sums of products of
// non-negative numbers.
struct Affine {
  double a, b;
};

// One free step of a pendulum with |sin| <= 1 (docs/lookahead.md §8 Euler, §9 RK4): the bound
// on |ω| after it, on |φ_{j+1} − φ_j| (travel), and on how far RK4's stage angles lie from φ_j
// (stage: h·s4 bounds h/2·w1, h/2·w2 and h·w3). Every `b` is a multiple of g/l: gravity's
// share, which a smaller bound on |sin| scales down.
struct StepBounds {
  Affine omega, travel, stage;
};

StepBounds step_bounds(const PendulumParams& p, OdeMethod method, double h) {
  const double k = std::abs(coefficients_of(p).g_over_l);
  const double c = std::abs(p.damping);
  if (method == OdeMethod::euler) return {{1 + h * c, h * k}, {h, 0}, {0, 0}};
  const double half = 0.5 * h;
  // Stage bounds s_n = a_n·B + b_n.
  const Affine s1{1, 0};
  const Affine s2{1 + half * c * s1.a, half * (k + c * s1.b)};
  const Affine s3{1 + half * c * s2.a, half * (k + c * s2.b)};
  const Affine s4{1 + h * c * s3.a, h * (k + c * s3.b)};
  const double sixth = h / 6;
  const Affine travel{sixth * (s1.a + 2 * s2.a + 2 * s3.a + s4.a),
                      sixth * (s1.b + 2 * s2.b + 2 * s3.b + s4.b)};
  return {{1 + c * travel.a, h * k + c * travel.b}, travel, {h * s4.a, h * s4.b}};
}

// The relative rounding of a computed sum of n non-negative products, and of its root.
double sum_rounding(std::size_t n) {
  return static_cast<double>(n + 8) * 2 * kUnitRoundoff;
}

}  // namespace

BlockHorizon::BlockHorizon(const ChainSpec& chain, OdeMethod method, double h,
                           const ChainBlocks& blocks)
    : chain_(chain),
      method_(method),
      h_(h),
      blocks_(blocks),
      growth_(blocks.size()),
      neighbours_(blocks.size()) {
  for (const PendulumParams& p : chain.pendulums) {
    const double weight = p.mass * p.length * p.length;
    const double gravity = step_bounds(p, method, h).omega.b;
    speed_per_norm_.push_back(1 / std::sqrt(weight) * kLookaheadGrow);
    gravity_share_.push_back(weight * gravity * gravity);
  }
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    Growth& g = growth_[k];
    const std::size_t first = blocks.first(k), last = blocks.last(k);
    g.pendulums = last - first;
    for (std::size_t i = first; i < last; ++i) {
      const StepBounds step = step_bounds(chain.pendulums[i], method, h);
      const double share = gravity_share_[i], speed = speed_per_norm_[i];
      g.grow = std::max(g.grow, step.omega.a * kLookaheadGrow);
      g.gravity += share;
      g.ss += share * speed * speed;
      g.s += share * speed;
      g.travel = std::max(g.travel, step.travel.a);
      g.travel_gravity = std::max(g.travel_gravity, step.travel.b);
      g.stage = std::max(g.stage, step.stage.a);
      g.stage_gravity = std::max(g.stage_gravity, step.stage.b);
    }
  }
  for (const BobPair& p : blocks.cross_pairs) {
    const std::size_t a = blocks.block_of(p.i), b = blocks.block_of(p.j);
    neighbours_[a].push_back(b);
    neighbours_[b].push_back(a);
  }
  for (auto& n : neighbours_) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
}

double BlockHorizon::kinetic_norm(std::size_t k, std::span<const PendulumState> mine) const {
  const std::size_t first = blocks_.first(k);
  double sum = 0;
  for (std::size_t n = 0; n < mine.size(); ++n) {
    const PendulumParams& p = chain_.pendulums[first + n];
    const double speed = p.length * mine[n][1];
    sum += p.mass * speed * speed;
  }
  return std::sqrt(sum) * (1 + sum_rounding(mine.size()));
}

void BlockHorizon::advance(std::size_t k, KineticBound& bound) const {
  const Growth& g = growth_[k];
  // Bob i's angles during step t: |φ| <= α_i + s_i·U + V (docs §17), with
  // U = travel·ΣQ̄ + stage·Q̄(t) and V = travel_gravity·t + stage_gravity.
  const double u = (g.travel * bound.sum + g.stage * bound.q) * (1 + kKineticSlack);
  const double v =
      (g.travel_gravity * static_cast<double>(bound.t) + g.stage_gravity) * (1 + kKineticSlack);
  // Σ w b² (α + s U + V)², expanded; |sin φ| <= min(1, |φ|) bounds gravity's share.
  const double sines = bound.aa + u * u * g.ss + v * v * g.gravity + 2 * u * bound.as +
                       2 * v * bound.a + 2 * u * v * g.s;
  const double gravity = std::sqrt(std::min(sines * (1 + kKineticSlack), g.gravity)) *
                         (1 + sum_rounding(g.pendulums)) * kLookaheadGrow;
  bound.sum += bound.q;
  bound.q = (g.grow * bound.q + gravity) * (1 + kKineticSlack);
  ++bound.t;
}

void BlockHorizon::check_kinetic(Grant& grant, std::size_t k, std::uint64_t step,
                                 double measured) const {
  if (step <= grant.from || step > grant.from + grant.steps[k]) return;
  KineticBound& bound = grant.kinetic[k];
  while (grant.from + bound.t < step) advance(k, bound);
  if (!(measured <= bound.q))
    throw SimulationError(
        block_name(k + 1) + " at step " + std::to_string(step) +
        ": its kinetic energy rose above the bound of the lookahead per boundary (an impact "
        "whose rounding added energy); the guarantee cannot be kept, run with --guarantee "
        "step");
}

void BlockHorizon::windows(std::span<const PendulumState> states, Grant& g,
                           std::uint64_t max_steps) const {
  // Every pair across a boundary in lockstep, k = 0, 1, 2, …: step m+k+1 starts with
  // |ω| <= Q̄(k) / (sqrt(m) l) for every bob of a block (§17), and the pair is safe there
  // while the two bobs' displacements (§7) stay below its gap. A pair that fails at k gives
  // both its blocks at most k.
  struct Open {
    BobPair pair;
    std::size_t a, b;  // their blocks
    double gap;
    DisplacementBound da, db;
  };
  std::vector<Open> open;
  std::vector<char> active(blocks_.size(), 0);  // blocks whose Q̄ an open pair needs
  for (const BobPair& p : blocks_.cross_pairs) {
    const PendulumParams& pi = chain_.pendulums[p.i];
    const PendulumParams& pj = chain_.pendulums[p.j];
    const std::size_t a = blocks_.block_of(p.i), b = blocks_.block_of(p.j);
    const double gap =
        bob_distance(pi, pj, states[p.i].data(), states[p.j].data()) - reach_with_margin(pi, pj);
    if (!(gap > 0)) {  // touching, in contact, or not finite: nothing is safe
      g.steps[a] = g.steps[b] = 0;
      continue;
    }
    if (2 * (pi.length + pj.length) < gap) continue;  // can never reach each other
    open.push_back({p, a, b, gap, DisplacementBound(pi, method_, h_, states[p.i]),
                    DisplacementBound(pj, method_, h_, states[p.j])});
    active[a] = active[b] = 1;
  }
  std::vector<KineticBound> q = g.kinetic;
  std::uint64_t least = *std::min_element(g.steps.begin(), g.steps.end());
  const std::uint64_t count = blocks_.size();
  // No block gets more than the least window plus its distance to that block (grant()), so
  // no pair needs following further than that: a shorter window is safe too.
  std::uint64_t k = 0;
  for (; k < max_steps && !open.empty() && k < least + count; ++k) {
    std::size_t kept = 0;
    for (Open& o : open) {
      const double moved = o.da.next_with(q[o.a].q * speed_per_norm_[o.pair.i]) +
                           o.db.next_with(q[o.b].q * speed_per_norm_[o.pair.j]);
      if (moved < o.gap) {
        open[kept++] = o;
        continue;
      }
      g.steps[o.a] = std::min(g.steps[o.a], k);
      g.steps[o.b] = std::min(g.steps[o.b], k);
      least = std::min(least, k);
    }
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(kept), open.end());
    for (std::size_t n = 0; n < count; ++n)
      if (active[n]) advance(n, q[n]);
  }
  for (const Open& o : open) {  // safe for k steps at least
    g.steps[o.a] = std::min(g.steps[o.a], k);
    g.steps[o.b] = std::min(g.steps[o.b], k);
  }
}

BlockHorizon::Grant BlockHorizon::grant(std::uint64_t m, std::span<const PendulumState> states,
                                        std::uint64_t max_steps) const {
  if (states.size() != chain_.pendulums.size())
    throw SimulationError("lookahead per boundary: " + std::to_string(states.size()) +
                          " states for " + std::to_string(chain_.pendulums.size()) + " pendulums");
  const std::size_t count = blocks_.size();
  Grant g{m, std::vector<std::uint64_t>(count, max_steps), std::vector<KineticBound>(count)};
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t first = blocks_.first(k), last = blocks_.last(k);
    KineticBound& b = g.kinetic[k];
    // Room for the measurement's own rounding at every later check.
    b.q = kinetic_norm(k, states.subspan(first, last - first)) *
          (1 + 4 * sum_rounding(last - first) + kKineticSlack);
    for (std::size_t i = first; i < last; ++i) {
      const double alpha = std::abs(states[i][0]);
      const double share = gravity_share_[i] * alpha;
      b.aa += share * alpha;
      b.as += share * speed_per_norm_[i];
      b.a += share;
    }
    if (!std::isfinite(b.q) || !std::isfinite(b.aa)) g.steps[k] = 0;  // no bound: step by step
  }
  windows(states, g, max_steps);
  // H_a = min(L_a, H_b + 1 over the neighbours b): Dijkstra with edges of length 1.
  using Entry = std::pair<std::uint64_t, std::size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  for (std::size_t k = 0; k < count; ++k) open.emplace(g.steps[k], k);
  while (!open.empty()) {
    const auto [steps, k] = open.top();
    open.pop();
    if (steps != g.steps[k]) continue;  // a shorter one came first
    for (const std::size_t n : neighbours_[k])
      if (steps + 1 < g.steps[n]) open.emplace(g.steps[n] = steps + 1, n);
  }
  return g;
}

}  // namespace kausal
