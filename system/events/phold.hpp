#pragma once
// PHOLD, the standard benchmark of parallel discrete-event simulation (docs/events.md):
// N components, each starting with `population` events. Processing an event schedules
// exactly one more, after lookahead + Exp(mean − lookahead), to a component drawn
// uniformly from all (itself included) with probability `remote`, else to itself.
#include <cstdint>

#include "system/events/event_model.hpp"

namespace kausal::des {

struct PholdParameters {
  std::uint32_t components = 64;
  std::uint32_t population = 1;  // initial events per component
  double remote = 0.1;           // probability that an event goes to a random component
  double mean = 1.0;             // mean delay (lookahead included)
  double lookahead = 1.0;        // smallest delay
  std::uint64_t seed = 1;
};

class Phold final : public EventModel {
 public:
  // Throws InputError naming the parameter when a value is out of range.
  explicit Phold(const PholdParameters& parameters);
  std::string name() const override { return "phold"; }
  std::size_t components() const override { return p_.components; }
  std::optional<double> lookahead(ComponentId, ComponentId) const override { return p_.lookahead; }
  ComponentState initial_state(ComponentId id) const override;
  void start(EventContext& context) const override;
  void handle(const Event& event, EventContext& context) const override;
  const PholdParameters& parameters() const { return p_; }

 private:
  void schedule(EventContext& context) const;
  PholdParameters p_;
};

}  // namespace kausal::des
