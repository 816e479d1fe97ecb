#include "monitor/deploy/deployment_plan.hpp"

#include "monitor/sync/block_port.hpp"
#include "monitor/sync/block_stepper.hpp"

namespace kausal {

std::string system_name(std::size_t i) {
  return "system-" + std::to_string(i + 1);
}
std::string integrator_name(std::size_t i) {
  return "integrator-" + std::to_string(i + 1);
}

DeploymentPlan chain_deployment(const Scenario& s, bool rollback_check, const ChainStart* start) {
  DeploymentPlan plan;
  for (std::size_t i = 0; i < s.pendulums(); ++i) {
    const PendulumState& x0 = start ? start->states.at(i) : s.initial[i];
    IntegratorConfig c;
    c.name = integrator_name(i);
    c.method = s.method;
    c.t0 = s.t0();
    c.tick = s.h;
    c.first_step = start ? start->step : 0;
    c.last_step = s.steps;
    c.x0 = vector_of(x0);
    c.coupling_sends_events = true;  // the impacts of the monitor's contact sweep
    c.publish_first_state = false;   // the monitor has every pendulum's first state
    c.rollback_check = rollback_check;
    plan.push_back({system_name(i),
                    c.name,
                    "pendulum-" + std::to_string(i + 1),
                    ModelRecipe{"pendulum", to_parameters(s.chain.pendulums[i])},
                    std::move(c),
                    {}});
  }
  return plan;
}

DeploymentPlan partitioned_deployment(const PartitionedScenario& s,
                                      const PartitionedPlan& partitions) {
  DeploymentPlan plan;
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    const std::string& name = s.partitions[p].name;
    plan.push_back({"system-" + name, partitions.configs[p].name, "pair-" + name,
                    partition_recipe(s, p), partitions.configs[p], partitions.routes[p]});
  }
  return plan;
}

std::vector<BlockPlan> block_deployment(const Scenario& s, std::size_t count, bool rollback_check) {
  check_block_count(count, s.pendulums());
  std::vector<BlockPlan> plan;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t first = block_start(k, count, s.pendulums());
    const std::size_t last = block_start(k + 1, count, s.pendulums());
    plan.push_back({block_name(k + 1), first, last, block_spec(s, first, last, rollback_check)});
  }
  return plan;
}

std::size_t configure(SystemCore& system, const SystemRecipe& recipe) {
  if (const auto* one = std::get_if<ModelRecipe>(&recipe))
    return system.configure(one->model, one->parameters);
  return system.configure(build_composite(system.name(), std::get<CompositeRecipe>(recipe)));
}

}  // namespace kausal
