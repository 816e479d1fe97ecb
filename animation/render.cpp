#include "animation/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <QFontMetrics>

#include "animation/timeline.hpp"

namespace kausal {
namespace {

constexpr int axis_height = 18;
constexpr int strip_gap = 3;
constexpr int max_strip_height = 26;

void use_font(QPainter& p, int pixels) {
  QFont f = p.font();
  f.setPixelSize(pixels);
  p.setFont(f);
}

// A tick spacing of 1, 2 or 5 times a power of ten giving about `count` ticks.
double nice_step(double span, int count) {
  const double raw = span / std::max(count, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

std::string seconds_number(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.3g" : "%.0f", s);
  return buf;
}

std::string seconds_text(double s) {
  return seconds_number(s) + " s";
}

// One strip, one utilisation bar per pixel column (the utilisation figures of docs/tutorial.md): busy
// from the bottom, rolling back above it, waiting for the rest, each in proportion to the
// column's time. A component that is busy 2 % of the time looks 2 % busy, however many
// short spans it had; any rollback keeps at least one pixel so that it stays visible.
void draw_strip(QPainter& p, const QRect& strip, const std::vector<TimelineSpan>& spans, double t0,
                double t1) {
  const auto width = static_cast<std::size_t>(strip.width());
  const auto shares = Timeline(t0, t1, width).utilisation(spans, width);
  const int h = strip.height();
  p.fillRect(strip, QColor(colours::waiting));
  for (std::size_t c = 0; c < shares.size(); ++c) {
    const int busy = static_cast<int>(std::lround(shares[c].busy * h));
    int rollback = static_cast<int>(std::lround(shares[c].rollback * h));
    if (shares[c].rollback > 0) rollback = std::max(rollback, 1);
    rollback = std::min(rollback, h - std::min(busy, h));
    const int x = strip.x() + static_cast<int>(c);
    if (busy > 0) p.fillRect(x, strip.y() + h - busy, 1, busy, QColor(colours::busy));
    if (rollback > 0)
      p.fillRect(x, strip.y() + h - busy - rollback, 1, rollback, QColor(colours::rollback));
  }
}

void draw_time_axis(QPainter& p, const QRect& plot, double t0, double t1) {
  const double step = nice_step(t1 - t0, std::max(2, plot.width() / 90));
  p.setPen(QColor(colours::text));
  for (double t = std::ceil(t0 / step) * step; t <= t1 + 1e-12; t += step) {
    const int x = plot.left() + static_cast<int>(std::lround((t - t0) / (t1 - t0) * plot.width()));
    p.drawLine(x, plot.bottom() + 1, x, plot.bottom() + 4);
    draw_text(p, QRect(x - 40, plot.bottom() + 4, 80, axis_height - 4), seconds_text(t),
              Qt::AlignHCenter | Qt::AlignTop);
  }
}

void draw_marker(QPainter& p, const QRect& plot, double t0, double t1, const TimelineMarker& m) {
  if (m.t_s < t0 || m.t_s > t1) return;
  const int x = plot.left() + static_cast<int>((m.t_s - t0) / (t1 - t0) * plot.width());
  p.setPen(QPen(QColor(colours::horizon), 2));
  p.drawLine(x, plot.top(), x, plot.bottom());
  p.setPen(QColor(colours::horizon));
  // The label goes right of the line, or left of it where the plot ends.
  const QString label = QString::fromStdString(m.label);
  const int width = p.fontMetrics().horizontalAdvance(label) + 6;
  const bool fits_right = x + width <= plot.right();
  p.drawText(QRect(fits_right ? x + 3 : x - width, plot.top(), width, 14),
             (fits_right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop, label);
}

}  // namespace

TimelineLayout timeline_layout(const QRect& area, std::size_t tracks) {
  TimelineLayout l;
  l.label_width = std::min(180, area.width() / 4);  // "integrator-12 @ node-b"
  if (tracks == 0) return l;
  const int room = area.height() - axis_height;
  const int pitch = std::clamp(room / static_cast<int>(tracks), 1, max_strip_height + strip_gap);
  l.plot = QRect(area.left() + l.label_width, area.top(), area.width() - l.label_width,
                 pitch * static_cast<int>(tracks));
  for (std::size_t i = 0; i < tracks; ++i)
    l.strips.emplace_back(l.plot.left(), l.plot.top() + static_cast<int>(i) * pitch, l.plot.width(),
                          std::max(1, pitch - strip_gap));
  return l;
}

SnapshotLayout snapshot_layout(const QSize& size, std::size_t tracks) {
  SnapshotLayout l;
  l.title = QRect(8, 0, size.width() - 16, 24);
  const int below = size.height() - l.title.height();
  // The strips get what they need (up to 40 % of the picture); the chain gets the rest.
  const int wanted =
      tracks ? static_cast<int>(tracks) * (max_strip_height + strip_gap) + axis_height + 8 : 0;
  const int timeline = std::min(wanted, below * 2 / 5);
  l.pendulums = QRect(0, l.title.bottom() + 1, size.width(), below - timeline);
  if (tracks) l.timeline = QRect(8, l.pendulums.bottom() + 1, size.width() - 16, timeline - 4);
  return l;
}

LiveLayout live_layout(const QSize& size, std::size_t tracks) {
  constexpr int title = 24, horizon = 34;
  LiveLayout l;
  l.title = QRect(8, 0, size.width() - 16, title);
  const int strips =
      tracks ? std::min(static_cast<int>(tracks) * (max_strip_height + strip_gap) + axis_height + 8,
                        size.height() * 2 / 5)
             : 0;
  l.pendulums =
      QRect(0, title, size.width(), std::max(0, size.height() - title - horizon - strips));
  l.horizon = QRect(8, l.pendulums.bottom() + 1, size.width() - 16, horizon);
  if (tracks) l.timeline = QRect(8, l.horizon.bottom() + 2, size.width() - 16, strips - 4);
  return l;
}

Scene scene_for(const std::vector<PendulumGeometry>& pendulums, const QRect& area) {
  return Scene(pendulums,
               {double(area.x()), double(area.y()), double(area.width()), double(area.height())},
               pendulum_margin_px);
}

void draw_pendulums(QPainter& p, const Scene& scene, std::span<const double> states,
                    const std::vector<bool>& flashing) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  const std::size_t n = std::min(scene.size(), states.size() / 2);
  // The beam the pivots hang from.
  const PixelPoint first = scene.pivot(0), last = scene.pivot(scene.size() - 1);
  p.setPen(QPen(QColor(colours::string), 3));
  p.drawLine(QPointF(first.x - 20, first.y), QPointF(last.x + 20, last.y));
  for (std::size_t i = 0; i < n; ++i) {
    const PixelPoint pivot = scene.pivot(i), bob = scene.bob(i, states[2 * i]);
    p.setPen(QPen(QColor(colours::string), 1.5));
    p.drawLine(QPointF(pivot.x, pivot.y), QPointF(bob.x, bob.y));
    const bool flash = i < flashing.size() && flashing[i];
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(flash ? colours::bob_flash : colours::bob));
    const double r = scene.bob_radius(i);
    p.drawEllipse(QPointF(bob.x, bob.y), r, r);
    if (flash) {  // a ring that stands out even on small bobs
      p.setBrush(Qt::NoBrush);
      p.setPen(QPen(QColor(colours::bob_flash), 2));
      p.drawEllipse(QPointF(bob.x, bob.y), r + 5, r + 5);
    }
  }
  p.restore();
}

void draw_timeline(QPainter& p, const QRect& area, const std::vector<ComponentTrack>& tracks,
                   double t0, double t1, const std::optional<TimelineMarker>& marker) {
  if (tracks.empty() || !(t1 > t0)) return;
  const TimelineLayout l = timeline_layout(area, tracks.size());
  if (l.plot.width() < 1) return;
  p.save();
  use_font(p, std::clamp(l.strips[0].height() - 4, 8, 12));
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    draw_strip(p, l.strips[i], tracks[i].spans, t0, t1);
    draw_text(p, QRect(area.left(), l.strips[i].top(), l.label_width - 6, l.strips[i].height()),
              tracks[i].node.empty() ? tracks[i].name : tracks[i].name + " @ " + tracks[i].node,
              Qt::AlignRight | Qt::AlignVCenter);
  }
  use_font(p, 11);
  draw_time_axis(p, l.plot, t0, t1);
  if (marker) draw_marker(p, l.plot, t0, t1, *marker);
  p.restore();
}

void draw_horizon_bar(QPainter& p, const QRect& area, std::uint64_t last_step,
                      std::uint64_t shown_step, std::optional<std::uint64_t> horizon,
                      const std::string& horizon_name, const std::vector<std::uint64_t>& reached) {
  const QRect bar = area.adjusted(140, 2, -8, -2);
  if (bar.width() < 4 || bar.height() < 4) return;
  p.save();
  use_font(p, 11);
  const double steps = static_cast<double>(std::max<std::uint64_t>(last_step, 1));
  auto x_of = [&](std::uint64_t s) {
    return bar.left() + static_cast<int>(std::min(1.0, double(s) / steps) * bar.width());
  };
  p.fillRect(bar, QColor(colours::waiting));
  // How far each pendulum has got, one thin row each.
  const int rows = static_cast<int>(std::max<std::size_t>(reached.size(), 1));
  for (std::size_t i = 0; i < reached.size(); ++i) {
    const int y = bar.top() + static_cast<int>(i) * bar.height() / rows;
    p.fillRect(
        QRect(bar.left(), y, x_of(reached[i]) - bar.left(), std::max(1, bar.height() / rows - 1)),
        QColor(144, 202, 249));
  }
  p.setPen(QPen(Qt::black, 2));
  p.drawLine(x_of(shown_step), bar.top(), x_of(shown_step), bar.bottom());
  std::string text = "step " + std::to_string(shown_step) + " / " + std::to_string(last_step);
  if (horizon) {
    p.setPen(QPen(QColor(colours::horizon), 3));
    p.drawLine(x_of(*horizon), bar.top(), x_of(*horizon), bar.bottom());
    text += "   " + horizon_name + " " + std::to_string(*horizon);
  }
  draw_text(p, QRect(area.left(), area.top(), 136, area.height()), text,
            Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap);
  p.restore();
}

std::string wall_time_text(const WallTime& run) {
  std::string text = seconds_text(run.seconds);
  if (run.runs > 1)
    text += " (" + seconds_number(run.min_s) + "–" + seconds_text(run.max_s) + ", " +
            std::to_string(run.runs) + " runs)";
  return text;
}

WallChartLayout wall_chart_layout(const QRect& area, const std::vector<WallTime>& runs) {
  WallChartLayout l;
  auto widest = [&](int px, auto text_of) {
    QFont font;
    font.setPixelSize(px);
    const QFontMetrics metrics(font);
    int w = 0;
    for (const auto& r : runs)
      w = std::max(w, metrics.horizontalAdvance(QString::fromStdString(text_of(r))));
    return w;
  };
  auto label_of = [](const WallTime& r) { return r.label; };
  // Labels and values may take up to 70 % of the width together; beyond, a smaller font.
  const int room = area.width() * 7 / 10 - 32;
  for (l.font_px = 13; l.font_px > 7; --l.font_px)
    if (widest(l.font_px, label_of) + widest(l.font_px, wall_time_text) <= room) break;
  const int label_w = widest(l.font_px, label_of) + 8;
  const int value_w = widest(l.font_px, wall_time_text) + 8;
  l.title = QRect(area.left() + 8, area.top(), area.width() - 16, 28);
  l.labels = QRect(area.left() + 8, area.top() + 36, label_w, area.height() - 44);
  l.plot = QRect(l.labels.right() + 9, l.labels.top(),
                 std::max(1, area.width() - 8 - label_w - 8 - value_w - 8), l.labels.height());
  l.values = QRect(l.plot.right() + 1, l.plot.top(), value_w + 8, l.plot.height());
  l.pitch = runs.empty() ? 0 : std::clamp(l.plot.height() / static_cast<int>(runs.size()), 8, 48);
  return l;
}

void draw_wall_chart(QPainter& p, const QRect& area, const std::vector<WallTime>& runs) {
  if (runs.empty()) return;
  const WallChartLayout l = wall_chart_layout(area, runs);
  p.save();
  use_font(p, 13);
  draw_text(p, l.title, "wall time per method (seconds)");
  use_font(p, l.font_px);
  double longest = 0;
  for (const auto& r : runs) longest = std::max({longest, r.seconds, r.max_s});
  auto x_of = [&](double s) {
    return l.plot.left() + (longest > 0 ? static_cast<int>(s / longest * l.plot.width()) : 0);
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const WallTime& r = runs[i];
    const int y = l.plot.top() + static_cast<int>(i) * l.pitch;
    const int end = x_of(r.seconds);
    p.fillRect(QRect(l.plot.left(), y + 4, std::max(end - l.plot.left(), 1), l.pitch - 8),
               QColor(colours::bar));
    if (r.runs > 1) {  // the range of the runs: a whisker across the bar's end
      const int mid = y + l.pitch / 2, lo = x_of(r.min_s), hi = x_of(r.max_s);
      p.setPen(QPen(QColor(colours::text), 1));
      p.drawLine(lo, mid, hi, mid);
      p.drawLine(lo, mid - 4, lo, mid + 4);
      p.drawLine(hi, mid - 4, hi, mid + 4);
    }
    draw_text(p, QRect(l.labels.left(), y, l.labels.width(), l.pitch), r.label,
              Qt::AlignRight | Qt::AlignVCenter);
    draw_text(p, QRect(std::max(end, x_of(r.max_s)) + 6, y, l.values.width(), l.pitch),
              wall_time_text(r));
  }
  p.restore();
}

void draw_text(QPainter& p, const QRect& area, const std::string& text, int flags) {
  p.setPen(QColor(colours::text));
  p.drawText(area, flags, QString::fromStdString(text));
}

}  // namespace kausal
