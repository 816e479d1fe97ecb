#pragma once
// The direct data path (docs/architecture.md, "The direct data path"): a worker's sink that
// provides the samples in each final batch to the partitions that consume them and hands the
// batch on to the monitor, which keeps supervision, commits and the record; the samples no
// longer pass through it. The same for every deployment: the servant provides over CORBA,
// the in-process deployment by a direct call.
//
// With consumers, every call goes out from a thread of its own per receiver, in order
// (integrator/ordered_sender.hpp): the worker waits for no round trip, so an exchange costs
// the way to the consumer only. A provide that fails is reported to the monitor as this
// Integrator's failure at the batch's first step, naming the consumer; later deliveries
// throw it. Without consumers nobody but the monitor waits for the worker, and the two-way
// delivery keeps the worker within reach of it: batches go to the monitor directly.
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "integrator/ordered_sender.hpp"
#include "integrator/route.hpp"
#include "integrator/worker.hpp"

namespace kausal {

class RoutingSink final : public BatchSink {
 public:
  // Provides `samples` to partition `consumer` (called from that consumer's sender thread).
  using Provide = std::function<void(std::size_t consumer, const std::vector<ChannelSample>&)>;

  RoutingSink(BatchSink& monitor, std::vector<Route> routes, Provide provide);
  // Ends the senders; what they still hold is dropped.
  ~RoutingSink() override;

  void deliver(const StateBatch& batch) override;
  // To the monitor, after the batches delivered before it.
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override;

 private:
  BatchSink& monitor_;
  std::vector<Route> routes_;
  Provide provide_;
  std::unique_ptr<OrderedSender> to_monitor_;  // null without consumers
  std::map<std::size_t, std::unique_ptr<OrderedSender>>
      to_consumers_;  // they post to the monitor's
};

}  // namespace kausal
