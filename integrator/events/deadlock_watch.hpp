#pragma once
// The deadlock watch of conservative runs (docs/events.md), decided the same way whether it
// looks at mailboxes in one process (MailboxExchange) or polls group processes (the
// monitor's EventGroupDeployment): deadlock is every unfinished group blocked, none with a
// message waiting or a permit outstanding, and an event below the end still pending.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "integrator/events/group_transport.hpp"

namespace kausal::des {

enum class DeadlockPolicy : std::uint8_t {
  fail,     // stop the run and name the cycle of groups that wait for each other
  recover,  // let the group with the smallest next event process it, and go on
};

// What the watch knows of one group at one look.
struct WatchedGroup {
  bool finished = false;
  // Blocked with nothing waiting to be taken and no permit outstanding.
  bool idle_blocked = false;
  BlockedGroup state;  // as the group said when it blocked
};

struct DeadlockVerdict {
  enum class Kind : std::uint8_t {
    running,   // some group can still run or has a message waiting
    all_done,  // nothing below the end anywhere: every group may finish
    deadlock,  // `first` holds the smallest pending event
  };
  Kind kind = Kind::running;
  GroupId first = 0;
};

DeadlockVerdict judge_deadlock(const std::vector<WatchedGroup>& groups);

// What the monitor's watch sees of one group at one look.
struct PeerStatus {
  bool finished = false;
  bool idle_blocked = false;  // blocked, nothing waiting, no permit outstanding
  BlockedGroup state;         // as it said when it blocked
  std::uint64_t sent = 0;     // messages handed to other groups
  std::uint64_t taken = 0;    // messages from other groups taken from the mailbox
};

// The watch over groups it can only poll (processes, PeerExchange::status): one look sees
// each group at a different moment, so a quiet look (every unfinished group blocked with
// nothing waiting, every message sent also taken) proves nothing alone. A second quiet look
// with no count moved does: nothing was sent or taken in between, so every group was
// blocked all along (the four-counter method).
class PolledDeadlockWatch {
 public:
  // One look at every group (a group whose thread has ended counts as finished). Returns a
  // verdict other than running only when it confirms the previous look; `watched` is what
  // this look saw, for describe_deadlock.
  DeadlockVerdict look(const std::vector<PeerStatus>& groups, std::vector<WatchedGroup>& watched);
  // The last look was quiet: the next one should follow at once.
  bool confirming() const { return quiet_before_; }

 private:
  bool quiet_before_ = false;
  std::vector<std::uint64_t> counts_before_;
};

// The cycle of groups that wait for each other, from group `from` on, and what to change.
std::string describe_deadlock(const std::vector<WatchedGroup>& groups, GroupId from,
                              const std::function<std::string(GroupId)>& group_name);

}  // namespace kausal::des
