#pragma once
// trace.json: the run's activity in Chrome trace-event format (opens in Perfetto and
// chrome://tracing). One track (thread) per component, named after it; "busy" and
// "rollback" complete events ("ph": "X"); time outside them is waiting. Timestamps are
// microseconds since the start of the run.
#include <filesystem>

#include "monitor/run_result.hpp"

namespace kausal {

void write_trace_json(const RunResult& result, const std::filesystem::path& file);

}  // namespace kausal
