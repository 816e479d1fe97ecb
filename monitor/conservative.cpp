#include "monitor/conservative.hpp"

#include <cmath>

#include "integrator/stepper.hpp"
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

ConservativeStepper::ConservativeStepper(Deployment& deployment, double t0, double h,
                                         const std::vector<int>& lane_cpus)
    : deployment_(deployment), fan_(deployment.size(), lane_cpus), t0_(t0), h_(h) {}

void ConservativeStepper::step_all(std::uint64_t m, std::span<PendulumState> states) {
  // Guarantee m + 1: no event can reach any pendulum before step m + 1 is checked. Entries
  // before m are final (conservative runs never roll back), so gvt = m frees them.
  fan_.run([&](std::size_t i) {
    IntegratorPort& port = deployment_.integrator(i);
    const StateBatch batch = port.advance(m + 1, m);
    if (batch.first_step != m + 1 || batch.count() != 1)
      throw ProtocolError(port.name(), "answered guarantee " + std::to_string(m + 1) + " with " +
                                           std::to_string(batch.count()) + " states from step " +
                                           std::to_string(batch.first_step));
    states[i] = checked_state(port.name(), batch.state(0));
  });
  messages_ += states.size();
}

void ConservativeStepper::apply_impulse(std::size_t i, std::uint64_t m, double impulse,
                                        std::span<PendulumState> states) {
  IntegratorPort& port = deployment_.integrator(i);
  const auto x = port.apply_event(Event{"impulse", m, step_time(t0_, h_, m), {impulse}});
  states[i] = checked_state(port.name(), x);
  ++messages_;
}

}  // namespace kausal
