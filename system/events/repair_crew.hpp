#pragma once
// Repair crews for N machines (docs/events.md, "Across the boundary"): each machine is a
// continuous partition whose wear reports a failure when it crosses its limit (event kind
// failure-K, to the crew the scenario names). The crew stops the machine at once (port run-K,
// value 0) and repairs the machines one at a time, in the order they reached it; a repair
// takes min_repair + Exp(mean_repair − min_repair). When it is done the machine's wear is
// reset (port reset-K, value 0; with reset_at_start when the repair starts) and it runs again
// (port run-K, value 1). Failures that come
// while the crew is busy wait in its queue: the queue couples the machines' otherwise
// independent wear. With several crews (a component each, crew-1 … crew-C), a crew that is
// busy and has a machine waiting already hands a new failure over to the next crew in the
// ring, which gets the machine `handover` seconds later and repairs it or queues it; a handed
// machine is not handed on again. Every crew commands every machine.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct RepairCrewParameters {
  std::uint32_t machines = 3;
  std::uint32_t crews = 1;
  double mean_repair = 20.0;  // s
  double min_repair = 5.0;    // s: the crew's lookahead to itself
  double handover = 1.0;      // s: from a busy crew to the next (its lookahead to it)
  // The wear is reset when the repair starts (the machine taken apart) rather than when it
  // ends; either way the machine runs again when the repair ends.
  bool reset_at_start = false;
  std::uint64_t seed = 1;
};

class RepairCrew final : public EventModel {
 public:
  enum Value : std::uint32_t { busy = 0, repairs = 1, queued = 2, queue = 3 };

  // Throws InputError naming the parameter when a value is out of range.
  explicit RepairCrew(const RepairCrewParameters& parameters);
  std::string name() const override { return "repair-crew"; }
  std::size_t components() const override { return p_.crews; }
  std::string component_name(ComponentId id) const override;
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext&) const override {}
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  std::vector<std::string> ports() const override;
  std::optional<std::uint32_t> kind_named(const std::string& name) const override;

 private:
  // The crews' own event kinds: a repair done, a machine handed over (value: the machine).
  std::uint32_t repaired() const { return p_.machines; }
  std::uint32_t handed() const { return p_.machines + 1; }
  ComponentId next_crew(ComponentId crew) const { return (crew + 1) % p_.crews; }
  void take(EventContext& context, std::uint32_t machine) const;
  void start_repair(EventContext& context, std::uint32_t machine) const;
  void command(EventContext& context, std::uint32_t machine, bool reset, double value) const;
  RepairCrewParameters p_;
};

}  // namespace kausal::des
