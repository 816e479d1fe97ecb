#pragma once
// The floor under a falling ball as one discrete-event component (docs/events.md, "Across
// the boundary"): the ball (a continuous partition) reports each time its height falls
// through 0 as an `impact` carrying its velocity then; the floor counts the impacts and sends
// the rebound velocity −e·v back on its port `rebound`, which a scenario connects to the
// ball's velocity (a reset). The impacts are located inside the step, so the ball bounces at
// the located time, not at the end of the step that found it.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

class Floor final : public EventModel {
 public:
  static constexpr std::uint32_t impact = 0;  // event kind
  enum Value : std::uint32_t { impacts = 0, last_speed = 1, values = 2 };

  // Throws InputError when e is not in [0, 1].
  explicit Floor(double restitution);
  std::string name() const override { return "floor"; }
  std::size_t components() const override { return 1; }
  std::string component_name(ComponentId) const override { return "floor"; }
  std::optional<double> lookahead(ComponentId from, ComponentId to) const override;
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext&) const override {}
  void handle(const Event& event, EventContext& context) const override;
  std::string kind_name(std::uint32_t kind) const override;
  std::vector<std::string> ports() const override { return {"rebound"}; }
  std::optional<std::uint32_t> kind_named(const std::string& name) const override;

 private:
  double e_;
};

}  // namespace kausal::des
