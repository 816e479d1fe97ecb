#include "animation/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <QFontMetrics>
#include <QPolygon>

#include "animation/timeline.hpp"

namespace kausal {
namespace {

constexpr int axis_height = 18;
constexpr int strip_gap = 3;
constexpr int max_strip_height = 26;
constexpr int share_column = 205;  // a strip's utilisation, right of it

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

// One strip, one utilisation bar per pixel column (the utilisation figures of docs/tutorial.md):
// busy from the bottom, rolling back above it, waiting for the rest, each in proportion to the
// column's time. A component that is busy 2 % of the time looks 2 % busy, however many
// short spans it had; any work or rollback keeps at least two pixels so that it stays visible.
void draw_strip(QPainter& p, const QRect& strip, const std::vector<TimelineSpan>& spans, double t0,
                double t1) {
  const auto width = static_cast<std::size_t>(strip.width());
  const auto shares = Timeline(t0, t1, width).utilisation(spans, width);
  const int h = strip.height();
  p.fillRect(strip, QColor(colours::waiting));
  for (std::size_t c = 0; c < shares.size(); ++c) {
    int busy = static_cast<int>(std::lround(shares[c].busy * h));
    int rollback = static_cast<int>(std::lround(shares[c].rollback * h));
    // However short, work stays visible: 2 px at least (the column on the right says how much).
    if (shares[c].busy > 0) busy = std::min(std::max(busy, 2), h);
    if (shares[c].rollback > 0) rollback = std::max(rollback, 2);
    rollback = std::min(rollback, h - std::min(busy, h));
    const int x = strip.x() + static_cast<int>(c);
    if (busy > 0) p.fillRect(x, strip.y() + h - busy, 1, busy, QColor(colours::busy));
    if (rollback > 0)
      p.fillRect(x, strip.y() + h - busy - rollback, 1, rollback, QColor(colours::rollback));
  }
}

// How much of [t0, t1] the component spent busy and rolling back: a bar in the strip's
// colours and the two figures, so that a picture says what its thin ticks add up to.
void draw_share(QPainter& p, const QRect& area, const std::vector<TimelineSpan>& spans, double t0,
                double t1) {
  if (area.width() < 20) return;
  const Utilisation u = Timeline(t0, t1, 1).utilisation(spans, 1).at(0);
  const QRect bar(area.left(), area.top() + 2, area.width(), std::max(3, area.height() / 4));
  p.fillRect(bar, QColor(colours::waiting));
  const int busy = static_cast<int>(std::lround(u.busy * bar.width()));
  int rollback = static_cast<int>(std::lround(u.rollback * bar.width()));
  if (u.rollback > 0) rollback = std::max(rollback, 1);
  p.fillRect(bar.left(), bar.top(), busy, bar.height(), QColor(colours::busy));
  p.fillRect(bar.left() + busy, bar.top(), std::min(rollback, bar.width() - busy), bar.height(),
             QColor(colours::rollback));
  const auto percent = [](double share) {
    if (share > 0 && share < 0.001) return std::string("< 0.1 %");
    char text[16];
    std::snprintf(text, sizeof text, share < 0.0095 ? "%.1f %%" : "%.0f %%", 100 * share);
    return std::string(text);
  };
  std::string text = "busy " + percent(u.busy);
  if (u.rollback > 0) text += ", rollback " + percent(u.rollback);
  p.setPen(QColor(colours::text));
  draw_text(p, QRect(area.left(), bar.bottom() + 1, area.width(), area.bottom() - bar.bottom()),
            text, Qt::AlignLeft | Qt::AlignVCenter);
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
  // "busy 100 %, rollback 100 %" at the strips' font needs about this much.
  const int share_width = area.width() >= 640 ? share_column : 0;
  l.plot = QRect(area.left() + l.label_width, area.top(),
                 area.width() - l.label_width - share_width, pitch * static_cast<int>(tracks));
  for (std::size_t i = 0; i < tracks; ++i) {
    l.strips.emplace_back(l.plot.left(), l.plot.top() + static_cast<int>(i) * pitch, l.plot.width(),
                          std::max(1, pitch - strip_gap));
    l.shares.emplace_back(l.plot.right() + 9, l.strips.back().top(), std::max(0, share_width - 9),
                          l.strips.back().height());
  }
  return l;
}

SnapshotLayout snapshot_layout(const QSize& size, std::size_t tracks) {
  SnapshotLayout l;
  l.title = QRect(8, 0, size.width() - 16, 24);
  const int below = size.height() - l.title.height();
  // The strips get what they need (up to 40 % of the picture); the model gets the rest.
  const int wanted =
      tracks ? static_cast<int>(tracks) * (max_strip_height + strip_gap) + axis_height + 8 : 0;
  const int timeline = std::min(wanted, below * 2 / 5);
  l.model = QRect(0, l.title.bottom() + 1, size.width(), below - timeline);
  if (tracks) l.timeline = QRect(8, l.model.bottom() + 1, size.width() - 16, timeline - 4);
  return l;
}

LiveLayout live_layout(const QSize& size, std::size_t tracks, bool lateness) {
  constexpr int title = 24, horizon = 34;
  const int deadlines = lateness ? 40 : 0;
  LiveLayout l;
  l.title = QRect(8, 0, size.width() - 16, title);
  const int strips =
      tracks ? std::min(static_cast<int>(tracks) * (max_strip_height + strip_gap) + axis_height + 8,
                        size.height() * 2 / 5)
             : 0;
  l.model = QRect(0, title, size.width(),
                  std::max(0, size.height() - title - horizon - deadlines - strips));
  l.horizon = QRect(8, l.model.bottom() + 1, size.width() - 16, horizon);
  int below = l.horizon.bottom();
  if (lateness) {
    l.lateness = QRect(8, below + 2, size.width() - 16, deadlines - 2);
    below = l.lateness.bottom();
  }
  if (tracks) l.timeline = QRect(8, below + 2, size.width() - 16, strips - 4);
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
  // Their numbers above the beam (as kausal inject push and the summary count them, from 1),
  // each only where it does not run into the one before.
  use_font(p, 10);
  p.setPen(QColor(colours::text));
  double free_from = -1e9;
  for (std::size_t i = 0; i < n; ++i) {
    const QString label = QString::number(i + 1);
    const int w = p.fontMetrics().horizontalAdvance(label);
    const PixelPoint pivot = scene.pivot(i);
    if (pivot.x - w / 2.0 < free_from) continue;
    p.drawText(QRectF(pivot.x - w / 2.0 - 1, pivot.y - 18, w + 2, 14),
               Qt::AlignHCenter | Qt::AlignBottom, label);
    free_from = pivot.x + w / 2.0 + 4;
  }
  p.restore();
}

std::vector<PlotLayout> plot_layout(const QRect& area, std::size_t plots) {
  constexpr int title = 16, left = 64, right = 24, bottom = 18, gap = 6;
  std::vector<PlotLayout> out;
  if (plots == 0 || area.height() < plot_min_height) return out;
  const int fit = std::max(1, (area.height() - 14) / plot_min_height);
  const int shown = static_cast<int>(std::min<std::size_t>(plots, static_cast<std::size_t>(fit)));
  // With plots left out, a line at the bottom says so.
  const int room = area.height() - (shown < static_cast<int>(plots) ? 14 : 0);
  const int pitch = room / shown;
  for (int i = 0; i < shown; ++i) {
    const int top = area.top() + i * pitch;
    PlotLayout l;
    l.title = QRect(area.left() + left, top, area.width() - left - right, title);
    l.plot = QRect(area.left() + left, top + title, area.width() - left - right,
                   std::max(8, pitch - title - bottom - gap));
    out.push_back(l);
  }
  return out;
}

namespace {

std::string value_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", std::abs(v) < 1e-300 ? 0.0 : v);
  return buf;
}

// One series as a polyline with at most four vertices per pixel column (first, lowest,
// highest, last), so that a history of any length costs one pass and draws its envelope.
void draw_series(QPainter& p, const QRect& plot, const std::vector<double>& t,
                 const std::vector<double>& v, double t0, double t1, ValueRange y, QRgb colour) {
  if (v.empty()) return;
  const double xs = (plot.width() - 1) / (t1 - t0), ys = (plot.height() - 1) / (y.hi - y.lo);
  auto x_of = [&](double time) {
    return plot.left() + static_cast<int>(std::lround(
                             std::clamp((time - t0) * xs, 0.0, double(plot.width() - 1))));
  };
  auto y_of = [&](double value) {
    return plot.bottom() - static_cast<int>(std::lround(
                               std::clamp((value - y.lo) * ys, 0.0, double(plot.height() - 1))));
  };
  QPolygon line;
  int column = x_of(t[0]), first = y_of(v[0]), last = first, lo = first, hi = first;
  auto flush = [&] {
    line << QPoint(column, first);
    if (lo != first || hi != first) line << QPoint(column, lo) << QPoint(column, hi);
    if (last != line.back().y()) line << QPoint(column, last);
  };
  for (std::size_t k = 1; k < v.size() && k < t.size(); ++k) {
    const int x = x_of(t[k]), yy = y_of(v[k]);
    if (x != column) {
      flush();
      column = x;
      first = lo = hi = yy;
    }
    last = yy;
    lo = std::min(lo, yy);
    hi = std::max(hi, yy);
  }
  flush();
  p.setPen(QPen(QColor(colour), 2));
  p.setBrush(Qt::NoBrush);
  if (line.size() > 1) p.drawPolyline(line);
  // The newest point: a dot that shows even a single frame.
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(colour));
  p.drawEllipse(QPoint(line.back().x(), last), 3, 3);
}

// The y range of a normalised plot: each series' own range mapped onto 0..1, padded as a
// plot's range is.
constexpr ValueRange normalised_range{-0.05, 1.05};

// A tick of a y axis at value v (range y), labelled.
void draw_value_tick(QPainter& p, const QRect& plot, ValueRange y, double v,
                     const std::string& label) {
  const int yy =
      plot.bottom() - static_cast<int>(std::lround((v - y.lo) / (y.hi - y.lo) * plot.height()));
  p.setPen(QColor(colours::axis));
  p.drawLine(plot.left() - 4, yy, plot.left(), yy);
  draw_text(p, QRect(plot.left() - 62, yy - 7, 56, 14), label, Qt::AlignRight | Qt::AlignVCenter);
}

void draw_value_axis(QPainter& p, const QRect& plot, ValueRange y) {
  const double step = nice_step(y.hi - y.lo, std::max(2, plot.height() / 40));
  for (double v = std::ceil(y.lo / step) * step; v <= y.hi + 1e-9 * step; v += step)
    draw_value_tick(p, plot, y, v, value_text(v));
}

// A normalised plot's y axis: each series from the bottom (its least value) to the top (its
// greatest), the legend giving each one's range.
void draw_normalised_axis(QPainter& p, const QRect& plot) {
  const ValueRange y = normalised_range;
  draw_value_tick(p, plot, y, 0.0, "min");
  draw_value_tick(p, plot, y, 1.0, "max");
  draw_text(p, QRect(plot.left() - 62, plot.center().y() - 14, 58, 28), "each\nits own",
            Qt::AlignRight | Qt::AlignVCenter);
}

// The legend: in the title row after the title (`free`: the room left there) when every entry
// fits, so that it covers no curve; else a box in the plot's upper right corner.
void draw_legend(QPainter& p, const QRect& plot, const QRect& free,
                 const std::vector<std::pair<std::string, QRgb>>& entries) {
  if (entries.empty()) return;
  const QFontMetrics metrics = p.fontMetrics();
  int inline_w = 0;
  for (const auto& [name, c] : entries)
    inline_w += 18 + metrics.horizontalAdvance(QString::fromStdString(name)) + 12;
  if (inline_w <= free.width()) {
    int x = free.left();
    for (const auto& [name, c] : entries) {
      p.fillRect(QRect(x, free.center().y() - 1, 14, 3), QColor(c));
      const int w = metrics.horizontalAdvance(QString::fromStdString(name));
      draw_text(p, QRect(x + 18, free.top(), w + 2, free.height()), name,
                Qt::AlignLeft | Qt::AlignVCenter);
      x += 18 + w + 12;
    }
    return;
  }
  int text_w = 0;
  for (const auto& [name, c] : entries)
    text_w = std::max(text_w, metrics.horizontalAdvance(QString::fromStdString(name)));
  const int row = 14;
  const int rows =
      std::min(static_cast<int>(entries.size()), std::max(1, (plot.height() - 4) / row));
  const QRect box(plot.right() - text_w - 30, plot.top() + 2, text_w + 28, rows * row + 4);
  p.setPen(QColor(colours::axis));
  p.setBrush(QColor(colours::background));
  p.drawRect(box);
  for (int i = 0; i < rows; ++i) {
    const int y = box.top() + 2 + i * row;
    p.fillRect(QRect(box.left() + 4, y + row / 2 - 1, 14, 3), QColor(entries[i].second));
    draw_text(p, QRect(box.left() + 22, y, text_w + 4, row), entries[i].first);
  }
}

}  // namespace

