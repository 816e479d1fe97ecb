#include "integrator/events/mailbox_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "common/errors.hpp"

namespace kausal::des {

MailboxExchange::MailboxExchange(std::uint32_t groups, DeadlockPolicy policy,
                                 std::function<std::string(GroupId)> group_name)
    : boxes_(groups),
      policy_(policy),
      group_name_(std::move(group_name)),
      finished_(groups, false),
      state_(groups),
      permit_(groups) {
  spin_ = Mailbox::spin_for(groups);
}

void MailboxExchange::send(GroupId to, std::vector<GroupMessage>& batch) {
  if (!boxes_.at(to).put(batch))
    throw ModelError(group_name_(to), "more than " + std::to_string(Mailbox::max_waiting) +
                                          " messages wait for it (the memory budget)");
}

double MailboxExchange::receive(GroupId self, std::vector<GroupMessage>& into,
                                std::chrono::microseconds wait) {
  return boxes_.at(self).take(into, wait, spin_);
}

void MailboxExchange::blocked(GroupId self, const BlockedGroup& state) {
  std::lock_guard lock(watch_mutex_);
  state_[self] = state;
  boxes_[self].mark_blocked();
  look_for_deadlock();
}

void MailboxExchange::unblocked(GroupId self) {
  boxes_[self].clear_blocked();
}

void MailboxExchange::finished(GroupId self) {
  std::lock_guard lock(watch_mutex_);
  finished_[self] = true;
  look_for_deadlock();
}

std::optional<EventKey> MailboxExchange::take_permit(GroupId self) {
  std::lock_guard lock(watch_mutex_);
  std::optional<EventKey> permit;
  permit.swap(permit_[self]);
  return permit;
}

// A finished group's mailbox may hold events at or after the end; they wake nobody. A group
// marks itself blocked only under the watch's lock, so no group can send (it would be
// running) between the looks at two mailboxes.
void MailboxExchange::look_for_deadlock() {
  std::vector<WatchedGroup> groups(boxes_.size());
  for (GroupId g = 0; g < boxes_.size(); ++g)
    groups[g] = {finished_[g], !permit_[g] && boxes_[g].idle_blocked(), state_[g]};
  const DeadlockVerdict verdict = judge_deadlock(groups);
  if (verdict.kind == DeadlockVerdict::Kind::all_done) {
    GroupMessage end;
    end.kind = MessageKind::lower_bound;
    end.time = std::numeric_limits<double>::infinity();
    send_to_all(end, false);
  }
  if (verdict.kind != DeadlockVerdict::Kind::deadlock) return;
  ++deadlocks_;
  if (policy_ == DeadlockPolicy::recover) {
    permit_[verdict.first] = state_[verdict.first].next;
    boxes_[verdict.first].wake();
    return;
  }
  if (!failure_) failure_ = describe_deadlock(groups, verdict.first, group_name_);
  GroupMessage stop;
  stop.kind = MessageKind::stop;
  send_to_all(stop);
}

void MailboxExchange::send_to_all(const GroupMessage& message, bool finished_too) {
  for (GroupId g = 0; g < boxes_.size(); ++g) {
    if (!finished_too && finished_[g]) continue;
    std::vector<GroupMessage> batch{message};
    send(g, batch);
  }
}

void MailboxExchange::stop_all(const std::string& reason) {
  std::lock_guard lock(watch_mutex_);
  if (!failure_) failure_ = reason;
  GroupMessage stop;
  stop.kind = MessageKind::stop;
  send_to_all(stop);
}

std::optional<std::string> MailboxExchange::failure() const {
  std::lock_guard lock(watch_mutex_);
  return failure_;
}

std::uint64_t MailboxExchange::deadlocks() const {
  std::lock_guard lock(watch_mutex_);
  return deadlocks_;
}

}  // namespace kausal::des
