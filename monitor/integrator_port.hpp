#pragma once
// The monitor's view of the components: the same algorithms drive Integrators in this
// process (local_deployment) or in other processes over CORBA (process_deployment).
#include <cstdint>
#include <string>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/run_result.hpp"

namespace kausal {

class IntegratorPort {
 public:
  virtual ~IntegratorPort() = default;
  virtual const std::string& name() const = 0;
  virtual StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) = 0;
  virtual std::vector<double> apply_event(const Event& event) = 0;
};

// One Integrator (with its System) per pendulum, ready to step from step 0.
class Deployment {
 public:
  virtual ~Deployment() = default;
  virtual std::size_t size() const = 0;
  virtual IntegratorPort& integrator(std::size_t i) = 0;
  // Timing of every component; one that cannot be reached is marked so, never fatal.
  virtual std::vector<ComponentReport> reports() = 0;
};

}  // namespace kausal
