#pragma once
// Calls to one receiver, made in order from a thread of its own, so that the thread that
// posts them (an Integrator's worker) does not wait for round trips. The direct data path
// gives each consumer of a partition one and the monitor one (integrator/routing_sink.hpp):
// a worker then waits for no network at all, and an exchange of samples costs the way there,
// not a round trip to the consumer and another to the monitor.
//
// At most `budget_bytes` of posted calls wait (a caller that outruns its receiver waits for
// room; a call larger than the budget goes alone). A call that throws breaks the sender:
// every later post() throws that failure, and nothing more is sent.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace kausal {

class OrderedSender {
 public:
  using Call = std::function<void()>;
  explicit OrderedSender(std::uint64_t budget_bytes);
  // Ends the thread after the call in progress; calls still waiting are dropped (a run
  // that completed needs none of them: it waited for what it needed).
  ~OrderedSender();
  OrderedSender(const OrderedSender&) = delete;
  OrderedSender& operator=(const OrderedSender&) = delete;

  // Queues `call`, whose payload counts `bytes` against the budget.
  void post(Call call, std::uint64_t bytes);

 private:
  struct Posted {
    Call call;
    std::uint64_t bytes;
  };
  void run();

  std::uint64_t budget_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Posted> queue_;
  std::uint64_t queued_bytes_ = 0;  // waiting and in progress
  std::exception_ptr broken_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is there
};

}  // namespace kausal
