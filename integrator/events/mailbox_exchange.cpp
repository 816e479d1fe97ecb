#include "integrator/events/mailbox_exchange.hpp"

#include <chrono>
#include <algorithm>
#include <limits>
#include <thread>
#include <sstream>

namespace kausal::des {

MailboxExchange::MailboxExchange(std::uint32_t groups, DeadlockPolicy policy,
                                 std::function<std::string(GroupId)> group_name)
    : boxes_(groups), policy_(policy), group_name_(std::move(group_name)),
      status_(groups, Status::running), state_(groups), permit_(groups) {
  constexpr int spins = 4000;  // about 20–50 µs
  spins_ = groups <= std::max(1u, std::thread::hardware_concurrency()) ? spins : 0;
}

void MailboxExchange::send(GroupId to, std::vector<GroupMessage>& batch) {
  Mailbox& box = boxes_.at(to);
  bool sleeping = false;
  {
    std::lock_guard lock(box.mutex);
    if (box.messages.empty())
      box.messages.swap(batch);
    else
      box.messages.insert(box.messages.end(), std::make_move_iterator(batch.begin()),
                          std::make_move_iterator(batch.end()));
    box.mail.store(true, std::memory_order_release);
    sleeping = box.sleeping;
  }
  batch.clear();
  if (sleeping) box.arrived.notify_one();
}

double MailboxExchange::receive(GroupId self, std::vector<GroupMessage>& into,
                                std::chrono::microseconds wait) {
  Mailbox& box = boxes_.at(self);
  double waited = 0;
  const bool idle = !box.mail.load(std::memory_order_acquire);
  const auto begin = idle && wait.count() > 0 ? std::chrono::steady_clock::now()
                                              : std::chrono::steady_clock::time_point{};
  if (idle && wait.count() > 0)
    for (int n = 0; n < spins_ && !box.mail.load(std::memory_order_acquire); ++n)
      __builtin_ia32_pause();
  std::unique_lock lock(box.mutex);
  if (box.messages.empty() && !box.wake && wait.count() > 0) {
    box.sleeping = true;
    box.arrived.wait_for(lock, wait, [&] { return !box.messages.empty() || box.wake; });
    box.sleeping = false;
  }
  if (idle && wait.count() > 0)
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (box.wake || !box.messages.empty()) box.blocked = false;
  box.wake = false;
  box.mail.store(false, std::memory_order_relaxed);
  if (into.empty())
    into.swap(box.messages);
  else {
    into.insert(into.end(), std::make_move_iterator(box.messages.begin()),
                std::make_move_iterator(box.messages.end()));
    box.messages.clear();
  }
  return waited;
}

void MailboxExchange::wake(GroupId group) {
  Mailbox& box = boxes_[group];
  {
    std::lock_guard lock(box.mutex);
    box.wake = true;
    box.blocked = false;
    box.mail.store(true, std::memory_order_release);
  }
  box.arrived.notify_one();
}

void MailboxExchange::blocked(GroupId self, const BlockedGroup& state) {
  std::lock_guard lock(watch_mutex_);
  state_[self] = state;
  {
    std::lock_guard box_lock(boxes_[self].mutex);
    boxes_[self].blocked = true;
  }
  look_for_deadlock();
}

void MailboxExchange::unblocked(GroupId self) {
  std::lock_guard lock(boxes_[self].mutex);
  boxes_[self].blocked = false;
}

void MailboxExchange::finished(GroupId self) {
  std::lock_guard lock(watch_mutex_);
  status_[self] = Status::finished;
  look_for_deadlock();
}

std::optional<EventKey> MailboxExchange::take_permit(GroupId self) {
  std::lock_guard lock(watch_mutex_);
  std::optional<EventKey> permit;
  permit.swap(permit_[self]);
  return permit;
}

// Deadlock: no group can run, none has a message waiting, and some still have events.
// A finished group's mailbox may hold events at or after the end; they wake nobody. A group
// marks itself blocked only under the watch's lock, so no group can send (it would be
// running) between the looks at two mailboxes.
void MailboxExchange::look_for_deadlock() {
  std::optional<GroupId> first;
  for (GroupId g = 0; g < status_.size(); ++g) {
    if (status_[g] == Status::finished) continue;
    {
      std::lock_guard lock(boxes_[g].mutex);
      if (!boxes_[g].blocked || !boxes_[g].messages.empty() || boxes_[g].wake) return;
    }
    if (permit_[g]) return;
    const auto& next = state_[g].next;
    if (next && (!first || *next < *state_[*first].next)) first = g;
  }
  if (!first) {
    // Nothing is left to process anywhere and nothing is on its way: the run is over,
    // even where lookahead 0 keeps the guarantees from saying so.
    GroupMessage end;
    end.kind = MessageKind::lower_bound;
    end.time = std::numeric_limits<double>::infinity();
    send_to_all(end, false);
    return;
  }
  ++deadlocks_;
  if (policy_ == DeadlockPolicy::recover) {
    permit_[*first] = state_[*first].next;
    wake(*first);
    return;
  }
  if (!failure_) failure_ = describe_cycle(*first);
  GroupMessage stop;
  stop.kind = MessageKind::stop;
  send_to_all(stop);
}

void MailboxExchange::send_to_all(const GroupMessage& message, bool finished_too) {
  for (GroupId g = 0; g < boxes_.size(); ++g) {
    if (!finished_too && status_[g] == Status::finished) continue;
    std::vector<GroupMessage> batch{message};
    send(g, batch);
  }
}

std::string MailboxExchange::describe_cycle(GroupId from) const {
  std::vector<GroupId> path;
  std::vector<bool> seen(status_.size(), false);
  GroupId g = from;
  while (!seen[g]) {
    seen[g] = true;
    path.push_back(g);
    g = state_[g].waits_for;
  }
  std::ostringstream text;
  text << "deadlock at t = " << state_[from].next->time
       << ": every group waits for a guarantee and none can give one. Cycle: ";
  bool in_cycle = false;
  for (const GroupId member : path) {
    if (member == g) in_cycle = true;
    if (!in_cycle) continue;
    text << group_name_(member) << " (next event at t = ";
    if (state_[member].next)
      text << state_[member].next->time;
    else
      text << "none";
    text << ", safe below t = " << state_[member].safe << ") waits for ";
  }
  text << group_name_(g)
       << ". Links with lookahead 0 let a component promise nothing beyond its own clock: give "
          "them a positive lookahead, or set deadlock = \"recover\" to let the smallest event "
          "go ahead";
  return text.str();
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
