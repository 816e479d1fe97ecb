#pragma once
// A discrete-event model with the continuous partitions of a hybrid model beside it
// (docs/events.md, "Across the boundary"): the model's own components first, then one
// component per port (events its components send to partitions) and one per event output
// of a partition (the crossings it reports, each to one component with one event kind).
// Those added components belong to the continuous side: an event group runs only the
// model's own, and the partitions' events reach them and leave them as events between
// groups. Crossings reach their component with lookahead 0: a component may react at the
// crossing's own time.
#include <cstdint>
#include <string>
#include <vector>

#include "system/events/event_model.hpp"

namespace kausal::des {

// Where an event output's crossings go: a component of the model and the event kind.
struct CrossingRoute {
  std::string name;  // the event output's, for traces and messages
  ComponentId component = 0;
  std::uint32_t kind = 0;
};

class BridgedModel final : public EventModel {
 public:
  BridgedModel(const EventModel& inner, std::vector<CrossingRoute> crossings);

  std::string name() const override { return inner_.name(); }
  std::size_t components() const override;
  std::string component_name(ComponentId id) const override;
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext& context) const override;
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override { return inner_.kind_name(kind); }

  const EventModel& inner() const { return inner_; }
  // The model's own components: [0, own()); ports: [own(), own() + ports); crossings after.
  ComponentId own() const { return static_cast<ComponentId>(inner_.components()); }
  ComponentId port(std::size_t k) const { return own() + static_cast<ComponentId>(k); }
  ComponentId crossing(std::size_t j) const { return own() + static_cast<ComponentId>(ports_ + j); }
  bool is_port(ComponentId id) const { return id >= own() && id < own() + ports_; }
  const std::vector<CrossingRoute>& crossings() const { return crossings_; }

 private:
  const EventModel& inner_;
  std::size_t ports_;
  std::vector<CrossingRoute> crossings_;
};

}  // namespace kausal::des
