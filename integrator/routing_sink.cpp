#include "integrator/routing_sink.hpp"

#include "common/request_limits.hpp"

namespace kausal {

RoutingSink::RoutingSink(BatchSink& monitor, std::vector<Route> routes, Provide provide,
                         ReceiversHere here)
    : monitor_(monitor), routes_(std::move(routes)), provide_(std::move(provide)) {
  bool any_away = false;
  for (const Route& r : routes_) {
    if (to_consumers_.contains(r.consumer)) continue;
    const bool away = !here.consumers.contains(r.consumer);
    to_consumers_.emplace(r.consumer,
                          away ? std::make_unique<OrderedSender>(limits::reply_bytes) : nullptr);
    any_away = any_away || away;
  }
  if (any_away || (!routes_.empty() && !here.monitor))
    to_monitor_ = std::make_unique<OrderedSender>(limits::reply_bytes);
}

RoutingSink::~RoutingSink() {
  to_consumers_.clear();  // first: they post to the monitor's sender
  to_monitor_.reset();
}

void RoutingSink::deliver(const StateBatch& batch) {
  const std::uint32_t epoch = batch.epoch;
  const std::uint64_t step = batch.first_step;
  for (auto& [to, to_provide] : samples_by_consumer(routes_, batch)) {
    OrderedSender* sender = to_consumers_.at(to).get();
    if (!sender) {
      provide_(to, to_provide);  // here; what it throws the worker reports
      continue;
    }
    const std::uint64_t bytes = 24 * to_provide.size();
    // (Captured by new names: clang 14 cannot capture a structured binding.)
    sender->post(
        [this, consumer = to, samples = std::move(to_provide), epoch, step] {
          try {
            provide_(consumer, samples);
          } catch (...) {
            fail(std::current_exception(), epoch, step);
            throw;
          }
        },
        bytes);
  }
  if (!to_monitor_) {
    monitor_.deliver(batch);
    return;
  }
  const std::uint64_t bytes = 8 * (batch.states.size() + batch.outputs.size());
  to_monitor_->post([this, batch] { monitor_.deliver(batch); }, bytes);
}

void RoutingSink::fail(std::exception_ptr error, std::uint32_t epoch, std::uint64_t step) {
  if (!to_monitor_) {
    monitor_.fail(error, epoch, step);
    return;
  }
  to_monitor_->post([this, error, epoch, step] { monitor_.fail(error, epoch, step); }, 0);
}

}  // namespace kausal
