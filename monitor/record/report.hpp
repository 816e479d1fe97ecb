#pragma once
// report.html of `kausal compare`: one self-contained page (images embedded as data URIs)
// with the comparison table, the wall time per method and, per method, the utilisation
// timeline of every component (busy / waiting / rolling back; docs/tutorial.md shows
// them); for paced runs (--realtime, --external-clock) also their overruns and p99 lateness
// in the table and their spreads per step under the timeline. The charts are drawn by Qt in
// `kausal-animation` (offscreen), run as a child.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "monitor/core/run_result.hpp"
#include "monitor/record/summary.hpp"

namespace kausal {

struct ReportRun {
  RunResult result;
  std::filesystem::path dir;  // its output directory (summary.json, trace.json, ...)
  std::size_t round = 0;      // which repetition (compare --repeat), from 0
};

struct ReportOptions {
  std::filesystem::path out_dir;   // report.html and the chart PNGs go here
  std::filesystem::path renderer;  // kausal-animation
  std::string title;               // e.g. the scenario file
  std::string setup;               // one line: pendulums, integrator, steps, h
  // Told before each chart is drawn (chart k of n, what it shows): drawing them takes a
  // second or so each, which a user should not wait through in silence.
  std::function<void(std::size_t k, std::size_t n, const std::string& what)> progress = {};
};

// Renders the charts and writes out_dir/report.html. `runs` in the order they ran, each
// round (repetition) in the same order, its reference first. The table has a row per method
// (and layout), medians over the rounds; the timelines show one run per row, the one whose
// wall time is nearest the median, all on one time axis, each followed by its real-time
// figures when it was paced. A chart that cannot be rendered is replaced by its error message
// in the page and returned as a warning; the page is always written (throws InputError only
// if it cannot be).
std::vector<std::string> write_report(const std::vector<ReportRun>& runs, const ReportOptions& o);

// The rows of the comparison of `runs` (in the order they ran, grouped into rounds).
std::vector<ComparisonRow> report_rows(const std::vector<ReportRun>& runs);

// Text for an HTML element's content or attribute value.
std::string html_escape(const std::string& text);
// The bytes of a file as base64 (data URIs).
std::string base64_of_file(const std::filesystem::path& file);

}  // namespace kausal
