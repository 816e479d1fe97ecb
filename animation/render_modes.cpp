#include "animation/render_modes.hpp"

#include <QPainter>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "animation/render.hpp"
#include "common/errors.hpp"

namespace kausal {
namespace {

QImage blank(const QSize& size) {
  QImage image(size, QImage::Format_RGB32);
  image.fill(colours::background);
  return image;
}

bool has_layout(const RunView& run) {
  return !run.layout.empty() && run.layout != "none";
}

std::string run_title(const RunView& run) {
  return run.label + (has_layout(run) ? " [" + run.layout + "]" : "") + " · " + run.scenario +
         " · " + run.status;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
  if (run.partitioned())
    draw_plots(p, l.model, run.plot, run.plot_points(row), run.trajectory.t.front(),
               run.trajectory.t.back(), {}, run.marks_until(run.trajectory.t[row]));
  else
    draw_pendulums(p, scene_for(run.geometry, l.model), run.trajectory.states[row]);
  if (!run.tracks.empty())
    draw_timeline(p, l.timeline, run.tracks, 0.0, std::max(run.timeline_end_s(), 1e-6));
  return image;
}

QImage render_timeline(const RunView& run, const QSize& size, std::optional<double> span_s,
                       double from_s) {
  if (run.tracks.empty())
    throw InputError((run.dir / "summary.json").string() + ": no components to draw");
  if (span_s && !(*span_s > 0 && std::isfinite(*span_s)))
    throw InputError("--time-span must be a positive number of seconds");
  if (!(from_s >= 0 && std::isfinite(from_s)))
    throw InputError("--time-from must be a number of seconds, 0 or more");
  const double to_s = span_s ? from_s + *span_s : std::max(run.timeline_end_s(), from_s + 1e-6);
  QImage image = blank(size);
  QPainter p(&image);
  // A window of the run says which one (wall time: a few milliseconds need four digits).
  char window[96] = "";
  if (from_s > 0 || span_s)
    std::snprintf(window, sizeof window, " · wall %.4f – %.4f s", from_s, to_s);
  draw_text(p, QRect(8, 0, size.width() - 16, 24),
            run_title(run) + window + " · busy (green), rollback (red), waiting (grey)");
  draw_timeline(p, QRect(8, 28, size.width() - 16, size.height() - 32), run.tracks, from_s, to_s);
  return image;
}

QImage around_first_event(const RunView& run, const QSize& size, double span_s) {
  if (!run.first_event_s)
    throw InputError((run.dir / "trace.json").string() +
                     ": no impact to centre on (no \"event\" span: a run without impacts, or "
                     "one the monitor did not apply, as a sequential run's)");
  return render_timeline(run, size, span_s, std::max(0.0, *run.first_event_s - span_s / 2));
}

std::vector<WallTime> wall_chart_bars(const std::vector<RunView>& runs) {
  std::set<std::string> layouts;
  for (const auto& r : runs)
    if (has_layout(r)) layouts.insert(r.layout);
  // Repetitions: the runs of one method in one layout on one scenario, in order of appearance.
  std::vector<std::vector<const RunView*>> groups;
  for (const auto& r : runs) {
    auto same = [&](const auto& g) {
      return g.front()->label == r.label && g.front()->layout == r.layout &&
             g.front()->scenario == r.scenario;
    };
    const auto group = std::find_if(groups.begin(), groups.end(), same);
    if (group == groups.end())
      groups.push_back({&r});
    else
      group->push_back(&r);
  }
  std::vector<WallTime> bars;
  for (const auto& g : groups) {
    const RunView& r = *g.front();
    WallTime bar;
    bar.label = r.label + (layouts.size() > 1 && has_layout(r) ? " [" + r.layout + "]" : "");
    std::vector<double> walls;
    for (const RunView* run : g) walls.push_back(run->wall_s);
    bar.seconds = median(walls);
    bar.min_s = *std::min_element(walls.begin(), walls.end());
    bar.max_s = *std::max_element(walls.begin(), walls.end());
    bar.runs = g.size();
    bars.push_back(bar);
  }
  // One method on two scenarios: told apart by their directory.
  std::vector<std::string> labels;
  for (const auto& b : bars) labels.push_back(b.label);
  for (std::size_t i = 0; i < bars.size(); ++i)
    if (std::count(labels.begin(), labels.end(), labels[i]) > 1)
      bars[i].label += " (" + groups[i].front()->dir.filename().string() + ")";
  return bars;
}

QImage render_chart(const std::vector<RunView>& runs, const QSize& size) {
  QImage image = blank(size);
  QPainter p(&image);
  draw_wall_chart(p, QRect(QPoint(0, 0), size), wall_chart_bars(runs));
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
