#include "integrator/events/peer_exchange.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace kausal::des {

PeerExchange::PeerExchange(GroupId self, Sender send_out, std::chrono::microseconds spin)
    : self_(self), send_out_(std::move(send_out)), spin_(spin) {}

std::uint64_t PeerExchange::counted(std::vector<GroupMessage>::const_iterator first,
                                    std::vector<GroupMessage>::const_iterator last) {
  return static_cast<std::uint64_t>(std::count_if(first, last, [](const GroupMessage& m) {
    return m.kind != MessageKind::lower_bound && m.kind != MessageKind::stop;
  }));
}

void PeerExchange::send(GroupId to, std::vector<GroupMessage>& batch) {
  if (to == self_) {  // a group's own stop or token: straight into its mailbox
    deliver(batch);
    return;
  }
  {
    // Counted before it leaves: the receiver may take it before send_out_ returns.
    std::lock_guard lock(mutex_);
    sent_ += counted(batch.begin(), batch.end());
  }
  send_out_(to, batch);
  batch.clear();
}

double PeerExchange::receive(GroupId, std::vector<GroupMessage>& into,
                             std::chrono::microseconds wait) {
  // What the mailbox holds arrived before what came late: it goes first (FIFO per sender).
  const bool late = has_late_.load(std::memory_order_acquire);
  const std::size_t before = into.size();
  const double waited = box_.take(into, late ? std::chrono::microseconds(0) : wait,
                                  late ? std::chrono::microseconds(0) : spin_);
  const std::uint64_t taken =
      counted(into.begin() + static_cast<std::ptrdiff_t>(before), into.end());
  if (taken == 0 && !late) return waited;
  std::lock_guard lock(mutex_);
  taken_ += taken;
  // (Late messages were counted as taken when they arrived.)
  into.insert(into.end(), late_.begin(), late_.end());
  late_.clear();
  has_late_.store(false, std::memory_order_release);
  return waited;
}

void PeerExchange::blocked(GroupId, const BlockedGroup& state) {
  std::lock_guard lock(mutex_);
  state_ = state;
  box_.mark_blocked();
}

void PeerExchange::unblocked(GroupId) {
  box_.clear_blocked();
}

void PeerExchange::finished(GroupId) {
  std::lock_guard lock(mutex_);
  finished_ = true;
}

std::optional<EventKey> PeerExchange::take_permit(GroupId) {
  std::lock_guard lock(mutex_);
  std::optional<EventKey> permit;
  permit.swap(permit_);
  return permit;
}

void PeerExchange::deliver(std::vector<GroupMessage>& batch) {
  // Under the lock, so that no message slips in uncounted as the group finishes.
  std::lock_guard lock(mutex_);
  const auto refuse = [&] {
    throw ProtocolError("group " + std::to_string(self_),
                        "deliver: more than " + std::to_string(Mailbox::max_waiting) +
                            " messages would wait for the group (the memory budget)");
  };
  if (finished_) {
    if (batch.size() > Mailbox::max_waiting - late_.size()) refuse();
    taken_ += counted(batch.begin(), batch.end());
    for (GroupMessage& m : batch)
      if (m.kind == MessageKind::event || m.kind == MessageKind::anti_event)
        late_.push_back(std::move(m));
    has_late_.store(!late_.empty(), std::memory_order_release);
    batch.clear();
    return;
  }
  if (!box_.put(batch)) refuse();
}

void PeerExchange::permit(const EventKey& key) {
  {
    std::lock_guard lock(mutex_);
    permit_ = key;
  }
  box_.wake();
}

PeerStatus PeerExchange::status() {
  std::lock_guard lock(mutex_);
  PeerStatus s;
  s.finished = finished_;
  s.idle_blocked = !permit_ && box_.idle_blocked();
  s.state = state_;
  s.sent = sent_;
  s.taken = taken_;
  return s;
}

}  // namespace kausal::des
