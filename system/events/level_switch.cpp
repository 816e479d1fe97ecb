#include "system/events/level_switch.hpp"

#include <cmath>

#include "common/errors.hpp"

namespace kausal::des {

namespace {
constexpr ComponentId the_switch = 0, valve = 1;  // the component, its port
}  // namespace

LevelSwitch::LevelSwitch(const LevelSwitchParameters& p) : p_(p) {
  if (!std::isfinite(p_.open_command) || !std::isfinite(p_.closed_command))
    throw InputError("level-switch: open_command and closed_command must be finite");
  if (!(p_.delay >= 0) || !std::isfinite(p_.delay))
    throw InputError("level-switch: delay must be finite and 0 or more");
}

std::optional<double> LevelSwitch::lookahead(ComponentId from, ComponentId to) const {
  if (from == the_switch && to == valve) return p_.delay;
  return std::nullopt;
}

ComponentState LevelSwitch::initial_state(ComponentId) const {
  ComponentState s;
  s.values.assign(values, 0.0);
  s.values[open] = p_.initially_open ? 1.0 : 0.0;
  return s;
}

void LevelSwitch::command(EventContext& context, bool is_open) const {
  context.send(valve, p_.delay, 0, is_open ? p_.open_command : p_.closed_command);
}

void LevelSwitch::start(EventContext& context) const {
  command(context, p_.initially_open);
}

// Hysteresis: a crossing that would set the valve as it is changes nothing.
void LevelSwitch::handle(const Event& event, EventContext& context) const {
  if (event.kind != high && event.kind != low)
    throw ModelError("switch", "no event kind " + std::to_string(event.kind));
  const bool open_now = event.kind == low;
  if ((context.value(open) != 0) == open_now) return;
  context.set_value(open, open_now ? 1.0 : 0.0);
  context.set_value(switchings, context.value(switchings) + 1);
  command(context, open_now);
}

std::string LevelSwitch::kind_name(std::uint32_t kind) const {
  return kind == high ? "high" : kind == low ? "low" : "event " + std::to_string(kind);
}

std::optional<std::uint32_t> LevelSwitch::kind_named(const std::string& name) const {
  if (name == "high") return high;
  if (name == "low") return low;
  return std::nullopt;
}

}  // namespace kausal::des
