#include "monitor/sync/delivered_steps.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace kausal {

DeliveredSteps::DeliveredSteps(const PartitionedScenario& s, std::vector<std::uint64_t> next)
    : s_(&s), next_(std::move(next)) {}

void DeliveredSteps::take(std::size_t p, const StateBatch& batch) {
  const PartitionSpec& spec = s_->partitions.at(p);
  if (batch.first_step != next_[p])
    throw ProtocolError("integrator-" + spec.name, "delivered step " +
                                                       std::to_string(batch.first_step) +
                                                       ", expected " + std::to_string(next_[p]));
  if (next_[p] + batch.count() > spec.steps + 1)
    throw ProtocolError("integrator-" + spec.name, "delivered steps past the end of the run");
  next_[p] += batch.count();
}

std::uint64_t DeliveredSteps::horizon() const {
  std::uint64_t h = s_->ticks;
  for (std::size_t p = 0; p < next_.size(); ++p)
    h = std::min(h, next_[p] == 0 ? 0 : (next_[p] - 1) * s_->partitions[p].ticks_per_step);
  return h;
}

bool DeliveredSteps::reached(std::vector<std::uint64_t>& ticks) const {
  ticks.resize(next_.size());
  for (std::size_t p = 0; p < next_.size(); ++p) {
    if (next_[p] == 0) return false;
    ticks[p] = (next_[p] - 1) * s_->partitions[p].ticks_per_step;
  }
  return true;
}

}  // namespace kausal
