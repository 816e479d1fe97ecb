#pragma once
// The GroupTransport of an event group in a process of its own (docs/events.md): messages to
// other groups leave through `send_out` (over CORBA, a call to the peer's deliver), messages
// from them arrive through deliver() on the ORB's threads. The deadlock watch runs in the
// monitor, which polls status() of every group twice and compares the counts: a group that
// was blocked at both looks, with no message sent or taken anywhere in between and every
// message sent also taken, has been blocked all along (the four-counter method).
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "integrator/events/deadlock_watch.hpp"
#include "integrator/events/group_transport.hpp"
#include "integrator/events/mailbox.hpp"

namespace kausal::des {

class PeerExchange final : public GroupTransport {
 public:
  using Sender = std::function<void(GroupId to, std::vector<GroupMessage>& batch)>;
  // `spin`: see Mailbox::take (none when the groups outnumber this host's CPUs).
  PeerExchange(GroupId self, Sender send_out, std::chrono::microseconds spin);

  void send(GroupId to, std::vector<GroupMessage>& batch) override;
  double receive(GroupId self, std::vector<GroupMessage>& into,
                 std::chrono::microseconds wait) override;
  void blocked(GroupId self, const BlockedGroup& state) override;
  void unblocked(GroupId self) override;
  void finished(GroupId self) override;
  std::optional<EventKey> take_permit(GroupId self) override;

  // From other groups and from the monitor (a lower bound, a stop), on any thread. A
  // finished group takes nothing more: what still arrives (events at or after the end) is
  // counted as taken, so that the watch's counts balance.
  void deliver(std::vector<GroupMessage>& batch);
  // The watch's permission to process the event with `key`; wakes the group.
  void permit(const EventKey& key);
  PeerStatus status();

 private:
  // Whether a message counts for the watch: everything groups send each other, not what
  // the monitor sends (a lower bound, a stop).
  static std::uint64_t counted(std::vector<GroupMessage>::const_iterator first,
                               std::vector<GroupMessage>::const_iterator last);

  GroupId self_;
  Sender send_out_;
  std::chrono::microseconds spin_;
  Mailbox box_;
  std::mutex mutex_;  // the fields below
  bool finished_ = false;
  // Events and anti-events that arrived after the group finished (at or after its end):
  // counted as taken at once, and handed to the group when it adds itself to the cut.
  std::vector<GroupMessage> late_;
  std::atomic<bool> has_late_{false};  // late_ is not empty (read without the lock)
  BlockedGroup state_;
  std::optional<EventKey> permit_;
  std::uint64_t sent_ = 0;
  std::uint64_t taken_ = 0;
};

}  // namespace kausal::des
