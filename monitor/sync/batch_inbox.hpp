#pragma once
// Where the states that optimistic Integrators push arrive, whatever thread or process they
// come from; the monitor takes them in its own thread.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>

#include "integrator/integrator.hpp"

namespace kausal {

struct InboxItem {
  std::size_t source = 0;      // pendulum index
  StateBatch batch;            // empty when failure is set
  std::exception_ptr failure;  // the source could not compute failed_step in batch.epoch
  std::uint64_t failed_step = 0;
};

class BatchInbox {
 public:
  void push(InboxItem item);
  // A failure that ends the run (a component missed its heartbeat): from now on pop()
  // throws it, at once if it is waiting.
  void fail(std::exception_ptr failure);
  // The oldest item, or nothing after `timeout`.
  std::optional<InboxItem> pop(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<InboxItem> items_;
  std::exception_ptr failure_;
};

}  // namespace kausal
