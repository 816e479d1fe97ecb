#pragma once
// What a model can take from an operator (docs/realtime.md, "Influence while running").
#include "monitor/run/run.hpp"
#include "monitor/scenario/injection_file.hpp"

namespace kausal {

// Whether `model` can take the injection: a push names one of a chain's pendulums (1-based),
// a set one of a partitioned model's subsystems and a constant input or parameter the model
// accepts the value for, every value finite; a discrete-event model takes stops only.
// InputError saying what is wrong.
void check_injection(const RunModel& model, const Injection& injection);

}  // namespace kausal
