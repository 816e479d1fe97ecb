#pragma once
// The discrete side of a hybrid model (docs/events.md, "Across the boundary"): its components
// in one or more event groups, driven from the hybrid coupling's thread, which is the groups'
// other side (the continuous one, group `groups()`): it posts the partitions' crossings and
// its guarantee, settles the groups, and takes what they sent the partitions.
//
// A settle runs in rounds. In a round every group takes what reached it, processes what its
// guarantees allow and sends on (several groups at once, one lane each); what a group sends
// another arrives in the next round. A round after which no group has mail waiting is the
// last one: nothing can change any more. If an event below the continuous side's guarantee
// is then still pending, the groups wait for each other's guarantees in a cycle without
// lookahead. The smallest such event is the earliest anywhere (nothing is in transit, and the
// partitions send nothing before their guarantee), so its group is permitted to process it,
// as the deadlock watch of event runs recovers (integrator/events/deadlock_watch.hpp). No
// group processes an event at or after the guarantee, so a settle processes exactly what one
// group would, each component's events in key order: the same events reach the partitions,
// whatever the number of groups.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "integrator/events/event_group.hpp"
#include "monitor/sync/fan_out.hpp"
#include "system/events/bridged_model.hpp"

namespace kausal {

class DiscreteSide final : des::GroupTransport {
 public:
  // The model's own components in `groups` contiguous groups (1 to own()), which commit to
  // `sink` (each component from one thread).
  DiscreteSide(const des::BridgedModel& model, std::uint32_t groups,
               const des::GroupSettings& settings, des::CommitSink& sink);

  std::uint32_t groups() const { return static_cast<std::uint32_t>(groups_.size()); }

  // Before begin(): every group takes its components' states and pending events from `cut`.
  void continue_from(const des::EventCut& cut);
  // The components start (unless continued) and send what they send at the start.
  void begin();

  // From the continuous side: a crossing, to the group of its component; and its guarantee,
  // no crossing before `time` (it only grows).
  void post(const des::Event& crossing);
  void guarantee(double time);
  // No event at or after `time` is processed until the hold moves (infinity: none).
  void hold_before(double time);

  // Processes every event the guarantee and the hold allow; returns how many.
  std::size_t settle();
  // What the groups sent the partitions' ports since the last take, in key order.
  std::vector<des::Event> take_for_partitions();
  // Whether something posted waits to be settled.
  bool mail_waiting() const;

  // The key of the earliest pending event below the end; nullopt when there is none.
  std::optional<des::EventKey> next_key() const;
  // The time below which every event is committed (at most the end).
  double committed_horizon() const;
  // Every group's components and pending events, into `cut` (sized for every component).
  void add_to_cut(des::EventCut& cut);

  // Every component, in component order.
  std::vector<std::reference_wrapper<const des::LogicalProcess>> components() const;
  std::uint64_t rounds() const { return rounds_; }
  std::uint64_t permits() const { return permits_; }
  // Events one group sent another (in one group: none).
  std::uint64_t peer_events() const { return peer_events_; }

 private:
  // The earliest pending event the guarantee and the hold let a group process.
  std::optional<std::pair<des::GroupId, des::EventKey>> earliest_allowed() const;
  double limit() const { return std::min(guaranteed_, hold_); }
  std::size_t round();
  void collect_sent();

  // des::GroupTransport: what a group sends is kept per sender (each sends from its own lane)
  // and handed on between rounds; the deadlock watch is settle()'s.
  void send(des::GroupId to, std::vector<des::GroupMessage>& batch) override;
  double receive(des::GroupId self, std::vector<des::GroupMessage>& into,
                 std::chrono::microseconds) override;
  void blocked(des::GroupId, const des::BlockedGroup&) override {}
  void unblocked(des::GroupId) override {}
  void finished(des::GroupId) override {}
  std::optional<des::EventKey> take_permit(des::GroupId) override { return std::nullopt; }

  const des::GroupId continuous_;
  std::vector<des::GroupId> owner_;
  std::deque<des::EventGroup> groups_;                 // (not movable: a deque keeps them in place)
  std::vector<char> hears_continuous_;                 // per group: a crossing's component is in it
  std::optional<FanOut> lanes_;                        // several groups
  std::vector<std::vector<des::GroupMessage>> inbox_;  // per group, for its next round
  // Per sending group, per receiver (the continuous side last): sent in this round.
  std::vector<std::vector<std::vector<des::GroupMessage>>> sent_;
  std::vector<des::Event> for_partitions_;
  double guaranteed_;  // the continuous side's guarantee (infinite without crossings)
  double posted_;      // the last guarantee the groups were told
  double hold_;
  std::uint64_t rounds_ = 0;
  std::uint64_t permits_ = 0;
  std::uint64_t peer_events_ = 0;
};

}  // namespace kausal
