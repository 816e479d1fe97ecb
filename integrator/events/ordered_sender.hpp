#pragma once
// Hands one group's messages for one peer to `deliver` on a thread of its own, in the order
// they were sent, so that the group does not wait for the peer (over CORBA a delivery is a
// round trip of about 100 µs). What the group sends while a delivery is on its way is
// coalesced into the next one: the slower the link, the larger the batches. A delivery
// that fails (a dead peer) is kept and thrown to the group at its next send.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "integrator/events/group_message.hpp"

namespace kausal::des {

class OrderedSender {
 public:
  using Deliver = std::function<void(std::vector<GroupMessage>& batch)>;
  explicit OrderedSender(Deliver deliver);
  // Delivers what is queued (unless a delivery failed), then ends the thread.
  ~OrderedSender();
  OrderedSender(const OrderedSender&) = delete;
  OrderedSender& operator=(const OrderedSender&) = delete;

  // Queues `batch` (and empties it); throws what an earlier delivery threw.
  void send(std::vector<GroupMessage>& batch);
  std::uint64_t deliveries() const;

 private:
  void run();

  Deliver deliver_;
  mutable std::mutex mutex_;
  std::condition_variable queued_;
  std::vector<GroupMessage> queue_;
  bool closing_ = false;
  std::exception_ptr failure_;
  std::uint64_t deliveries_ = 0;
  std::thread thread_;  // last: it uses everything above
};

}  // namespace kausal::des
