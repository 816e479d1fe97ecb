#pragma once
// A repair crew for N machines as one discrete-event component (docs/events.md, "Across the
// boundary"): each machine is a continuous partition whose wear reports a failure when it
// crosses its limit (event kind failure-K). The crew stops the machine at once (port run-K,
// value 0) and repairs the machines one at a time, in the order they failed; a repair takes
// min_repair + Exp(mean_repair − min_repair). When it is done the machine's wear is reset
// (port reset-K, value 0) and it runs again (port run-K, value 1). Failures that come while
// the crew is busy wait in its queue: the queue couples the machines' otherwise independent
// wear.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct RepairCrewParameters {
  std::uint32_t machines = 3;
  double mean_repair = 20.0;  // s
  double min_repair = 5.0;    // s: the crew's lookahead to itself
  std::uint64_t seed = 1;
};

class RepairCrew final : public EventModel {
 public:
  enum Value : std::uint32_t { busy = 0, repairs = 1, queued = 2, queue = 3 };

  // Throws InputError naming the parameter when a value is out of range.
  explicit RepairCrew(const RepairCrewParameters& parameters);
  std::string name() const override { return "repair-crew"; }
  std::size_t components() const override { return 1; }
  std::string component_name(ComponentId) const override { return "crew"; }
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext&) const override {}
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  std::vector<std::string> ports() const override;
  std::optional<std::uint32_t> kind_named(const std::string& name) const override;

 private:
  std::uint32_t repaired() const { return p_.machines; }  // the crew's own event kind
  void start_repair(EventContext& context, std::uint32_t machine) const;
  void command(EventContext& context, std::uint32_t machine, bool reset, double value) const;
  RepairCrewParameters p_;
};

}  // namespace kausal::des
