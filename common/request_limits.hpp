#pragma once
// What one request from outside may make a component compute or hold (docs/architecture.md,
// "Limits on what one call may demand"). Every size, count and window that arrives over
// CORBA is checked against the System's model and against these before anything is
// allocated, so a hostile or careless caller gets an answer naming the field, never an
// abort, an unbounded allocation or minutes of work nobody waits for.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.hpp"

namespace kausal::limits {

// States, inputs, outputs and zero-crossing indicators of one model: a Jacobian of
// max_model_size² doubles is 32 MiB.
inline constexpr std::size_t max_model_size = 2048;

// The internal state (Model::save_internal) of one model, e.g. a serialized FMU state: what
// a restore from the wire or a checkpoint may hand a System.
inline constexpr std::size_t max_internal_bytes = std::size_t{64} << 20;

// What a component keeps for its caller between calls: an Integrator's state list (the
// steps not yet committed, the run-ahead window) or a partition's saved steps.
inline constexpr std::uint64_t held_bytes = std::uint64_t{256} << 20;

// The states (and outputs) one reply or one batch carries; far below the ORB's
// giopMaxMsgSize (256 MiB).
inline constexpr std::uint64_t reply_bytes = std::uint64_t{64} << 20;

// How long one advance() computes before it answers with the steps it has (the caller asks
// again): well below every caller's call timeout (at least 1 s for the monitor's), so a
// long grant is never mistaken for a hung component, and a caller that gave up leaves the
// Integrator busy for at most this long (plus one step).
inline constexpr std::chrono::milliseconds work_per_call{250};

// The artificial work of one derivative evaluation (model parameter calc_work, the
// scenario's calc_work / speed): 10^8 units are about 0.2-0.3 s on the project's VM, so one
// Calc (which holds its System) stays below every caller's call timeout. 10^12 held a
// System for an hour.
inline constexpr std::uint64_t max_calc_work = 100'000'000;

// An FMU archive shipped to a System on a node's host (FmuSetup::archive_bytes): far below
// the ORB's giopMaxMsgSize. A larger one is opened at its path there, as before shipping.
inline constexpr std::size_t max_shipped_archive_bytes = std::size_t{128} << 20;

// Changes of a partition's inputs and parameters (System::change) that a System keeps for
// a rollback: those after the sender's committed time. A parameter change keeps a model.
inline constexpr std::size_t max_unsettled_changes = 256;

// Events a hybrid model's partition holds until the steps that take them are committed
// (Integrator::schedule): far more than a discrete side sends ahead of a partition that
// follows it in time; the memory one partition gives them stays small.
inline constexpr std::size_t max_arriving_events = 4096;

// How many steps of `bytes_per_step` fit into `budget` (at least one).
constexpr std::uint64_t steps_within(std::uint64_t budget, std::uint64_t bytes_per_step) {
  return std::max<std::uint64_t>(1, budget / std::max<std::uint64_t>(1, bytes_per_step));
}

// `value` if it is at most `most`; otherwise a ProtocolError of `component` naming the field
// and what the limit protects.
inline std::uint64_t within(const std::string& component, const std::string& field,
                            std::uint64_t value, std::uint64_t most, const char* protects) {
  if (value <= most) return value;
  throw ProtocolError(component, field + " " + std::to_string(value) + " exceeds " +
                                     std::to_string(most) + " (" + protects + ")");
}

// A model's sizes, each at most max_model_size (`whose`: "the model", "system-2's model").
inline void require_model_within(const std::string& component, const std::string& whose,
                                 std::size_t states, std::size_t inputs, std::size_t outputs,
                                 std::size_t indicators) {
  const std::pair<const char*, std::size_t> sizes[] = {
      {"states", states}, {"inputs", inputs}, {"outputs", outputs}, {"indicators", indicators}};
  for (const auto& [what, n] : sizes)
    within(component, whose + ": " + what, n, max_model_size,
           "the largest model a component accepts");
}

}  // namespace kausal::limits
