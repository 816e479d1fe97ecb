#pragma once
// What every distributed method does the same way through an IntegratorPort: check the
// states that come back, count the traffic, hand an impulse over as an event.
#include <span>
#include <string>

#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/integrator_port.hpp"

namespace kausal {

// Checks a state that arrived from component `from`: size and finiteness.
PendulumState checked_state(const std::string& from, std::span<const double> x);

// The payload bytes of a batch or an event on the wire (8 per double and per step number).
std::uint64_t payload_bytes(const StateBatch& batch);
std::uint64_t payload_bytes(const Event& event);

// Sends the impact's angular impulse to the Integrator at the step it stands at, which
// passes it to its System; returns the new state and counts request and reply.
PendulumState send_impulse(IntegratorPort& port, const Scenario& scenario, std::uint64_t step,
                           double impulse, MethodCounters& counters);

}  // namespace kausal
