#pragma once
// The GroupTransport of groups in one process: a mailbox per group, and the deadlock
// watch of conservative runs, which can see every mailbox at once.
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "integrator/events/deadlock_watch.hpp"
#include "integrator/events/group_transport.hpp"
#include "integrator/events/mailbox.hpp"

namespace kausal::des {

class MailboxExchange final : public GroupTransport {
 public:
  MailboxExchange(std::uint32_t groups, DeadlockPolicy policy,
                  std::function<std::string(GroupId)> group_name);

  void send(GroupId to, std::vector<GroupMessage>& batch) override;
  double receive(GroupId self, std::vector<GroupMessage>& into,
                 std::chrono::microseconds wait) override;
  void blocked(GroupId self, const BlockedGroup& state) override;
  void unblocked(GroupId self) override;
  void finished(GroupId self) override;
  std::optional<EventKey> take_permit(GroupId self) override;

  // Sends every group a stop message; the first reason is kept.
  void stop_all(const std::string& reason);
  std::optional<std::string> failure() const;
  std::uint64_t deadlocks() const;

 private:
  void look_for_deadlock();  // under watch_mutex_
  // Under watch_mutex_: `message` into every mailbox (or every unfinished group's).
  void send_to_all(const GroupMessage& message, bool finished_too = true);

  std::vector<Mailbox> boxes_;
  // How long a waiting group spins before it sleeps (Mailbox::spin_for).
  std::chrono::microseconds spin_{0};
  DeadlockPolicy policy_;
  std::function<std::string(GroupId)> group_name_;
  mutable std::mutex watch_mutex_;
  std::vector<bool> finished_;
  std::vector<BlockedGroup> state_;
  std::vector<std::optional<EventKey>> permit_;
  std::optional<std::string> failure_;
  std::uint64_t deadlocks_ = 0;
};

}  // namespace kausal::des
