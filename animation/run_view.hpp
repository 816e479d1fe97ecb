#pragma once
// A finished run as the view reads it back from its output directory: summary.json,
// trace.json and trajectory.csv (written by monitor/record/summary.cpp, trace_writer.cpp and
// trajectory_recorder.cpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "animation/view_types.hpp"

namespace kausal {

// The activity of one component: one timeline strip.
struct ComponentTrack {
  std::string name;  // "monitor", "integrator-1", ...
  std::string role;  // "monitor", "integrator", "system", ... ("" if trace.json omits it)
  std::vector<TimelineSpan> spans;
  std::string node;  // multi-host runs: the node agent that started it ("" otherwise)
};

// Committed states as written to trajectory.csv: row k is time t[k] and states[k], which
// holds (phi, omega) per pendulum, or a partitioned model's states (one per plot series).
struct TrajectoryTable {
  std::vector<double> t;
  std::vector<std::vector<double>> states;
};

struct RunView {
  std::filesystem::path dir;
  std::string label;     // "optimistic", "conservative/lookahead", ...
  std::string scenario;  // scenario name
  std::string status;    // "completed" | "failed" | "interrupted"
  std::string layout;    // "process", "pendulum", "single"; "none" or "" for sequential
  double wall_s = 0;
  double h = 0;                            // step size (s); t = step * h, the run starting at t = 0
  std::vector<PendulumGeometry> geometry;  // pendulum chains
  // Partitioned models: one plot per partition (summary.json "partitions"), one series per
  // column of trajectory.csv ("member.state", in the plot of the member's partition).
  PlotSpec plot;
  std::vector<ComponentTrack> tracks;  // in summary.json's component order
  // When the monitor applied a chain's first impact (the earliest "event" span of
  // trace.json), in seconds since the run started; none in a run without one.
  std::optional<double> first_event_s;
  TrajectoryTable trajectory;
  // A hybrid model: every event across the boundary (bridge.csv), in order.
  std::vector<PlotMark> marks;

  // The end of the timeline axis: the later of wall_s and the last span's end (seconds).
  double timeline_end_s() const;
  // The trajectory row shown for committed step `step`: the last row written at or before
  // it (rows are written every output interval), the first row if none is. InputError if
  // the trajectory is empty.
  std::size_t row_for_step(std::uint64_t step) const;
  bool partitioned() const { return !plot.plots.empty(); }
  // Rows 0 .. last of the trajectory as plot points (partitioned models).
  PlotPoints plot_points(std::size_t last) const;
  // The marks up to time t.
  std::vector<PlotMark> marks_until(double t) const;
};

// Reads a run directory, a pendulum chain's or a partitioned model's. A missing or malformed
// file raises InputError naming the file and what is wrong with it.
RunView load_run_dir(const std::filesystem::path& dir);

// Only summary.json (what the wall-time chart needs); same errors as load_run_dir.
RunView load_run_summary(const std::filesystem::path& dir);
// summary.json and trace.json (what a utilisation timeline needs): any run, partitioned
// models too, which have no pendulums to draw.
RunView load_run_activity(const std::filesystem::path& dir);

}  // namespace kausal
