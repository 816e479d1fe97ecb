#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "monitor/run_result.hpp"

namespace kausal {

void write_summary_json(const RunResult& result, const std::filesystem::path& file);
// The one-screen summary printed at the end of `kausal run`.
std::string format_summary(const RunResult& result);
// One row per method, digests compared with the first (the reference); used by `compare`.
std::string format_comparison(const std::vector<RunResult>& results);

}  // namespace kausal
