#include "monitor/sync/port_calls.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "integrator/stepper.hpp"

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

PendulumState send_impulse(IntegratorPort& port, const Scenario& scenario, std::uint64_t step,
                           double impulse, MethodCounters& counters) {
  const Event event{"impulse", step, step_time(scenario.t0(), scenario.h, step), {impulse}};
  const auto x = port.apply_event(event);
  ++counters.monitor_calls;
  counters.bytes += payload_bytes(event) + 8 * x.size();
  return checked_state(port.name(), x);
}

}  // namespace kausal
