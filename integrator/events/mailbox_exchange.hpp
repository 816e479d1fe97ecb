#pragma once
// The GroupTransport of groups in one process: a mailbox per group, and the deadlock
// watch of conservative runs, which can see every mailbox at once.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "integrator/events/group_transport.hpp"

namespace kausal::des {

enum class DeadlockPolicy : std::uint8_t {
  fail,     // stop the run and name the cycle of groups that wait for each other
  recover,  // let the group with the smallest next event process it, and go on
};

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
  enum class Status : std::uint8_t { running, finished };
  struct Mailbox {
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<GroupMessage> messages;
    bool wake = false;
    bool sleeping = false;  // the owner waits on `arrived`: a sender must notify
    // Messages or a wake-up are waiting: the owner spins on this before it sleeps, since
    // waking a sleeping thread on another core costs tens of microseconds here.
    std::atomic<bool> mail{false};
    // Set by blocked() under the watch's lock, cleared the moment the group takes a
    // message or a wake-up: the watch never sees a group blocked that has work in hand.
    bool blocked = false;
  };
  void look_for_deadlock();  // under watch_mutex_
  std::string describe_cycle(GroupId from) const;
  void wake(GroupId group);
  // Under watch_mutex_: `message` into every mailbox (or every unfinished group's).
  void send_to_all(const GroupMessage& message, bool finished_too = true);

  std::vector<Mailbox> boxes_;
  // Pause instructions a waiting group spins before it sleeps: none when there are more
  // groups than CPUs (a spinner would take the CPU from the group it waits for).
  int spins_ = 0;
  DeadlockPolicy policy_;
  std::function<std::string(GroupId)> group_name_;
  mutable std::mutex watch_mutex_;
  std::vector<Status> status_;
  std::vector<BlockedGroup> state_;
  std::vector<std::optional<EventKey>> permit_;
  std::optional<std::string> failure_;
  std::uint64_t deadlocks_ = 0;
};

}  // namespace kausal::des
