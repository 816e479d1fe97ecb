#include "integrator/route.hpp"

namespace kausal {

std::map<std::size_t, std::vector<ChannelSample>> samples_by_consumer(std::span<const Route> routes,
                                                                      const StateBatch& batch) {
  std::map<std::size_t, std::vector<ChannelSample>> out;
  for (const Route& r : routes)
    for (std::size_t k = 0; k < batch.count(); ++k) {
      const std::uint64_t step = batch.first_step + k;
      if (step % r.producer_steps_per_sample != 0) continue;
      out[r.consumer].push_back({r.channel, step / r.producer_steps_per_sample,
                                 batch.outputs[k * batch.output_size + r.output]});
    }
  return out;
}

}  // namespace kausal
