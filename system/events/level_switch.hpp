#pragma once
// A two-point controller with hysteresis as one discrete-event component (docs/events.md,
// "Across the boundary"): the level of a tank (a continuous partition) reports its
// crossings of the band's edges as events, `high` when it rises above the upper edge and
// `low` when it falls below the lower one; the switch closes the valve on `high` and opens
// it on `low`, each a command on its port `valve` after the switching delay, which a
// scenario connects to the inflow of a tank. At time 0 it sends its initial command.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct LevelSwitchParameters {
  double open_command = 0.05;   // what the valve port carries when open
  double closed_command = 0.0;  // and when closed
  bool initially_open = true;
  double delay = 0.0;  // s from a crossing to the command (the port's lookahead)
};

class LevelSwitch final : public EventModel {
 public:
  static constexpr std::uint32_t high = 0, low = 1;  // event kinds
  enum Value : std::uint32_t { open = 0, switchings = 1, values = 2 };

  // Throws InputError naming the parameter when a value is out of range.
  explicit LevelSwitch(const LevelSwitchParameters& parameters);
  std::string name() const override { return "level-switch"; }
  std::size_t components() const override { return 1; }
  std::string component_name(ComponentId) const override { return "switch"; }
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext& context) const override;
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  std::vector<std::string> ports() const override { return {"valve"}; }
  std::optional<std::uint32_t> kind_named(const std::string& name) const override;

 private:
  void command(EventContext& context, bool open) const;
  LevelSwitchParameters p_;
};

}  // namespace kausal::des
