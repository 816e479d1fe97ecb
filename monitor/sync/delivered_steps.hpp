#pragma once
// How far the final steps of every partition have come: the step each must deliver next and
// the horizon, the last tick every partition has made final (a partitioned run's committed
// position). The couplings of partitions keep one, the recorder another.
#include <cstdint>
#include <span>
#include <vector>

#include "integrator/integrator.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"

namespace kausal {

class DeliveredSteps {
 public:
  // Nothing delivered yet: every partition's next step is `next` (0, or where a resumed
  // run continues: the step after its checkpoint's).
  DeliveredSteps(const PartitionedScenario& s, std::vector<std::uint64_t> next);

  // Partition p's batch, in order: ProtocolError naming the partition if it does not
  // continue p's steps or reaches past the end of the run.
  void take(std::size_t p, const StateBatch& batch);
  // The step partition p delivers next (the steps delivered of it).
  std::uint64_t next(std::size_t p) const { return next_[p]; }
  std::span<const std::uint64_t> next() const { return next_; }
  // The last tick every partition has made final (0 before each has a step).
  std::uint64_t horizon() const;
  // Per partition, the tick of its last final step; false while one has none yet.
  bool reached(std::vector<std::uint64_t>& ticks) const;

 private:
  const PartitionedScenario* s_;
  std::vector<std::uint64_t> next_;
};

}  // namespace kausal
