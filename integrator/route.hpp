#pragma once
// Where a partition's outputs go (docs/model.md §5): output `output` of the producer,
// sampled every `producer_steps_per_sample` of its steps, feeds channel `channel` of partition
// `consumer`. The producer's Integrator provides those samples to its consumers itself (the
// direct data path, integrator/routing_sink.hpp); the monitor derives the same samples from
// the batches it records (checkpoints, the sequential run).
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "integrator/integrator.hpp"

namespace kausal {

struct Route {
  std::size_t consumer = 0;
  std::size_t channel = 0;
  std::size_t output = 0;
  std::uint64_t producer_steps_per_sample = 1;
};

// The samples a batch of the producer's final steps gives each consumer, in step order.
std::map<std::size_t, std::vector<ChannelSample>> samples_by_consumer(std::span<const Route> routes,
                                                                      const StateBatch& batch);

}  // namespace kausal
