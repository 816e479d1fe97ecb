#include "system/events/event_model.hpp"

#include <cmath>
#include <sstream>

#include "common/errors.hpp"

namespace kausal::des {

void EventContext::set_value(std::size_t index, double value) {
  if (index >= state_.values.size())
    throw ModelError(model_.component_name(component_),
                     "value " + std::to_string(index) + " does not exist (the state has " +
                         std::to_string(state_.values.size()) + ")");
  if (undo_) undo_->emplace_back(static_cast<std::uint32_t>(index), state_.values[index]);
  state_.values[index] = value;
}

void EventContext::send(ComponentId to, double delay, std::uint32_t kind, double value) {
  const auto fail = [&](const std::string& why) {
    std::ostringstream message;
    message << why << " (an event for "
            << (to < model_.components() ? model_.component_name(to) : std::to_string(to))
            << " at t = " << now_ << " + " << delay << ")";
    throw ModelError(model_.component_name(component_), message.str());
  };
  if (to >= model_.components()) fail("no such component");
  const std::optional<double> lookahead = model_.lookahead(component_, to);
  if (!lookahead) fail("the scenario has no link to that component");
  if (!std::isfinite(delay) || delay < *lookahead) {
    std::ostringstream why;
    why << "the delay is below the link's lookahead " << *lookahead;
    fail(why.str());
  }
  const double time = now_ + delay;
  if (!std::isfinite(time)) fail("the time stamp is not finite");
  outbox_.push_back(Event{EventKey{time, component_, state_.sent++}, to, kind, value});
}

std::optional<double> smallest_lookahead(const EventModel& model, std::span<const ComponentId> from,
                                         std::span<const ComponentId> to) {
  std::optional<double> smallest;
  for (const ComponentId i : from)
    for (const ComponentId j : to)
      if (const auto l = model.lookahead(i, j); l && (!smallest || *l < *smallest)) smallest = l;
  return smallest;
}

}  // namespace kausal::des
