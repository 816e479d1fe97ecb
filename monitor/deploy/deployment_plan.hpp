#pragma once
// What a run deploys, the same for every model kind: per partition a System configured with
// a recipe and the Integrator that steps it, configured with its IntegratorConfig, and the
// names they go by. A deployment places a plan (local_deployment: in this process;
// process_deployment: as processes, in a layout, on nodes); the coupling algorithm drives
// the result through its ports. A pendulum of the chain is one partition.
#include <string>
#include <variant>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/sync/chain_stepper.hpp"
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
using DeploymentPlan = std::vector<PartitionPlan>;

// One partition per pendulum, starting at `start` (a resumed run) or step 0.
DeploymentPlan chain_deployment(const Scenario& s, bool rollback_check,
                                const ChainStart* start = nullptr);
// One partition per partition of the plan.
DeploymentPlan partitioned_deployment(const PartitionedScenario& s, const PartitionedPlan& plan);

// Configures `system` as the recipe says; returns the state size.
std::size_t configure(SystemCore& system, const SystemRecipe& recipe);

// The names every deployment gives the components of pendulum i (0-based index).
std::string system_name(std::size_t i);
std::string integrator_name(std::size_t i);

}  // namespace kausal
