#pragma once
// The offscreen modes of kausal-animation: a finished run directory drawn into a PNG.
#include <QImage>
#include <QSize>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "animation/run_view.hpp"

namespace kausal {

// The pendulums at committed step `step` (default: the last row), the run's timeline below.
QImage render_snapshot(const RunView& run, std::optional<std::uint64_t> step, const QSize& size);
// The run's timeline alone: one strip per component.
QImage render_timeline(const RunView& run, const QSize& size);
// Wall time of each run, labelled from its summary.json.
QImage render_chart(const std::vector<RunView>& runs, const QSize& size);

// Writes a PNG; InputError naming the file if it cannot.
void save_png(const QImage& image, const std::filesystem::path& file);
// "WxH", each 100 .. 8000; InputError otherwise.
QSize parse_size(const std::string& text);

}  // namespace kausal