// The marks in plot `plot` (t0 .. t1 across its width): a line each; labelled when `label`,
// each label only where it does not run into the one before.
void draw_marks(QPainter& p, const QRect& plot, const std::vector<PlotMark>& marks, double t0,
                double t1, bool label) {
  const double xs = (plot.width() - 1) / (t1 - t0);
  p.setPen(QPen(QColor(colours::mark), 1));
  int free_from = plot.left();
  const QFontMetrics metrics(p.font());
  for (const PlotMark& m : marks) {
    if (m.t < t0 || m.t > t1) continue;
    const int x = plot.left() + static_cast<int>(std::lround((m.t - t0) * xs));
    p.drawLine(x, plot.top(), x, plot.bottom());
    if (!label || x < free_from) continue;
    const QString text = QString::fromStdString(m.label);
    const int width = metrics.horizontalAdvance(text);
    if (x + 3 + width > plot.right()) continue;
    p.drawText(QRect(x + 3, plot.top() + 1, width, metrics.height()), Qt::AlignLeft | Qt::AlignTop,
               text);
    free_from = x + 3 + width + 4;
  }
}

void draw_plots(QPainter& p, const QRect& area, const PlotSpec& spec, const PlotPoints& points,
                double t0, double t1, const std::vector<bool>& flashing,
                const std::vector<PlotMark>& marks) {
  if (!(t1 > t0)) t1 = t0 + 1;
  const auto layout = plot_layout(area, spec.plots.size());
  p.save();
  p.setRenderHint(QPainter::Antialiasing, false);
  use_font(p, 11);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const PlotLayout& l = layout[i];
    const bool flash = i < flashing.size() && flashing[i];
    p.setPen(QColor(flash ? colours::bob_flash : colours::text));
    const QString title = QString::fromStdString(spec.plots[i]);
    p.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter, title);
    // The x axis' name at the title row's right end; the legend between the two.
    const QString x_name = "x: simulated time";
    p.setPen(QColor(colours::axis));
    p.drawText(l.title, Qt::AlignRight | Qt::AlignVCenter, x_name);
    const int title_w = p.fontMetrics().horizontalAdvance(title) + 16;
    const QRect free(l.title.left() + title_w, l.title.top(),
                     l.title.width() - title_w - p.fontMetrics().horizontalAdvance(x_name) - 16,
                     l.title.height());
    p.setPen(QColor(colours::axis));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot.adjusted(-1, -1, 0, 0));  // outside the data rectangle
    // One scale for the plot, or each series on its own (its range in the legend) when their
    // ranges differ too much for one.
    const bool normalised = plot_is_normalised(spec, points, i);
    const ValueRange y = normalised ? normalised_range : plot_value_range(spec, points, i);
    if (normalised)
      draw_normalised_axis(p, l.plot);
    else
      draw_value_axis(p, l.plot, y);
    draw_time_axis(p, QRect(l.plot.left(), l.plot.top(), l.plot.width(), l.plot.height() + 1), t0,
                   t1);
    p.setClipRect(l.plot);
    draw_marks(p, l.plot, marks, t0, t1, i == 0);
    std::vector<std::pair<std::string, QRgb>> legend;
    for (std::size_t s = 0; s < spec.series.size(); ++s) {
      if (spec.series[s].plot != i) continue;
      const QRgb colour = colours::series[legend.size() % 8];
      std::string name = spec.series[s].name;
      if (s < points.values.size()) {
        const ValueRange own = normalised ? series_value_range(points, s) : y;
        draw_series(p, l.plot, points.t, points.values[s], t0, t1, own, colour);
        if (const ValueRange e = series_extent(points, s); normalised && e.lo <= e.hi)
          name.append(" ").append(value_text(e.lo)).append("…").append(value_text(e.hi));
      }
      legend.emplace_back(std::move(name), colour);
    }
    p.setClipping(false);
    draw_legend(p, l.plot, free, legend);
  }
  if (layout.size() < spec.plots.size())
    draw_text(p, QRect(area.left() + 8, area.bottom() - 13, area.width() - 16, 14),
              std::to_string(spec.plots.size() - layout.size()) +
                  " more plots do not fit (a larger window shows them)");
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
    draw_share(p, l.shares[i], tracks[i].spans, t0, t1);
    draw_text(p, QRect(area.left(), l.strips[i].top(), l.label_width - 6, l.strips[i].height()),
              tracks[i].node.empty() ? tracks[i].name : tracks[i].name + " @ " + tracks[i].node,
              Qt::AlignRight | Qt::AlignVCenter);
  }
  use_font(p, 11);
  draw_time_axis(p, l.plot, t0, t1);
  // Its axis is wall time (a plot's is simulated time): said where the strips' names end.
  p.setPen(QColor(colours::axis));
  draw_text(p, QRect(area.left(), l.plot.bottom() + 4, l.label_width - 24, axis_height - 4),
            "x: wall time", Qt::AlignRight | Qt::AlignTop);
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

