#pragma once
// A partition's side of the bridge between its continuous states and discrete-event
// components (docs/events.md, "Across the boundary"):
//  - event outputs: an output of the partition crossing a level (rising, falling or either),
//    located inside the step to a stated tolerance by bisection on the step's state, the
//    step cut there; each crossing becomes an event for the discrete side;
//  - event inputs: events from the discrete side, each at its own time, that set one of the
//    partition's held inputs (a piecewise-constant command), set one of its states (a reset)
//    or add to it (an impulse): the step is cut at the event's time.
// The Integrator computes a step with its event ports from the state list's entry alone, so
// a step taken again (a rollback, the rollback check) gives the same bits and crossings.
#include <cstdint>
#include <string>
#include <vector>

#include "system/events/event.hpp"

namespace kausal {

enum class CrossingDirection : std::uint8_t { rising, falling, either };

// What an event output watches: one of the model's outputs against a level, or one of its
// event indicators (Model::indicators: an FMU's, or a model's own zero-crossing functions)
// against zero.
enum class CrossingOf : std::uint8_t { output, indicator };

// Event output: output (or indicator) `index` of the partition's model crossing `level`
// (an indicator's is 0); each crossing carries the value of output `carries` there.
struct EventOutput {
  std::size_t index = 0;
  double level = 0;
  CrossingDirection direction = CrossingDirection::either;
  std::size_t carries = 0;
  CrossingOf of = CrossingOf::output;
};

enum class EventEffect : std::uint8_t { set_input, set_state, add_state };

// Event input: what an arriving event does with its value. `index`: a held input
// (set_input) or a state of the partition (set_state, add_state).
struct EventInput {
  EventEffect effect = EventEffect::set_input;
  std::size_t index = 0;
};

// An event arriving for event input `input` at key.time; events at one time take effect in
// the order of their keys.
struct ArrivingEvent {
  des::EventKey key;
  std::uint32_t input = 0;
  double value = 0;
};

// A crossing of event output `output`, located at `time` while step `step` - 1 → `step` was
// computed; `value`: what it carries (EventOutput::carries) there.
struct LocatedCrossing {
  std::uint64_t step = 0;
  double time = 0;
  std::uint32_t output = 0;
  double value = 0;
  friend bool operator==(const LocatedCrossing&, const LocatedCrossing&) = default;
};

struct EventPorts {
  std::vector<EventOutput> outputs;
  std::vector<EventInput> inputs;
  // Model inputs that events set: the last ones of the model's inputs, after those the
  // channels drive; their values at the first step.
  std::vector<double> held0;
  std::size_t model_outputs = 0;  // the model's output count (what the event outputs read)
  // s: a crossing is located at most this long after the exact one (and never before it).
  double tolerance = 1e-9;
  // At most this many crossings in one step: a model that crosses more often chatters.
  static constexpr std::size_t max_crossings_per_step = 1000;

  bool any() const { return !outputs.empty() || !inputs.empty(); }
};

// Whether output value g_from → g_to crosses `level`-relative zero in `direction`.
bool crosses(CrossingDirection direction, double g_from, double g_to);

}  // namespace kausal
