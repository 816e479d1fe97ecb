#include "monitor/sync/block_stepper.hpp"

#include <algorithm>
#include <numeric>

#include "common/errors.hpp"

namespace kausal {

std::size_t block_start(std::size_t k, std::size_t blocks, std::size_t n) {
  // k <= kMaxBlocks and n <= kMaxPendulums: the product fits easily.
  return static_cast<std::size_t>(static_cast<std::uint64_t>(k) * n / blocks);
}

std::vector<std::size_t> block_starts(std::size_t blocks, std::size_t n,
                                      std::span<const double> weights) {
  std::vector<std::size_t> starts;
  if (weights.empty()) {
    for (std::size_t k = 0; k <= blocks; ++k) starts.push_back(block_start(k, blocks, n));
    return starts;
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  double sum = 0;
  starts.push_back(0);
  for (std::size_t k = 1; k < blocks; ++k) {
    sum += weights[k - 1];
    // At least one pendulum for this block and for each after it.
    const auto at = static_cast<std::size_t>(sum / total * static_cast<double>(n));
    starts.push_back(std::clamp(at, starts.back() + 1, n - (blocks - k)));
  }
  starts.push_back(n);
  return starts;
}

std::string block_name(std::size_t k) {
  return "block-" + std::to_string(k);
}

void check_block_count(std::size_t blocks, std::size_t pendulums) {
  if (blocks < 1 || blocks > pendulums)
    throw InputError("--layout blocks:" + std::to_string(blocks) + " for " +
                     std::to_string(pendulums) +
                     " pendulums: a chain has at most one block per pendulum");
}

namespace {

std::size_t checked_count(std::size_t blocks, std::size_t pendulums) {
  check_block_count(blocks, pendulums);
  return blocks;
}

}  // namespace

ChainBlocks::ChainBlocks(const Scenario& scenario, std::size_t count, const BlockPorts& ports,
                         bool rollback_check, std::span<const double> weights)
    : pendulums(scenario.pendulums()),
      starts(block_starts(checked_count(count, scenario.pendulums()), pendulums, weights)),
      clocks(count),
      edges(count) {
  for (std::size_t k = 0; k < count; ++k)
    blocks.push_back(ports ? ports(k, first(k), last(k))
                           : std::make_unique<LocalBlockPort>(
                                 scenario.chain, scenario.method, scenario.t0(), scenario.h,
                                 first(k), last(k), kLaneStretchCalcs, rollback_check));
  for (const BobPair& p : pairs_within_reach(scenario.chain)) {
    const std::size_t a = block_of(p.i), b = block_of(p.j);
    if (a == b) continue;
    cross_pairs.push_back(p);
    edges[a].push_back(p.i);
    edges[b].push_back(p.j);
  }
  for (auto& e : edges) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
}

std::size_t ChainBlocks::block_of(std::size_t i) const {
  // The last k with starts[k] <= i (starts.back() is the chain's end).
  const auto after = std::upper_bound(starts.begin(), starts.end() - 1, i);
  return static_cast<std::size_t>(after - starts.begin()) - 1;
}

std::uint64_t ChainBlocks::step(std::size_t k, std::uint64_t m, std::span<PendulumState> states,
                                std::vector<std::uint32_t>& left) {
  const std::uint64_t impacts = blocks[k]->step(m, of(k, states), edges[k], left);
  book(k, ActivityClock::Clock::now(), {ActivityCall::advance, m + 1});
  return impacts;
}

void ChainBlocks::book(std::size_t k, ActivityClock::Clock::time_point end, SpanTag tag) {
  clocks[k].add(ActivityKind::busy, end - blocks[k]->computed(), end, tag);
}

std::vector<ComponentReport> ChainBlocks::reports() const {
  std::vector<ComponentReport> reports;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const ActivityTrace& trace = clocks[k].trace();
    BlockPlace place = blocks[k]->place();
    ComponentReport r{block_name(k + 1),
                      ComponentRole::block,
                      std::move(place.host),
                      place.pid,
                      true,
                      clocks[k].totals(),
                      place.cpu,
                      trace.page(0, trace.recorded()),
                      trace.dropped(),
                      std::move(place.node)};
    r.totals.calc_calls = blocks[k]->calc_calls();
    reports.push_back(std::move(r));
  }
  return reports;
}

MethodCounters BlockedChainStepper::counters() const {
  MethodCounters c = counters_;
  for (const auto& block : parts_.blocks) {
    c.wasted_calc_calls += block->discarded_calc_calls();
    c.monitor_calls += block->calls();
    c.bytes += block->bytes();
  }
  return c;
}

void BlockedChainStepper::kick(std::size_t i, double impulse,
                               std::span<PendulumState> states) const {
  apply_pendulum_impulse(scenario_.chain.pendulums.at(i), impulse, states[i].data());
}

BlockStepper::BlockStepper(const Scenario& scenario, const BlockOptions& options)
    : BlockedChainStepper(scenario, options.blocks, options.ports, options.rollback_check,
                          options.weights),
      fan_(options.blocks, options.lane_cpus),
      left_per_block_(options.blocks),
      impacts_per_block_(options.blocks) {}

void BlockStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  {
    CallScope call(calls_, {ActivityCall::grant, m + 1});
    fan_.run([&](std::size_t k) {
      left_per_block_[k].clear();
      impacts_per_block_[k] = parts_.step(k, m, states, left_per_block_[k]);
    });
  }
  // Blocks hold ascending ranges: their lists in block order are ascending.
  left_.clear();
  impacts_inside_ = 0;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    left_.insert(left_.end(), left_per_block_[k].begin(), left_per_block_[k].end());
    impacts_inside_ += impacts_per_block_[k];
  }
  // (No horizon for the observer: step by step, it is always the step being committed.)
  ++counters_.rounds;
}

}  // namespace kausal
