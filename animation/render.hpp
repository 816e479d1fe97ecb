#pragma once
// Drawing the view with QPainter (QtGui only): the pendulums or the plots of a partitioned
// model, the utilisation strips, the horizon bar and the wall-time chart. The same functions paint
// the live window and the offscreen PNGs; the layout functions say where everything goes, so that
// tests can find the pixels they check.
#include <QColor>
#include <QPainter>
#include <QRect>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "animation/lateness_history.hpp"
#include "animation/plot_history.hpp"
#include "animation/run_view.hpp"
#include "animation/scene.hpp"

namespace kausal {

// The view's colours. Areas are filled flat (no gradients) so that a pixel inside one has
// exactly its colour.
namespace colours {
inline constexpr QRgb background = qRgb(255, 255, 255);
inline constexpr QRgb busy = qRgb(46, 125, 50);       // green: computing
inline constexpr QRgb rollback = qRgb(198, 40, 40);   // red: work a rollback threw away
inline constexpr QRgb waiting = qRgb(224, 224, 224);  // light grey: alive, waiting
inline constexpr QRgb bob = qRgb(21, 101, 192);       // blue
inline constexpr QRgb bob_flash = qRgb(255, 143, 0);  // orange: just rolled back
inline constexpr QRgb string = qRgb(97, 97, 97);
inline constexpr QRgb text = qRgb(33, 33, 33);
inline constexpr QRgb horizon = qRgb(106, 27, 154);  // purple: GVT / guarantee line
inline constexpr QRgb bar = qRgb(21, 101, 192);      // wall-time bars
inline constexpr QRgb axis = qRgb(158, 158, 158);    // a plot's frame and grid
// A plot's series, in legend order: the i-th series of a plot is drawn in series[i % 8].
inline constexpr std::array<QRgb, 8> series{
    qRgb(21, 101, 192), qRgb(230, 81, 0),  qRgb(0, 137, 123), qRgb(173, 20, 87),
    qRgb(121, 85, 72),  qRgb(94, 53, 177), qRgb(0, 151, 167), qRgb(124, 179, 66)};
inline constexpr QRgb mark = qRgb(255, 160, 0);  // amber: an event across the boundary
}  // namespace colours

// A vertical line across the strips at time t_s (seconds since the run started).
struct TimelineMarker {
  double t_s = 0;
  std::string label;  // e.g. "GVT 1200"
};

// Where draw_timeline puts things inside its area.
struct TimelineLayout {
  QRect plot;                 // the strips' columns (x) over all strips (y)
  std::vector<QRect> strips;  // one per track, inside plot
  // Right of each strip, its utilisation over the whole window (a bar and "busy 12 %"); empty
  // rectangles when the area is too narrow for them.
  std::vector<QRect> shares;
  int label_width = 0;
};
TimelineLayout timeline_layout(const QRect& area, std::size_t tracks);

// Where the snapshot mode puts the model (the chain, or the plots of a partitioned model) and
// the timeline in an image of `size`.
struct SnapshotLayout {
  QRect title;
  QRect model;
  QRect timeline;  // empty when there are no tracks
};
SnapshotLayout snapshot_layout(const QSize& size, std::size_t tracks);

// Where the live window puts the model (chain or plots), the horizon bar and the strips in
// its view area.
struct LiveLayout {
  QRect title;
  QRect model;
  QRect horizon;
  QRect lateness;  // paced runs only, else empty
  QRect timeline;  // empty when there are no tracks
};
LiveLayout live_layout(const QSize& size, std::size_t tracks, bool lateness = false);

// The margin (px) kept around the chain inside its area.
inline constexpr double pendulum_margin_px = 16;
Scene scene_for(const std::vector<PendulumGeometry>& pendulums, const QRect& area);

// states: (phi, omega) per pendulum; flashing: per pendulum, may be empty.
void draw_pendulums(QPainter& p, const Scene& scene, std::span<const double> states,
                    const std::vector<bool>& flashing = {});
// Where draw_plots puts each plot inside its area: stacked, one row each, as many as fit
// (at least plot_min_height px each; the rest are left out and a line says so).
inline constexpr int plot_min_height = 64;
struct PlotLayout {
  QRect title;  // the plot's title: its partition
  QRect plot;   // the data: x = simulated time, y = the values; axes labelled outside it
};
std::vector<PlotLayout> plot_layout(const QRect& area, std::size_t plots);
// Plot i of `spec` shows its series from `points` against simulated time t0 .. t1 (the whole
// run, so that the curves grow to the right), y autoscaled over the points
// (plot_value_range); lines are drawn without antialiasing, at most a few segments per pixel
// column (long histories are drawn as their per-column envelope), with a dot at each series'
// newest point and a legend. A flashing plot has its title in colours::bob_flash. Each mark
// (a hybrid model's event across the boundary) is a line in colours::mark across every plot,
// behind the curves, labelled in the first plot where there is room.
void draw_plots(QPainter& p, const QRect& area, const PlotSpec& spec, const PlotPoints& points,
                double t0, double t1, const std::vector<bool>& flashing = {},
                const std::vector<PlotMark>& marks = {});
// Strips cover [t0, t1] seconds; one per track, labelled with its name.
void draw_timeline(QPainter& p, const QRect& area, const std::vector<ComponentTrack>& tracks,
                   double t0, double t1, const std::optional<TimelineMarker>& marker = {});
// Progress of the run in steps: the horizon (GVT, guarantee, or the last step final in every
// partition) as a line, the shown step, and how far each pendulum (partition) has reached.
void draw_horizon_bar(QPainter& p, const QRect& area, std::uint64_t last_step,
                      std::uint64_t shown_step, std::optional<std::uint64_t> horizon,
                      const std::string& horizon_name, const std::vector<std::uint64_t>& reached);
// How the shown steps of a paced run kept their deadlines, on the horizon bar's x axis (the
// run's steps): per column its closest call, a bar down from the due line for the margin
// left (colours::busy) or up from it for an overrun (colours::rollback, at least 3 px), scaled
// to the largest; the overruns and the spread of the lateness as text.
void draw_lateness_bar(QPainter& p, const QRect& area, const LatenessView& lateness);
// A duration for people: "−280 µs", "2.10 ms", "1.50 s".
std::string duration_text(double s);
// One bar per method: its label and wall seconds (the median of its runs), and with several
// runs the range of their wall times as a whisker.
struct WallTime {
  std::string label;
  double seconds = 0;
  double min_s = 0, max_s = 0;  // 0, 0: only `seconds` is known
  std::size_t runs = 1;
};
// Where draw_wall_chart puts things in `area`: the labels' column is as wide as the widest
// label (whole labels, never cut; the font shrinks when they would take most of the width),
// the values' column as wide as the widest value.
struct WallChartLayout {
  int font_px = 13;
  QRect title;
  QRect labels;  // right-aligned labels, one per pitch
  QRect plot;    // the bars
  QRect values;
  int pitch = 0;
};
WallChartLayout wall_chart_layout(const QRect& area, const std::vector<WallTime>& runs);
// The text beside a bar: "1.23 s", with several runs "1.23 s (1.20–1.31 s, 3 runs)".
std::string wall_time_text(const WallTime& run);
void draw_wall_chart(QPainter& p, const QRect& area, const std::vector<WallTime>& runs);
void draw_text(QPainter& p, const QRect& area, const std::string& text,
               int flags = Qt::AlignLeft | Qt::AlignVCenter);

}  // namespace kausal
