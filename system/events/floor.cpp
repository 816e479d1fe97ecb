#include "system/events/floor.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

namespace {
constexpr ComponentId the_floor = 0, rebound = 1;  // the component, its port
}  // namespace

Floor::Floor(double restitution) : e_(restitution) {
  if (!(e_ >= 0 && e_ <= 1)) throw InputError("floor: e must be between 0 and 1");
}

std::optional<double> Floor::lookahead(ComponentId from, ComponentId to) const {
  if (from == the_floor && to == rebound) return 0.0;
  return std::nullopt;
}

ComponentState Floor::initial_state(ComponentId) const {
  ComponentState s;
  s.values.assign(values, 0.0);
  return s;
}

void Floor::handle(const Event& event, EventContext& context) const {
  if (event.kind != impact)
    throw ModelError("floor", "no event kind " + std::to_string(event.kind));
  context.set_value(impacts, context.value(impacts) + 1);
  context.set_value(last_speed, std::abs(event.value));
  context.send(rebound, 0.0, 0, e_ * std::abs(event.value));
}

std::string Floor::kind_name(std::uint32_t kind) const {
  return kind == impact ? "impact" : "event " + std::to_string(kind);
}

std::optional<std::uint32_t> Floor::kind_named(const std::string& name) const {
  if (name == "impact") return impact;
  return std::nullopt;
}

}  // namespace kausal::des
