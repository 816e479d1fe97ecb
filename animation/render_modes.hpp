#pragma once
// The offscreen modes of kausal-animation: a finished run directory drawn into a PNG.
#include <QImage>
#include <QSize>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "animation/render.hpp"
#include "animation/run_view.hpp"

namespace kausal {

// The pendulums at committed step `step` (default: the last row), or a partitioned model's
// values plotted up to it (one plot per partition, x over the whole run); the run's timeline
// below.
QImage render_snapshot(const RunView& run, std::optional<std::uint64_t> step, const QSize& size);
// The run's timeline alone: one strip per component, over [0, span_s] when given (timelines
// that are to be compared share one axis), else over the run's own length.
QImage render_timeline(const RunView& run, const QSize& size,
                       std::optional<double> span_s = std::nullopt, double from_s = 0);
// The timeline over `span_s` seconds centred on the run's first impact (RunView::
// first_event_s); InputError naming trace.json for a run without one.
QImage around_first_event(const RunView& run, const QSize& size, double span_s);
// One bar per method: the runs of one method, layout and scenario are repetitions, drawn as
// the median with the range of their wall times. Labels from summary.json, with the layout
// when the runs have several.
std::vector<WallTime> wall_chart_bars(const std::vector<RunView>& runs);
QImage render_chart(const std::vector<RunView>& runs, const QSize& size);

// Writes a PNG; InputError naming the file if it cannot.
void save_png(const QImage& image, const std::filesystem::path& file);
// "WxH", each 100 .. 8000; InputError otherwise.
QSize parse_size(const std::string& text);

}  // namespace kausal
