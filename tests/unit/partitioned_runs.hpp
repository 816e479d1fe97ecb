#pragma once
// A partitioned scenario run in this process, sequential or distributed over a
// LocalDeployment, with its recorded rows: what the tests of partitioned models compare.
#include <vector>

#include "monitor/deploy/local_deployment.hpp"
#include "monitor/sync/partitioned_driver.hpp"

namespace kausal::testing {

struct Outcome {
  RunResult result;
  std::vector<std::vector<double>> rows;  // t, then every partition's states
};

inline Outcome sequential(const PartitionedScenario& s) {
  const PartitionedPlan plan = plan_partitions(s, {});
  PartitionedRecorder recorder("", s, plan, true);
  RunControl control;
  RunResult r = run_partitioned_sequential(s, plan, recorder, control);
  return {r, recorder.rows()};
}

inline Outcome distributed(const PartitionedScenario& s, const PartitionedMode& mode) {
  const PartitionedPlan plan = plan_partitions(s, mode);
  PartitionedRecorder recorder("", s, plan, true);
  RunControl control;
  LocalDeployment deployment(partitioned_deployment(s, plan));
  RunResult r = run_partitioned_distributed(
      s, mode.speculate ? SyncMethod::optimistic : SyncMethod::conservative, plan, deployment,
      recorder, control);
  return {r, recorder.rows()};
}

}  // namespace kausal::testing
