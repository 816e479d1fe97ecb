#include "monitor/sync/conservative.hpp"

#include "common/errors.hpp"
#include "monitor/sync/lookahead.hpp"
#include "monitor/sync/port_calls.hpp"

namespace kausal {

ConservativeStepper::ConservativeStepper(Deployment& deployment, const Scenario& scenario,
                                         const ConservativeOptions& options)
    : deployment_(deployment),
      scenario_(scenario),
      options_(options),
      fan_(deployment.size(), options.lane_cpus),
      window_(deployment.size()) {
  if (options.guarantee == Guarantee::lookahead)
    pairs_within_reach_ = pairs_within_reach(scenario.chain);
}

void ConservativeStepper::grant(std::uint64_t m, std::span<const PendulumState> states) {
  CallScope call(calls_, {ActivityCall::grant, m + 1});
  std::uint64_t free_steps = 0;
  if (options_.guarantee == Guarantee::lookahead) {
    std::uint64_t left = scenario_.steps - m - 1;
    // (The driver waited for step m's release: the clock has released state m + 1.)
    if (options_.releases) {
      const std::uint64_t released = options_.releases->released();
      left = std::min(left, released - std::min(released, m + 1));
    }
    free_steps = safe_free_steps(scenario_.chain, pairs_within_reach_, scenario_.method,
                                 scenario_.h, states, std::min(options_.max_window, left));
  }
  // No impact can happen at steps m+1 .. m+free_steps: everyone may compute up to the
  // step after them, whose impacts are checked as usual. Entries before m are final
  // (conservative runs never roll back), so gvt = m frees them.
  const std::uint64_t guarantee = m + 1 + free_steps;
  fan_.run([&](std::size_t i) {
    IntegratorPort& port = deployment_.integrator(i);
    StateBatch batch = port.advance(guarantee, m);
    // A short answer holds the steps taken before a continuation of the advance failed; the
    // port keeps that failure for its next call, which throws it (a System that stopped
    // answering, say: the run's failure is that, not a protocol violation of its Integrator).
    if (batch.first_step == m + 1 && batch.count() < free_steps + 1) port.advance(guarantee, m);
    if (batch.first_step != m + 1 || batch.count() != free_steps + 1 ||
        batch.state_size != pendulum_state_size)
      throw ProtocolError(port.name(), "answered guarantee " + std::to_string(guarantee) +
                                           " with " + std::to_string(batch.count()) +
                                           " states from step " + std::to_string(batch.first_step));
    window_[i] = std::move(batch);
  });
  window_first_ = m + 1;
  guarantee_ = guarantee;
  if (observer_) {
    granted_.assign(deployment_.size(), guarantee);
    observer_->horizon(guarantee, granted_);
  }
  ++counters_.rounds;
  counters_.monitor_calls += deployment_.size();  // one advance per Integrator
  for (const auto& b : window_) counters_.bytes += 16 + payload_bytes(b);
}

void ConservativeStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  if (m + 1 > guarantee_) grant(m, states);  // the current guarantee is used up
  const std::size_t k = m + 1 - window_first_;
  for (std::size_t i = 0; i < states.size(); ++i)
    states[i] = checked_state(deployment_.integrator(i).name(), window_[i].state(k));
}

bool ConservativeStepper::guaranteed_impact_free(std::uint64_t s) const {
  return s >= window_first_ && s < guarantee_;
}

void ConservativeStepper::apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                                        std::span<PendulumState> states) {
  states[i] = send_impulse(deployment_.integrator(i), scenario_, m, impulse, counters_);
}

}  // namespace kausal
