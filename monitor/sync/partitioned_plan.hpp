#pragma once
// What each partition's Integrator is configured with, and where each partition's outputs
// go: derived once from a scenario, used by every deployment and the driver.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "integrator/integrator.hpp"
#include "integrator/route.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"

namespace kausal {

struct PartitionedMode {
  bool speculate = false;  // optimistic
  double tolerance = 0;
  // Optimistic: steps a partition may run past its last final step. Small, because a
  // prediction extrapolates further the further ahead it is, and is refused more often.
  std::uint64_t window = 4;
  // Steps a partition takes between deliveries at most.
  std::uint64_t batch_size = 64;
  bool rollback_check = false;  // see IntegratorConfig::rollback_check
};

struct PartitionedPlan {
  PartitionedMode mode;
  std::vector<IntegratorConfig> configs;               // per partition
  std::vector<std::vector<Route>> routes;              // per producer partition
  std::vector<std::vector<std::string>> state_names;   // per partition: "member.state"
  std::vector<std::vector<std::string>> output_names;  // per partition: "member.output"
  // Per partition: why its model's internal state cannot be restored (an FMU without
  // get/set state), or empty. Such a partition cannot be rolled back or resumed.
  std::vector<std::string> unrestorable;
  // A hybrid model: where each of the scenario's event outputs and inputs is among its
  // partition's event ports (IntegratorConfig::ports: outputs, inputs).
  struct PortAt {
    std::size_t partition = 0;
    std::uint32_t index = 0;
  };
  std::vector<PortAt> event_outputs, event_inputs;
};

// InputError (exit 2) when the mode needs rollbacks (optimistic, the rollback check) and a
// partition's model cannot restore its internal state.
PartitionedPlan plan_partitions(const PartitionedScenario& s, const PartitionedMode& mode);

// The ticks where every partition's steps meet (the least common multiple of their steps;
// past 2^40, no boundary within any run).
std::uint64_t common_ticks(const PartitionedPlan& plan);

}  // namespace kausal
