#pragma once
// The direct data path (docs/architecture.md, "Where samples go"): a worker's sink that
// first provides the samples in each final batch to the partitions that consume them, then
// hands the batch on to the monitor. The monitor keeps supervision, commits and the record;
// the samples no longer wait for it. The same for every deployment: the servant provides
// over CORBA, the in-process deployment by a direct call.
#include <functional>
#include <vector>

#include "integrator/route.hpp"
#include "integrator/worker.hpp"

namespace kausal {

class RoutingSink final : public BatchSink {
 public:
  // Provides `samples` to partition `consumer`; throws what the consumer or the way to it
  // throws (the worker reports it as its failure at the batch's first step).
  using Provide = std::function<void(std::size_t consumer, const std::vector<ChannelSample>&)>;

  RoutingSink(BatchSink& monitor, std::vector<Route> routes, Provide provide)
      : monitor_(monitor), routes_(std::move(routes)), provide_(std::move(provide)) {}

  // Consumers first: they are who waits for the batch; the monitor only records it.
  void deliver(const StateBatch& batch) override {
    for (const auto& [consumer, samples] : samples_by_consumer(routes_, batch))
      provide_(consumer, samples);
    monitor_.deliver(batch);
  }
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override {
    monitor_.fail(error, epoch, step);
  }

 private:
  BatchSink& monitor_;
  std::vector<Route> routes_;
  Provide provide_;
};

}  // namespace kausal
