#pragma once
// How event groups reach each other: in one process through mailboxes, between processes
// over CORBA. The group's algorithm sees only this (synchronisation apart from transport).
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "integrator/events/group_message.hpp"

namespace kausal::des {

// What a blocked conservative group tells the deadlock watch: its next event below the
// end, if any, and the group whose guarantee holds it back.
struct BlockedGroup {
  std::optional<EventKey> next;
  double safe = 0;
  GroupId waits_for = 0;
};

class GroupTransport {
 public:
  virtual ~GroupTransport() = default;
  // Hands `batch` to group `to` in order (FIFO per pair of groups) and empties it.
  virtual void send(GroupId to, std::vector<GroupMessage>& batch) = 0;
  // Appends what has arrived for `self`; when nothing has, waits until something does or
  // `wait` has passed. Returns the seconds it waited.
  virtual double receive(GroupId self, std::vector<GroupMessage>& into,
                         std::chrono::microseconds wait) = 0;

  // Deadlock watch of conservative runs: a group says when it can do nothing until a
  // message arrives, and when it has finished. When every group is blocked or finished and
  // no message is on its way, the watch either stops the run naming the cycle or grants
  // the group with the smallest next event permission to process it (docs/events.md).
  virtual void blocked(GroupId self, const BlockedGroup& state) = 0;
  virtual void unblocked(GroupId self) = 0;
  virtual void finished(GroupId self) = 0;
  // The permission granted to `self`, taken once.
  virtual std::optional<EventKey> take_permit(GroupId self) = 0;
};

}  // namespace kausal::des
