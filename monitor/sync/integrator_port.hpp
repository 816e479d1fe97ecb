#pragma once
// The monitor's view of the components: the same algorithms drive Integrators in this
// process (local_deployment) or in other processes over CORBA (process_deployment).
#include <cstdint>
#include <string>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/run/run_result.hpp"
#include "monitor/sync/batch_inbox.hpp"

namespace kausal {

class IntegratorPort {
 public:
  virtual ~IntegratorPort() = default;
  virtual const std::string& name() const = 0;
  // Conservative: step while below the guarantee; the states of every step taken.
  virtual StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) = 0;
  virtual std::vector<double> apply_event(const Event& event) = 0;
  // Optimistic (see integrator/run_ahead.hpp): from now on the Integrator steps by itself
  // and its batches arrive in the deployment's inbox.
  virtual void run_ahead(std::size_t batch_size, std::uint64_t window, std::uint64_t last_step) = 0;
  virtual RollbackResult rollback(std::uint64_t step) = 0;
  virtual void commit(std::uint64_t gvt) = 0;
};

// One Integrator (with its System) per pendulum, ready to step from step 0. A deployment
// whose components can die or stop on their own watches them and fails its inbox with the
// first that does (BatchInbox::fail).
class Deployment {
 public:
  virtual ~Deployment() = default;
  virtual std::size_t size() const = 0;
  virtual IntegratorPort& integrator(std::size_t i) = 0;
  virtual BatchInbox& inbox() = 0;
  // Timing of every component; one that cannot be reached is marked so, never fatal.
  virtual std::vector<ComponentReport> reports() = 0;
};

}  // namespace kausal
