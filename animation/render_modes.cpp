#include "animation/render_modes.hpp"

#include <QPainter>
#include <algorithm>
#include <charconv>
#include <cstdio>

#include "animation/render.hpp"
#include "system/errors.hpp"

namespace kausal {
namespace {

QImage blank(const QSize& size) {
  QImage image(size, QImage::Format_RGB32);
  image.fill(colours::background);
  return image;
}

std::string run_title(const RunView& run) {
  return run.label + " · " + run.scenario + " · " + run.status;
}

std::string time_text(double t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "t = %.3f s", t);
  return buf;
}

}  // namespace

QImage render_snapshot(const RunView& run, std::optional<std::uint64_t> step, const QSize& size) {
  if (step && run.h <= 0)
    throw InputError((run.dir / "summary.json").string() +
                     ": no step size \"h\", so --step cannot be placed in time");
  if (run.trajectory.t.empty())
    throw InputError((run.dir / "trajectory.csv").string() + ": no states to show");
  const std::size_t row = step ? run.row_for_step(*step) : run.trajectory.t.size() - 1;
  QImage image = blank(size);
  QPainter p(&image);
  const SnapshotLayout l = snapshot_layout(size, run.tracks.size());
  draw_text(p, l.title, run_title(run) + " · " + time_text(run.trajectory.t[row]));
  draw_pendulums(p, scene_for(run.geometry, l.pendulums), run.trajectory.states[row]);
  if (!run.tracks.empty())
    draw_timeline(p, l.timeline, run.tracks, 0.0, std::max(run.timeline_end_s(), 1e-6));
  return image;
}

QImage render_timeline(const RunView& run, const QSize& size) {
  if (run.tracks.empty())
    throw InputError((run.dir / "summary.json").string() + ": no components to draw");
  QImage image = blank(size);
  QPainter p(&image);
  draw_text(p, QRect(8, 0, size.width() - 16, 24),
            run_title(run) + " · busy (green), rollback (red), waiting (grey)");
  draw_timeline(p, QRect(8, 28, size.width() - 16, size.height() - 32), run.tracks, 0.0,
                std::max(run.timeline_end_s(), 1e-6));
  return image;
}

QImage render_chart(const std::vector<RunView>& runs, const QSize& size) {
  std::vector<WallTime> bars;
  for (const auto& r : runs) {
    // Two runs of one method are told apart by their directory.
    const auto same = std::count_if(runs.begin(), runs.end(),
                                    [&](const RunView& o) { return o.label == r.label; });
    bars.push_back(
        {same > 1 ? r.label + " (" + r.dir.filename().string() + ")" : r.label, r.wall_s});
  }
  QImage image = blank(size);
  QPainter p(&image);
  draw_wall_chart(p, QRect(QPoint(0, 0), size), bars);
  return image;
}

void save_png(const QImage& image, const std::filesystem::path& file) {
  if (!image.save(QString::fromStdString(file.string()), "PNG"))
    throw InputError(file.string() + ": cannot write the PNG (does its directory exist?)");
}

QSize parse_size(const std::string& text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const bool ok = x != std::string::npos && std::from_chars(begin, begin + x, w).ptr == begin + x &&
                  std::from_chars(begin + x + 1, end, h).ptr == end;
  if (!ok || w < 100 || h < 100 || w > 8000 || h > 8000)
    throw InputError("--size " + text + ": expected WIDTHxHEIGHT, each 100 to 8000 pixels");
  return {w, h};
}

}  // namespace kausal
