#include "monitor/sync/block_balance.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "common/sha256.hpp"
#include "integrator/pendulum_block.hpp"

namespace kausal {

std::vector<double> balanced_block_weights(std::size_t blocks, std::size_t lanes,
                                           double digest_share) {
  lanes = std::clamp<std::size_t>(lanes, 1, blocks);
  const double l = static_cast<double>(lanes);
  const double share = std::max(0.0, digest_share);
  // Lane c steps s_c of the chain; the last lane also hashes `share` of it. s_c + [last]·share
  // is the same for every lane, and the s_c add up to 1; unless the last lane's s_c would fall
  // below its floor, where the others share the rest.
  const double floor = 0.1 / l;
  const double last = lanes > 1 ? std::max((1 + share) / l - share, floor) : 1.0;
  const double others = lanes > 1 ? (1 - last) / (l - 1) : 1.0;
  std::vector<double> weights(blocks);
  std::vector<std::size_t> on_lane(lanes, 0);
  for (std::size_t k = 0; k < blocks; ++k) ++on_lane[k % lanes];
  for (std::size_t k = 0; k < blocks; ++k) {
    const std::size_t lane = k % lanes;
    weights[k] = (lane + 1 == lanes ? last : others) / static_cast<double>(on_lane[lane]);
  }
  return weights;
}

namespace {

template <typename Work>
double fastest_of(int rounds, Work work) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < rounds; ++k) {
    const auto begin = std::chrono::steady_clock::now();
    work(k);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

double digest_share(const Scenario& s) {
  const std::size_t m = std::min<std::size_t>(s.pendulums(), 4096);
  if (m == 0) return 0;
  try {
    PendulumBlock block(s.chain, s.method, s.t0(), s.h, 0, m);
    std::vector<PendulumState> states(s.initial.begin(),
                                      s.initial.begin() + static_cast<std::ptrdiff_t>(m));
    std::vector<std::uint32_t> left;
    const double step_s = fastest_of(6, [&](int k) {
      left.clear();
      block.step_own(static_cast<std::uint64_t>(k), states, {}, left);
    });
    Sha256 sha;
    const double hash_s =
        fastest_of(6, [&](int) { sha.update(states.data(), m * sizeof(PendulumState)); });
    return step_s > 0 ? hash_s / step_s : 0;
  } catch (const Error&) {
    return 0;  // the run itself will say what is wrong with the chain
  }
}

}  // namespace kausal
