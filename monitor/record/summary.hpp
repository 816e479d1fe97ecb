#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/cpus.hpp"
#include "monitor/core/run_result.hpp"

namespace kausal {

// v with exactly `decimals` digits after the point (tables, the report).
std::string fixed(double v, int decimals);
// A speed-up such as 2.45×, 706× or 0.00142×: three significant digits and never rounded to
// zero (a run a thousand times slower still shows how much); "–" for none (x <= 0).
std::string ratio_text(double x);
// Seconds as microseconds with one decimal (real-time figures).
std::string micros(double s);

void write_summary_json(const RunResult& result, const std::filesystem::path& file);
// The one-screen summary printed at the end of `kausal run`.
std::string format_summary(const RunResult& result);
// A paced run's clock in one line: "factor 2 (500.0 µs per step), release by hybrid, 3
// overruns", or "external clock, N ticks, ...".
std::string realtime_setup(const RealtimeFigures& f);
// Its spreads per step (rows[0] the header: "per step", p50, p99, max): start delay,
// lateness, step, compute, communication, load and each component's step; figures nothing
// measured are left out. The table of the terminal summary and of report.html.
std::vector<std::vector<std::string>> realtime_rows(const RealtimeFigures& f);
// What its stall watch saw, in one line: "machine: 31 stalls over 100 µs on 2 CPUs (4 over
// 1 ms, longest 3.1 ms) in 20,000 samples"; "" when nothing watched.
std::string machine_stalls_line(const MachineStalls& m);

// One row of the comparison of methods (the table of `compare` and of report.html): one
// method in one layout, over every repetition of it (`compare --repeat K`). Figures that
// vary between repetitions are medians; the wall time also has its range.
struct ComparisonRow {
  std::string label;  // "conservative/step", with " [pendulum]" when layouts differ
  RunLayout layout;
  bool chain = true;    // a pendulum chain (it has collisions) rather than a partitioned model
  bool hybrid = false;  // partitions with discrete-event components: compared as partitions
  std::size_t runs = 0;
  double wall_s = 0;  // median
  double wall_min_s = 0, wall_max_s = 0;
  // Speed-ups, medians over the repetitions of each repetition's own ratio: against the
  // first run of the table (the sequential reference) and against conservative/step of the
  // same layout (0: none in the table; for the reference: only when one layout was run).
  double vs_sequential = 0;
  double vs_step = 0;
  // Clemens' efficiency η = σ/p: vs_sequential over the processors the run could use (1 for
  // sequential; else its parts that compute side by side, at most the CPUs given).
  std::size_t processors = 1;
  double efficiency = 0;
  std::uint64_t calc_calls = 0;
  double calc_cost_us = 0;
  std::uint64_t collisions = 0;
  std::uint64_t rollbacks = 0;
  std::uint64_t rolled_back_steps = 0;
  std::uint64_t monitor_calls = 0;
  double mean_utilisation = 0;
  double idle_s = 0;                   // summed over the components
  std::optional<double> global_error;  // compare --reference: median over the repetitions
  // Under the co-simulation master (none otherwise): macro steps accepted and rejected,
  // passes beyond each step's first, and input jumps (where a variable-step solver restarts).
  std::optional<CosimulationFigures> cosimulation;
  // Discrete-event models: the figures of the first repetition, with medians of the counts
  // over the repetitions, and the median of the committed events per second.
  std::optional<EventFigures> events;
  double committed_per_s = 0;
  std::string digest;
  RunStatus status = RunStatus::completed;  // or the first other status of a repetition
  bool digest_equal = false;  // every repetition completed with the reference's digest
  // Paced runs (--realtime, --external-clock): medians over the paced repetitions of the
  // overruns, of those the machine made (docs/realtime.md, "Whose overruns") and of the p99
  // of the lateness; paced false (and no figures) for the others.
  bool paced = false;
  std::uint64_t overruns = 0;
  std::uint64_t overruns_machine = 0;
  double lateness_p99_s = 0;
};
// Some row was paced: the table has the columns of real time.
bool any_paced(const std::vector<ComparisonRow>& rows);
// η with its p: "0.42 (p 2)"; below 0.1 to two significant digits ("0.0014 (p 2)").
std::string efficiency_text(const ComparisonRow& row);

// rounds[k]: the k-th repetition of every run of the comparison, in one order, the reference
// (sequential) first. A round cut short by a failure may have fewer runs. Rows in that order.
// `cpus`: the processors there are (η's p is at most that many).
std::vector<ComparisonRow> comparison_rows(const std::vector<std::vector<RunResult>>& rounds,
                                           std::size_t cpus = available_cpu_count());
inline std::vector<ComparisonRow> comparison_rows(const std::vector<RunResult>& results,
                                                  std::size_t cpus = available_cpu_count()) {
  return comparison_rows(std::vector<std::vector<RunResult>>{results}, cpus);
}
// The table of `compare`: one row per method (and layout); collisions only if some model
// has them, the range of wall times only with repetitions, overruns and p99 lateness only
// if some run was paced.
std::string format_comparison(const std::vector<ComparisonRow>& rows, std::size_t width = 0);

// compare --reference, state by state: its error with every partition alone (its own method
// and step, its inputs the reference's; NaN: not measured) and in the coupled sequential run.
struct StateErrorRow {
  std::string state;
  double alone = 0;
  double coupled = 0;
};
std::string format_state_errors(const std::vector<StateErrorRow>& rows);
// A run's label in a comparison: "conservative/step", or "conservative/step [pendulum]" when
// the comparison has several layouts (sequential has none).
std::string comparison_label(const RunResult& r, bool several_layouts);
// The line `compare` prints as each run ends, e.g. "[3/8] conservative/step [pendulum]
// 2.689 s, digest = reference"; `reference` is the comparison's first run.
std::string format_finished_run(const RunResult& r, bool several_layouts,
                                const RunResult& reference, std::size_t done, std::size_t total);
// OUT/comparison.json: the rows as written in the table, with every value exact.
// With `by_state` (compare --reference) also "error_by_state": [{state, alone, coupled}]
// (alone null where not measured).
void write_comparison_json(const std::vector<ComparisonRow>& rows,
                           const std::filesystem::path& file,
                           const std::vector<StateErrorRow>& by_state = {});

}  // namespace kausal
