#pragma once
// Where the monitor reads a component's activity trace while a run goes (its ports say; the
// trace collector of monitor/record/trace_writer.hpp reads them).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/activity_trace.hpp"
#include "monitor/core/run_result.hpp"

namespace kausal {

// A component whose trace the monitor reads: `read(first, unsettled)` returns its spans from
// index `first` (nullopt once it cannot be asked).
struct TraceSource {
  std::string name;
  ComponentRole role = ComponentRole::monitor;
  std::string host;
  long pid = 0;
  std::int64_t clock_offset_ns = 0;  // its host's monotonic clock minus the monitor's
  std::function<std::optional<TracePage>(std::uint64_t first, bool unsettled)> read;
};

}  // namespace kausal
