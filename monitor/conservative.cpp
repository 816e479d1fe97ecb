#include "monitor/conservative.hpp"

#include <cmath>

#include "integrator/stepper.hpp"
#include "monitor/lookahead.hpp"
#include "system/errors.hpp"

namespace kausal {

PendulumState checked_state(const std::string& from, std::span<const double> x) {
  if (x.size() != pendulum_state_size)
    throw ProtocolError(from, "sent a state of " + std::to_string(x.size()) + " values, expected " +
                                  std::to_string(pendulum_state_size));
  for (double v : x)
    if (!std::isfinite(v)) throw ModelError(from, "sent a non-finite state");
  return {x[0], x[1]};
}

std::uint64_t payload_bytes(const StateBatch& batch) {
  return 8 * (batch.states.size() + 3);
}
std::uint64_t payload_bytes(const Event& event) {
  return 8 * (event.data.size() + 2);
}

ConservativeStepper::ConservativeStepper(Deployment& deployment, const Scenario& scenario,
                                         const ConservativeOptions& options)
    : deployment_(deployment),
      scenario_(scenario),
      options_(options),
      fan_(deployment.size(), options.lane_cpus),
      window_(deployment.size()) {}

void ConservativeStepper::grant(std::uint64_t m, std::span<const PendulumState> states) {
  std::uint64_t free_steps = 0;
  if (options_.guarantee == Guarantee::lookahead) {
    const std::uint64_t left = scenario_.steps - m - 1;
    free_steps = safe_free_steps(scenario_.chain, scenario_.method, scenario_.h, states,
                                 std::min(options_.max_window, left));
  }
  // No impact can happen at steps m+1 .. m+free_steps: everyone may compute up to the
  // step after them, whose impacts are checked as usual. Entries before m are final
  // (conservative runs never roll back), so gvt = m frees them.
  const std::uint64_t guarantee = m + 1 + free_steps;
  fan_.run([&](std::size_t i) {
    IntegratorPort& port = deployment_.integrator(i);
    StateBatch batch = port.advance(guarantee, m);
    if (batch.first_step != m + 1 || batch.count() != free_steps + 1 ||
        batch.state_size != pendulum_state_size)
      throw ProtocolError(port.name(), "answered guarantee " + std::to_string(guarantee) +
                                           " with " + std::to_string(batch.count()) +
                                           " states from step " + std::to_string(batch.first_step));
    window_[i] = std::move(batch);
  });
  window_first_ = m + 1;
  guarantee_ = guarantee;
  ++counters_.rounds;
  counters_.messages += 2 * deployment_.size();  // request and reply
  for (const auto& b : window_) counters_.bytes += 16 + payload_bytes(b);
}

void ConservativeStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  if (m + 1 > guarantee_ || m + 1 < window_first_) grant(m, states);
  const std::size_t k = m + 1 - window_first_;
  for (std::size_t i = 0; i < states.size(); ++i)
    states[i] = checked_state(deployment_.integrator(i).name(), window_[i].state(k));
}

bool ConservativeStepper::guaranteed_impact_free(std::uint64_t s) const {
  return s >= window_first_ && s < guarantee_;
}

void ConservativeStepper::apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                                        std::span<PendulumState> states) {
  IntegratorPort& port = deployment_.integrator(i);
  const Event event{"impulse", m, step_time(scenario_.t0(), scenario_.h, m), {impulse}};
  const auto x = port.apply_event(event);
  states[i] = checked_state(port.name(), x);
  counters_.messages += 2;
  counters_.bytes += payload_bytes(event) + 8 * x.size();
}

}  // namespace kausal
