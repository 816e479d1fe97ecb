#pragma once
// The direct data path (docs/architecture.md, "The direct data path"): a worker's sink that
// provides the samples in each final batch to the partitions that consume them and hands the
// batch on to the monitor, which keeps supervision, commits and the record; the samples no
// longer pass through it. The same for every deployment: the servant provides over CORBA,
// the in-process deployment by a direct call.
//
// A consumer in another process gets its calls from a thread of its own, in order
// (integrator/ordered_sender.hpp): the worker waits for no round trip, so an exchange costs
// the way to the consumer only; the monitor then gets a thread too, so that a failure
// reaches it after the batches before it. A provide that fails there is reported to the
// monitor as this Integrator's failure at the batch's first step, naming the consumer;
// later deliveries throw it.
//
// A receiver in this process is called from the worker's thread: such a call costs what a
// function call does (a provide only queues the samples), a thread in between would cost a
// wake-up per exchange. A provide that fails there throws out of deliver(), and the worker
// reports it the same way. Without consumers nobody but the monitor waits for the worker,
// and the two-way delivery keeps the worker within reach of it: batches go to the monitor
// directly.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "integrator/ordered_sender.hpp"
#include "integrator/route.hpp"
#include "integrator/worker.hpp"

namespace kausal {

// Which receivers of a routing sink live in this process.
struct ReceiversHere {
  bool monitor = false;
  std::set<std::size_t> consumers;
};

class RoutingSink final : public BatchSink {
 public:
  // Provides `samples` to partition `consumer` (called from that consumer's sender thread).
  using Provide = std::function<void(std::size_t consumer, const std::vector<ChannelSample>&)>;

  RoutingSink(BatchSink& monitor, std::vector<Route> routes, Provide provide,
              ReceiversHere here = {});
  // Ends the senders; what they still hold is dropped.
  ~RoutingSink() override;

  void deliver(const StateBatch& batch) override;
  // To the monitor, after the batches delivered before it.
  void fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) override;

 private:
  BatchSink& monitor_;
  std::vector<Route> routes_;
  Provide provide_;
  // Null: called from the worker's thread (no consumers, or every receiver here).
  std::unique_ptr<OrderedSender> to_monitor_;
  // Per consumer; null for one here. They post failures to the monitor's.
  std::map<std::size_t, std::unique_ptr<OrderedSender>> to_consumers_;
};

}  // namespace kausal
