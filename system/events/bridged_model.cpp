#include "system/events/bridged_model.hpp"

#include "common/errors.hpp"

namespace kausal::des {

BridgedModel::BridgedModel(const EventModel& inner, std::vector<CrossingRoute> crossings)
    : inner_(inner), ports_(inner.ports().size()), crossings_(std::move(crossings)) {
  for (const CrossingRoute& c : crossings_)
    if (c.component >= inner_.components())
      throw InputError("event output '" + c.name + "': component " + std::to_string(c.component) +
                       " does not exist");
}

std::size_t BridgedModel::components() const {
  return inner_.components() + ports_ + crossings_.size();
}

std::string BridgedModel::component_name(ComponentId id) const {
  if (id < own()) return inner_.component_name(id);
  if (is_port(id)) return "port '" + inner_.ports()[id - own()] + "'";
  return "event output '" + crossings_.at(id - own() - ports_).name + "'";
}

std::optional<double> BridgedModel::lookahead(ComponentId from, ComponentId to) const {
  if (from < own()) return to < own() + ports_ ? inner_.lookahead(from, to) : std::nullopt;
  if (from >= own() + ports_ && to < own()) {
    const CrossingRoute& c = crossings_.at(from - own() - ports_);
    if (c.component == to) return 0.0;
  }
  return std::nullopt;
}

ComponentState BridgedModel::initial_state(ComponentId id) const {
  return id < own() ? inner_.initial_state(id) : ComponentState{};
}

void BridgedModel::start(EventContext& context) const {
  if (context.component() < own()) inner_.start(context);
}

void BridgedModel::handle(const Event& event, EventContext& context) const {
  if (context.component() >= own())
    throw ProtocolError(component_name(context.component()),
                        "an event for the continuous side reached an event group");
  inner_.handle(event, context);
}

}  // namespace kausal::des
