#pragma once
// The model API of discrete-event components (docs/events.md). A model says how many
// components there are, which may send to which (a_ij) with what lookahead, and what a
// component does with an event: change its state and send events. Everything a handler
// may touch is in its EventContext, so that every method can save, restore and replay it.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "system/events/event.hpp"
#include "system/events/random_stream.hpp"

namespace kausal::des {

// Everything a component needs to continue: its values, its random stream, its send
// serial. Saved before every event an optimistic run processes.
struct ComponentState {
  std::vector<double> values;
  RandomStream random;
  std::uint64_t sent = 0;  // serial of the next event this component sends

  friend bool operator==(const ComponentState&, const ComponentState&) = default;
};

// One (index, old value) per value a handler changed: the incremental saving of a state.
using UndoLog = std::vector<std::pair<std::uint32_t, double>>;

class EventModel;

// What a handler sees of its component while it processes one event (or starts).
class EventContext {
 public:
  // `undo`, when given, receives the old value of every value the handler changes.
  EventContext(const EventModel& model, ComponentId component, double now, ComponentState& state,
               std::vector<Event>& outbox, UndoLog* undo = nullptr)
      : model_(model),
        component_(component),
        now_(now),
        state_(state),
        outbox_(outbox),
        undo_(undo) {}

  ComponentId component() const { return component_; }
  double now() const { return now_; }
  RandomStream& random() { return state_.random; }
  std::span<const double> values() const { return state_.values; }
  double value(std::size_t index) const { return state_.values.at(index); }
  void set_value(std::size_t index, double value);
  // Schedules an event for `to` at now + delay. The delay must be finite and at least the
  // link's lookahead, and `to` must be linked from this component: a model that breaks its
  // own promise would make conservative runs wrong, so it is a ModelError naming both.
  void send(ComponentId to, double delay, std::uint32_t kind = 0, double value = 0);

 private:
  const EventModel& model_;
  ComponentId component_;
  double now_;
  ComponentState& state_;
  std::vector<Event>& outbox_;
  UndoLog* undo_;
};

class EventModel {
 public:
  virtual ~EventModel() = default;
  virtual std::string name() const = 0;
  virtual std::size_t components() const = 0;
  virtual std::string component_name(ComponentId id) const {
    return "component-" + std::to_string(id);
  }
  // a_ij with its lookahead: the smallest delay of any event `from` sends `to`; nullopt
  // when `from` never sends to `to`.
  virtual std::optional<double> lookahead(ComponentId from, ComponentId to) const = 0;
  virtual ComponentState initial_state(ComponentId id) const = 0;
  // Schedules the component's first events (at time 0, with the same rules as handle).
  virtual void start(EventContext& context) const = 0;
  virtual void handle(const Event& event, EventContext& context) const = 0;
  // A word for an event kind in traces and messages.
  virtual std::string kind_name(std::uint32_t kind) const {
    return "event " + std::to_string(kind);
  }

  // ---- the bridge to continuous partitions (docs/events.md, "Across the boundary") ----
  // The ports its components send events to partitions on, by name: port k is the
  // destination components() + k (context.send(components() + k, delay, kind, value)), with
  // the lookahead lookahead(from, components() + k); a scenario connects each port to the
  // event inputs of partitions. Models without ports talk only among themselves.
  virtual std::vector<std::string> ports() const { return {}; }
  // The event kind a scenario names for a partition's crossing (nullopt: no such kind).
  virtual std::optional<std::uint32_t> kind_named(const std::string& /*name*/) const {
    return std::nullopt;
  }
};

// The smallest lookahead of any link from a component in `from` to one in `to` (both
// lists of components); nullopt when there is none.
std::optional<double> smallest_lookahead(const EventModel& model, std::span<const ComponentId> from,
                                         std::span<const ComponentId> to);

}  // namespace kausal::des
