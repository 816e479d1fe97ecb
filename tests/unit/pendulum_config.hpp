#pragma once
// The configuration of one chain pendulum's Integrator, as chain_deployment makes it, for
// tests that step an Integrator by hand.
#include <limits>
#include <string>
#include <vector>

#include "integrator/integrator.hpp"

namespace kausal::testing {

inline IntegratorConfig pendulum_config(
    const std::string& name, OdeMethod method, double h, std::vector<double> x0,
    std::uint64_t last_step = std::numeric_limits<std::uint64_t>::max()) {
  IntegratorConfig c;
  c.name = name;
  c.method = method;
  c.tick = h;
  c.last_step = last_step;
  c.x0 = Eigen::Map<const Vector>(x0.data(), static_cast<Eigen::Index>(x0.size()));
  c.coupling_sends_events = true;
  c.publish_first_state = false;
  return c;
}

}  // namespace kausal::testing
