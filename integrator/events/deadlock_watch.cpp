#include "integrator/events/deadlock_watch.hpp"

#include <sstream>

namespace kausal::des {

DeadlockVerdict judge_deadlock(const std::vector<WatchedGroup>& groups) {
  std::optional<GroupId> first;
  for (GroupId g = 0; g < groups.size(); ++g) {
    if (groups[g].finished) continue;
    if (!groups[g].idle_blocked) return {};
    const auto& next = groups[g].state.next;
    if (next && (!first || *next < *groups[*first].state.next)) first = g;
  }
  // Nothing is left to process anywhere and nothing is on its way: the run is over, even
  // where lookahead 0 keeps the guarantees from saying so.
  if (!first) return {DeadlockVerdict::Kind::all_done, 0};
  return {DeadlockVerdict::Kind::deadlock, *first};
}

DeadlockVerdict PolledDeadlockWatch::look(const std::vector<PeerStatus>& groups,
                                          std::vector<WatchedGroup>& watched) {
  watched.assign(groups.size(), {});
  std::vector<std::uint64_t> counts;
  std::uint64_t sent = 0, taken = 0;
  bool quiet = true;
  for (GroupId g = 0; g < groups.size(); ++g) {
    const PeerStatus& s = groups[g];
    watched[g] = {s.finished, s.idle_blocked, s.state};
    quiet = quiet && (s.finished || s.idle_blocked);
    sent += s.sent;
    taken += s.taken;
    counts.insert(counts.end(), {s.sent, s.taken});
  }
  quiet = quiet && sent == taken;
  const bool confirmed = quiet && quiet_before_ && counts == counts_before_;
  quiet_before_ = quiet && !confirmed;
  counts_before_ = std::move(counts);
  return confirmed ? judge_deadlock(watched) : DeadlockVerdict{};
}

std::string describe_deadlock(const std::vector<WatchedGroup>& groups, GroupId from,
                              const std::function<std::string(GroupId)>& group_name) {
  std::vector<GroupId> path;
  std::vector<bool> seen(groups.size(), false);
  GroupId g = from;
  while (g < groups.size() && !seen[g]) {
    seen[g] = true;
    path.push_back(g);
    g = groups[g].state.waits_for;
  }
  std::ostringstream text;
  text << "deadlock at t = " << groups[from].state.next->time
       << ": every group waits for a guarantee and none can give one. Cycle: ";
  bool in_cycle = false;
  for (const GroupId member : path) {
    if (member == g) in_cycle = true;
    if (!in_cycle) continue;
    const BlockedGroup& state = groups[member].state;
    text << group_name(member) << " (next event at t = ";
    if (state.next)
      text << state.next->time;
    else
      text << "none";
    text << ", safe below t = " << state.safe << ") waits for ";
  }
  text << group_name(g)
       << ". Links with lookahead 0 let a component promise nothing beyond its own clock: give "
          "them a positive lookahead, or set deadlock = \"recover\" to let the smallest event "
          "go ahead";
  return text.str();
}

}  // namespace kausal::des
