#pragma once
// The monitor's view of the Integrators, the same for every model kind: the coupling
// algorithms drive them in this process (monitor/deploy/local_deployment) or in other
// processes over CORBA (monitor/deploy/process_deployment) through these ports.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/core/trace_source.hpp"
#include "monitor/sync/batch_inbox.hpp"

namespace kausal {

class PlacedBlocks;       // monitor/sync/block_port.hpp
class PlacedEventGroups;  // monitor/sync/event_run.hpp

// The calls of the Integrator protocol (idl/kausal.idl, interface Integrator).
class IntegratorPort {
 public:
  virtual ~IntegratorPort() = default;
  virtual const std::string& name() const = 0;
  // Steps while below the guarantee (and the inputs allow); the new final steps. An answer
  // may fall short of the guarantee (the Integrator answers after bounded work, and a port
  // that asks again for the rest keeps a failure of that for its next call): asking again
  // gives the rest, or throws what cut the answer short.
  virtual StateBatch advance(std::uint64_t guarantee, std::uint64_t gvt) = 0;
  static constexpr std::uint64_t unreleased = std::numeric_limits<std::uint64_t>::max();
  // From now on the Integrator steps by itself (integrator/worker.hpp) and its batches
  // arrive in the deployment's inbox; paced, only up to state `released` until release().
  virtual void start(std::size_t batch_size, std::uint64_t window,
                     std::uint64_t released = unreleased) = 0;
  // Paced runs: states up to `state` may be computed (never waits for the Integrator).
  virtual void release(std::uint64_t state) = 0;
  virtual void provide(const std::vector<ChannelSample>& samples) = 0;
  // The co-simulation master's inputs over a macro step (Integrator::provide).
  virtual void provide_predictions(const std::vector<ChannelPrediction>& predictions) = 0;
  virtual std::vector<double> apply_event(const Event& event) = 0;
  // A hybrid model's events for the partition's event inputs (Integrator::schedule).
  virtual void schedule(const std::vector<ArrivingEvent>& events) = 0;
  // A partition's model changes from change.from on (sent before it computes past that).
  virtual void change(const ModelChange& change) = 0;
  virtual RollbackResult rollback(std::uint64_t step) = 0;
  virtual void commit(std::uint64_t gvt) = 0;
  virtual IntegratorStats stats() = 0;
};

// The components of a plan (monitor/deploy/deployment_plan.hpp) as placed: its partitions,
// each System configured and each Integrator set up at its first step; its blocks and its
// event groups, ready to be set up through their ports. A deployment whose components can
// die or stop on their own watches them and fails its inbox (and the calls to them) with
// the first that does (BatchInbox::fail).
class Deployment {
 public:
  virtual ~Deployment() = default;
  virtual std::size_t size() const = 0;
  virtual IntegratorPort& integrator(std::size_t i) = 0;
  virtual BatchInbox& inbox() = 0;
  // The plan's blocks and event groups; null when it has none.
  virtual PlacedBlocks* blocks() { return nullptr; }
  virtual PlacedEventGroups* event_groups() { return nullptr; }
  // Timing of every component; one that cannot be reached is marked so, never fatal.
  virtual std::vector<ComponentReport> reports() = 0;
  // The names of its components, in the order of reports() (the live view's strips).
  virtual std::vector<std::string> component_names() const = 0;
  // Where the monitor reads the components' traces as the run goes; none when they run in
  // this process (their reports carry their traces).
  virtual std::vector<TraceSource> trace_sources() { return {}; }
  // After a failure: how the components' processes ended and where their logs are ("" when
  // there are no processes).
  virtual std::string post_mortem() { return {}; }
  // After a completed run: asks the components to end (after a failure the destructor ends
  // them, since a hung one would never answer).
  virtual void shutdown() {}
  // Its components send the activity they record to the live view whose stringified object
  // reference this is, from now on (components in this process: their activity reaches the
  // view through the run's observer).
  virtual void show_activity_in(const std::string& /*view*/) {}
};

}  // namespace kausal
