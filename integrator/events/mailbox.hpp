#pragma once
// One event group's mailbox: what other groups (or, across processes, the ORB's threads)
// hand it, taken by the group's thread in arrival order. A waiting owner spins briefly
// before it sleeps, since waking a sleeping thread on another core costs tens of
// microseconds here and conservative groups exchange a message per lookahead; it sleeps at
// once while the CPUs are shared (common/spin_wait.hpp).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "common/request_limits.hpp"
#include "integrator/events/group_message.hpp"

namespace kausal::des {

class Mailbox {
 public:
  // The most messages waiting to be taken: a group's share of the memory budget. The owner
  // takes its mail at every batch, so only a stuck owner or a flooding sender reaches it.
  static constexpr std::size_t max_waiting =
      limits::steps_within(limits::held_bytes, sizeof(GroupMessage));

  // Appends `batch` (and empties it). False, taking nothing, when more than max_waiting
  // messages would then wait.
  [[nodiscard]] bool put(std::vector<GroupMessage>& batch);
  // Appends what has arrived to `into`; when nothing has, spins for up to `spin` (spin_wait),
  // then sleeps until something arrives, a wake-up, or `wait` has passed. Returns the
  // seconds it waited. Taking a message or a wake-up clears the blocked mark.
  double take(std::vector<GroupMessage>& into, std::chrono::microseconds wait,
              std::chrono::microseconds spin);
  // How long a waiting owner spins before it sleeps when `groups` groups of one run wait for
  // each other on this host: not at all unless each can have a CPU of its own among those
  // the process may use (available_cpu_count), where a spin would only keep the group it
  // waits for from running.
  static std::chrono::microseconds spin_for(std::uint32_t groups);
  // Ends the owner's wait without a message (a permit, a stop from outside).
  void wake();

  // The deadlock watch's mark: the owner can do nothing until a message arrives.
  void mark_blocked();
  void clear_blocked();
  // Blocked, with nothing waiting to be taken: nothing will change until someone sends.
  bool idle_blocked();

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<GroupMessage> messages_;
  bool wake_ = false;
  bool sleeping_ = false;  // the owner waits on `arrived_`: a sender must notify
  // Messages or a wake-up are waiting: the owner spins on this before it sleeps.
  std::atomic<bool> mail_{false};
  // Set by the owner under the watch's lock, cleared the moment it takes a message or a
  // wake-up: the watch never sees a group blocked that has work in hand.
  bool blocked_ = false;
};

}  // namespace kausal::des