std::string duration_text(double s) {
  const double a = std::fabs(s);
  const char* unit = a < 1e-3 ? "µs" : a < 1 ? "ms" : "s";
  const double scaled = a < 1e-3 ? s * 1e6 : a < 1 ? s * 1e3 : s;
  char buf[48];
  std::snprintf(buf, sizeof buf, std::fabs(scaled) < 10 ? "%.2f %s" : "%.0f %s", scaled, unit);
  std::string text = buf;
  if (s < 0) text.replace(0, 1, "\u2212");  // a real minus sign
  return text;
}

void draw_lateness_bar(QPainter& p, const QRect& area, const LatenessView& v) {
  // The same columns as the horizon bar above it: x is the run's steps.
  const QRect bar = area.adjusted(140, 2, -8, -2);
  if (bar.width() < 4 || bar.height() < 6) return;
  p.save();
  use_font(p, 11);
  p.fillRect(bar, QColor(colours::background));
  p.setPen(QColor(colours::axis));
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  double largest = 0;
  for (const auto& c : v.columns)
    if (c) largest = std::max(largest, std::fabs(c->latest_s));
  const double scale = largest > 0 ? nice_step(largest, 1) : 1e-3;
  // The due line: overruns above it, margins below (a step early by the whole scale reaches
  // the bottom).
  const int due_y = bar.top() + bar.height() / 3;
  const int up = due_y - bar.top() - 1, down = bar.bottom() - due_y - 1;
  const auto n = static_cast<double>(v.columns.size());
  for (int x = 0; x < bar.width(); ++x) {
    // The columns under this pixel: the closest call among them.
    const auto c0 = static_cast<std::size_t>(x * n / bar.width());
    const auto c1 = std::max(c0 + 1, static_cast<std::size_t>((x + 1) * n / bar.width()));
    std::optional<double> latest;
    for (std::size_t c = c0; c < c1 && c < v.columns.size(); ++c)
      if (v.columns[c])
        latest = std::max(latest.value_or(v.columns[c]->latest_s), v.columns[c]->latest_s);
    if (!latest) continue;
    const double share = std::min(1.0, std::fabs(*latest) / scale);
    if (*latest > 0) {  // an overrun stays visible however small beside the largest margin
      const int h = std::max(std::min(3, up), static_cast<int>(std::lround(share * up)));
      p.fillRect(bar.left() + x, due_y - h, 1, h, QColor(colours::rollback));
    } else {
      const int h = std::max(1, static_cast<int>(std::lround(share * down)));
      p.fillRect(bar.left() + x, due_y + 1, 1, h, QColor(colours::busy));
    }
  }
  p.setPen(QColor(colours::text));
  p.drawLine(bar.left(), due_y, bar.right(), due_y);
  const std::string spread = v.steps == 0
                                 ? std::string("no step shown yet")
                                 : "p50 " + duration_text(v.p50_s) + " · p99 " +
                                       duration_text(v.p99_s) + " · max " + duration_text(v.max_s);
  draw_text(p, bar.adjusted(4, 0, -4, 0), spread, Qt::AlignRight | Qt::AlignBottom);
  draw_text(p, QRect(area.left(), area.top(), 136, area.height()),
            "lateness (±" + duration_text(scale) + ")\noverruns " + std::to_string(v.overruns),
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
