#pragma once
// What a run places, the same for every model kind: its components, each by name. Per
// partition a System configured with a recipe and the Integrator that steps it, configured
// with its IntegratorConfig (a pendulum of the chain is one partition); a chain's blocks of
// pendulums; a discrete-event run's groups. The platform places a plan in one call
// (RunPlatform::place: local_deployment in this process; process_deployment as processes,
// in a layout, on nodes); the coupling algorithm drives the result through its ports.
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "integrator/block_core.hpp"
#include "integrator/integrator.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
#include "monitor/sync/event_run.hpp"
#include "monitor/sync/partitioned_plan.hpp"
#include "system/composite_model.hpp"
#include "system/system_core.hpp"

namespace kausal {

// One registered model with its parameters (a chain pendulum).
struct ModelRecipe {
  std::string model;
  Parameters parameters;
};
// What a System is configured with: one model, or a composite of members (a partition).
using SystemRecipe = std::variant<ModelRecipe, CompositeRecipe>;

struct PartitionPlan {
  std::string system;      // "system-1", "system-turbine"
  std::string integrator;  // "integrator-1", "integrator-turbine"
  std::string process;     // the process hosting both in the pendulum layout
  SystemRecipe recipe;
  IntegratorConfig config;  // config.name == integrator
  // Where its outputs go (Route::consumer indexes the plan). Once started, its Integrator
  // provides these samples to the consumers itself (integrator/routing_sink.hpp).
  std::vector<Route> routes;
};
// The System + Integrator pairs of a plan.
using DeploymentPlan = std::vector<PartitionPlan>;

// A block of a chain's pendulums as a component of its own (--layout block-processes:K).
struct BlockPlan {
  std::string name;                 // "block-1"
  std::size_t first = 0, last = 0;  // the chain's pendulums first .. last − 1
  BlockSpec spec;                   // what it is set up with
};

// The model as a discrete-event run's groups build it (by name, from the registry) and as
// the monitor knows it.
struct EventModelSource {
  const des::EventModel& built;
  std::string name;
  std::map<std::string, double> parameters;
};
// A discrete-event run's groups as components of their own (named event-group-0, ...; the
// layout process), set up for each stretch as `spec` says.
struct EventGroupsPlan {
  EventModelSource model;
  EventRunSpec spec;
};

// Every component one run places, whatever its kind: a continuous model's pairs, a chain's
// blocks, an event run's groups (a plan may hold several of these).
struct ComponentPlan {
  DeploymentPlan pairs{};
  std::vector<BlockPlan> blocks{};
  std::optional<EventGroupsPlan> event_groups{};
  bool empty() const { return pairs.empty() && blocks.empty() && !event_groups; }
};

// One partition per pendulum, starting at `start` (a resumed run) or step 0.
DeploymentPlan chain_deployment(const Scenario& s, bool rollback_check,
                                const ChainStart* start = nullptr);
// One partition per partition of the plan.
DeploymentPlan partitioned_deployment(const PartitionedScenario& s, const PartitionedPlan& plan);

// The chain's pendulums in `count` blocks (block_start), each checked to take every step
// twice if rollback_check (PendulumBlock).
std::vector<BlockPlan> block_deployment(const Scenario& s, std::size_t count, bool rollback_check);

// Configures `system` as the recipe says; returns the state size.
std::size_t configure(SystemCore& system, const SystemRecipe& recipe);

// The names every deployment gives the components of pendulum i (0-based index).
std::string system_name(std::size_t i);
std::string integrator_name(std::size_t i);

}  // namespace kausal
