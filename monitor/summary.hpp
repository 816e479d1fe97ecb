#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "monitor/run_result.hpp"

namespace kausal {

// v with exactly `decimals` digits after the point (tables, the report).
std::string fixed(double v, int decimals);

void write_summary_json(const RunResult& result, const std::filesystem::path& file);
// The one-screen summary printed at the end of `kausal run`.
std::string format_summary(const RunResult& result);
// One row of the comparison of methods (the table of `compare` and of report.html).
struct ComparisonRow {
  std::string label;
  double wall_s = 0;
  double vs_sequential = 0;  // speed-up against the first run (the reference); 0: none
  double vs_step = 0;        // speed-up against conservative/step; 0: not in the table
  std::uint64_t calc_calls = 0;
  double calc_cost_us = 0;
  std::uint64_t collisions = 0;
  std::uint64_t rollbacks = 0;
  std::uint64_t rolled_back_steps = 0;
  std::uint64_t messages = 0;
  double mean_utilisation = 0;
  std::string digest;
  std::string status;
  bool digest_equal = false;  // completed with the reference's digest
};

// Rows in the order of `results`; the first is the reference.
std::vector<ComparisonRow> comparison_rows(const std::vector<RunResult>& results);
// One row per method, digests compared with the first (the reference); used by `compare`.
std::string format_comparison(const std::vector<RunResult>& results);

}  // namespace kausal
