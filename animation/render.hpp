#pragma once
// Drawing the view with QPainter (QtGui only): the pendulums, the utilisation strips, the
// horizon bar and the wall-time chart. The same functions paint the live window and the
// offscreen PNGs; the layout functions say where everything goes, so that tests can find
// the pixels they check.
#include <QColor>
#include <QPainter>
#include <QRect>
#include <optional>
#include <span>
#include <string>
#include <vector>

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
  int label_width = 0;
};
TimelineLayout timeline_layout(const QRect& area, std::size_t tracks);

// Where the snapshot mode puts the pendulums and the timeline in an image of `size`.
struct SnapshotLayout {
  QRect title;
  QRect pendulums;
  QRect timeline;  // empty when there are no tracks
};
SnapshotLayout snapshot_layout(const QSize& size, std::size_t tracks);

// Where the live window puts the chain, the horizon bar and the strips in its view area.
struct LiveLayout {
  QRect title;
  QRect pendulums;
  QRect horizon;
  QRect timeline;  // empty when there are no tracks
};
LiveLayout live_layout(const QSize& size, std::size_t tracks);

// The margin (px) kept around the chain inside its area.
inline constexpr double pendulum_margin_px = 16;
Scene scene_for(const std::vector<PendulumGeometry>& pendulums, const QRect& area);

// states: (phi, omega) per pendulum; flashing: per pendulum, may be empty.
void draw_pendulums(QPainter& p, const Scene& scene, std::span<const double> states,
                    const std::vector<bool>& flashing = {});
// Strips cover [t0, t1] seconds; one per track, labelled with its name.
void draw_timeline(QPainter& p, const QRect& area, const std::vector<ComponentTrack>& tracks,
                   double t0, double t1, const std::optional<TimelineMarker>& marker = {});
// Progress of the run in steps: the horizon (GVT or guarantee) as a line, the shown step,
// and how far each pendulum has reached.
void draw_horizon_bar(QPainter& p, const QRect& area, std::uint64_t last_step,
                      std::uint64_t shown_step, std::optional<std::uint64_t> horizon,
                      const std::string& horizon_name, const std::vector<std::uint64_t>& reached);
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
