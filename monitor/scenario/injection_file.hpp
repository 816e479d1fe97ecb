#pragma once
// One operator action on a running paced run, as OUT/injections.jsonl records it (one JSON
// object per line; docs/realtime.md): what `kausal run --replay` reads back.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "monitor/core/run_kind.hpp"

namespace kausal {

struct Injection {
  InjectionKind kind = InjectionKind::stop;
  // The step boundary (chains: the step; partitioned models: the tick) where it takes
  // effect: after state `step` is committed, before the step from it is taken.
  std::uint64_t step = 0;
  // push: the pendulum, 1-based ("3"); set: "subsystem.name"; send: "component" or
  // "component.kind" (a discrete-event model's event); stop: ""
  std::string target;
  double value = 0;  // push: the impulse (N·s); set: the new value; send: the event's value

  bool operator==(const Injection&) const = default;
};

// One line of injections.jsonl, and back. InputError "where: ..." for a line that is no
// injection (bad JSON, a missing or mistyped field, an unknown kind, a non-finite value).
std::string injection_line(const Injection& injection);
Injection parse_injection_line(const std::string& line, const std::string& where);
// Every injection of a recording, in order (InputError "PATH:LINE: ..."). A missing file is
// a run without injections.
std::vector<Injection> load_injections(const std::filesystem::path& file);
std::vector<Injection> parse_injections(const std::string& text, const std::string& file);

}  // namespace kausal
