// kausal-animation as a real process: the offscreen render modes checked pixel by pixel
// against the physics, and the live servant fed over CORBA.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <limits>

#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <algorithm>
#include <cmath>
#include <fstream>

#include "animation/render.hpp"
#include "animation/timeline.hpp"
#include "common/activity_trace.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "kausal_process.hpp"
#include "monitor/record/event_live_view.hpp"

namespace kausal {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;
namespace fs = std::filesystem;

// kausal-animation under the offscreen platform; killed by PID if still running at the end.
class AnimationProcess : public testing::KausalProcess {
 public:
  AnimationProcess(const std::vector<std::string>& args, const fs::path& dir)
      : KausalProcess(args, dir, {{"QT_QPA_PLATFORM", "offscreen"}}, "kausal-animation") {}

  // The first line on stdout (the object reference), waiting for it.
  std::string first_line(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string text = out();
      if (const auto nl = text.find('\n'); nl != std::string::npos) return text.substr(0, nl);
      std::this_thread::sleep_for(20ms);
    }
    return "";
  }
};

int run_animation(const std::vector<std::string>& args, const fs::path& dir,
                  std::string* err = nullptr) {
  AnimationProcess p(args, dir);
  const int code = p.wait(30s).value_or(-1);
  if (err) *err = p.err();
  return code;
}

// ---- a run directory written by the test ----

const std::vector<PendulumGeometry> chain{{0.0, 1.0, 0.1}, {0.5, 0.8, 0.08}, {1.0, 1.0, 0.1}};
const std::vector<double> last_angles{-0.6, 0.0, 0.4};

// `extra`: more members of summary.json, e.g. R"("layout": "pendulum", )".
void write_run(const fs::path& dir, const std::string& method, double wall_s,
               const std::string& extra = "") {
  fs::create_directories(dir);
  std::ofstream(dir / "summary.json")
      << R"({"method": ")" << method << R"(", "scenario": "three", "h": 0.001, "wall_s": )"
      << wall_s << R"(, "status": "completed", )" << extra << R"(
    "geometry": [{"pivot_x": 0.0, "length": 1.0, "radius": 0.1},
                 {"pivot_x": 0.5, "length": 0.8, "radius": 0.08},
                 {"pivot_x": 1.0, "length": 1.0, "radius": 0.1}],
    "components": [{"name": "monitor", "role": "monitor"},
                   {"name": "integrator-1", "role": "integrator"}]})";
  // monitor: busy 0 - 0.4 s; integrator-1: busy 0.1 - 0.3 s, rollback 0.5 - 0.7 s.
  std::ofstream(dir / "trace.json") << R"({"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"monitor"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"integrator-1"}},
{"ph":"X","name":"busy","pid":1,"tid":1,"ts":0,"dur":400000},
{"ph":"X","name":"busy","pid":1,"tid":2,"ts":100000,"dur":200000},
{"ph":"X","name":"rollback","pid":1,"tid":2,"ts":500000,"dur":200000}]})";
  std::ofstream(dir / "trajectory.csv") << "t,phi_1,omega_1,phi_2,omega_2,phi_3,omega_3\n"
                                        << "0,0.3,0,0.2,0,0.1,0\n"
                                        << "0.01,-0.6,1,0,2,0.4,3\n";
}

QImage load_png(const fs::path& file) {
  QImage image(QString::fromStdString(file.string()));
  return image.convertToFormat(QImage::Format_RGB32);
}

QRgb pixel(const QImage& image, double x, double y) {
  return image.pixel(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y))) |
         0xff000000u;
}

// The pixel inside strip `track` at time t (seconds since the run started).
QRgb strip_pixel(const QImage& image, const QRect& timeline_area, std::size_t track, double t,
                 double t1, double t0 = 0) {
  const TimelineLayout l = timeline_layout(timeline_area, 2);
  const QRect strip = l.strips.at(track);
  const Timeline columns(t0, t1, static_cast<std::size_t>(strip.width()));
  return image.pixel(strip.left() + static_cast<int>(columns.column_of(t)), strip.center().y());
}

TEST(AnimationSnapshot, BobsAndStripsWhereThePhysicsAndTheTracePutThem) {
  TempDir tmp;
  write_run(tmp / "run", "optimistic", 1.0);
  const fs::path png = tmp / "snap.png";
  std::string err;
  ASSERT_EQ(run_animation(
                {"--snapshot", png.string(), "--run", (tmp / "run").string(), "--size", "900x600"},
                tmp.path(), &err),
            0)
      << err;
  const QImage image = load_png(png);
  ASSERT_EQ(image.size(), QSize(900, 600));
  const SnapshotLayout layout = snapshot_layout(image.size(), 2);
  const Scene scene = scene_for(chain, layout.model);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    // Bob centre from the physics: (pivot_x + L sin phi, -L cos phi).
    const double phi = last_angles[i];
    const PixelPoint c = scene.to_pixel(chain[i].pivot_x + chain[i].length * std::sin(phi),
                                        -chain[i].length * std::cos(phi));
    const double r = chain[i].radius * scene.scale();
    EXPECT_EQ(pixel(image, c.x, c.y), colours::bob) << "bob " << i;
    EXPECT_EQ(pixel(image, c.x + 0.6 * r, c.y - 0.6 * r), colours::bob) << "bob " << i;
    // Where the bob was at the first row (not the shown one) there is nothing now.
    if (i != 1) {
      const double first = i == 0 ? 0.3 : 0.1;
      const PixelPoint old = scene.to_pixel(chain[i].pivot_x + chain[i].length * std::sin(first),
                                            -chain[i].length * std::cos(first) - 0.3);
      EXPECT_EQ(pixel(image, old.x, old.y), colours::background) << "bob " << i;
    }
  }
  // Each pendulum's number above the beam, over its pivot (render.cpp: draw_pendulums).
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const PixelPoint pivot = scene.pivot(i);
    int ink = 0;
    for (int y = static_cast<int>(pivot.y) - 17; y < static_cast<int>(pivot.y) - 4; ++y)
      for (int x = static_cast<int>(pivot.x) - 6; x <= static_cast<int>(pivot.x) + 6; ++x)
        ink += (image.pixel(x, y) | 0xff000000u) != colours::background;
    EXPECT_GT(ink, 5) << "the number of pendulum " << i + 1;
  }
  // Far from every bob and string.
  for (const auto& [x, y] : std::vector<std::pair<double, double>>{{-0.9, -0.2}, {1.8, -0.3}}) {
    const PixelPoint p = scene.to_pixel(x, y);
    EXPECT_EQ(pixel(image, p.x, p.y), colours::background) << x << ", " << y;
  }
  EXPECT_EQ(strip_pixel(image, layout.timeline, 0, 0.2, 1.0), colours::busy);
  EXPECT_EQ(strip_pixel(image, layout.timeline, 0, 0.9, 1.0), colours::waiting);
  EXPECT_EQ(strip_pixel(image, layout.timeline, 1, 0.2, 1.0), colours::busy);
  EXPECT_EQ(strip_pixel(image, layout.timeline, 1, 0.6, 1.0), colours::rollback);
  EXPECT_EQ(strip_pixel(image, layout.timeline, 1, 0.45, 1.0), colours::waiting);
}

TEST(AnimationSnapshot, StepChoosesTheRow) {
  TempDir tmp;
  write_run(tmp / "run", "optimistic", 1.0);
  const fs::path png = tmp / "snap.png";
  ASSERT_EQ(run_animation({"--snapshot", png.string(), "--run", (tmp / "run").string(), "--step",
                           "5", "--size", "900x600"},
                          tmp.path()),
            0);
  const QImage image = load_png(png);
  const Scene scene = scene_for(chain, snapshot_layout(image.size(), 2).model);
  // Step 5 (t = 0.005 s) shows the row of t = 0: phi_1 = 0.3.
  const PixelPoint c = scene.to_pixel(std::sin(0.3), -std::cos(0.3));
  EXPECT_EQ(pixel(image, c.x, c.y), colours::bob);
  const PixelPoint last = scene.to_pixel(std::sin(-0.6), -std::cos(-0.6));
  EXPECT_EQ(pixel(image, last.x, last.y), colours::background);
}

// ---- a partitioned model's run directory: one plot per partition ----

// Two partitions ("tanks": upper.level = t; "pipe": lower.level = 20 - t), rows at t = 0 .. 20 s,
// a tick of 0.5 s (summary "h"), the trace of write_run.
void write_partitioned_run(const fs::path& dir) {
  write_run(dir, "optimistic", 1.0);
  std::ofstream(dir / "summary.json") << R"({"method": "optimistic", "model": "partitioned",
    "scenario": "tanks", "h": 0.5, "wall_s": 1.0, "status": "completed", "geometry": [],
    "partitions": [{"name": "tanks", "subsystems": ["upper"]},
                   {"name": "pipe", "subsystems": ["lower"]}],
    "components": [{"name": "monitor", "role": "monitor"},
                   {"name": "integrator-1", "role": "integrator"}]})";
  std::ofstream csv(dir / "trajectory.csv");
  csv << "t,upper.level,lower.level\n";
  for (int t = 0; t <= 20; ++t) csv << t << ',' << t << ',' << 20 - t << '\n';
}

bool is_series_colour(QRgb c) {
  c |= 0xff000000u;
  return std::find(colours::series.begin(), colours::series.end(), c) != colours::series.end();
}

// Pixels of a series colour in columns [x0, x1) and rows [y0, y1) of the image.
int series_pixels(const QImage& image, int x0, int x1, int y0, int y1) {
  int n = 0;
  for (int y = std::max(y0, 0); y < std::min(y1, image.height()); ++y)
    for (int x = std::max(x0, 0); x < std::min(x1, image.width()); ++x)
      n += is_series_colour(image.pixel(x, y));
  return n;
}

// The column of time t in a plot drawn over [t0, t1] (render.cpp: draw_series).
int plot_x(const QRect& plot, double t, double t0, double t1) {
  return plot.left() + static_cast<int>(std::lround((t - t0) / (t1 - t0) * (plot.width() - 1)));
}

TEST(AnimationSnapshot, APartitionedRunIsPlottedUpToTheStep) {
  TempDir tmp;
  write_partitioned_run(tmp / "run");
  const fs::path whole = tmp / "whole.png", half = tmp / "half.png";
  std::string err;
  ASSERT_EQ(run_animation({"--snapshot", whole.string(), "--run", (tmp / "run").string(), "--size",
                           "1000x700"},
                          tmp.path(), &err),
            0)
      << err;
  ASSERT_EQ(run_animation({"--snapshot", half.string(), "--run", (tmp / "run").string(), "--step",
                           "20", "--size", "1000x700"},  // tick 20: t = 10 s
                          tmp.path(), &err),
            0)
      << err;
  for (const auto& [png, t_shown] : {std::pair{whole, 20.0}, std::pair{half, 10.0}}) {
    const QImage image = load_png(png);
    ASSERT_EQ(image.size(), QSize(1000, 700));
    const SnapshotLayout layout = snapshot_layout(image.size(), 2);
    const auto plots = plot_layout(layout.model, 2);
    ASSERT_EQ(plots.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      const QRect plot = plots[i].plot;
      // The legend in the title row beside the plot's name, over no curve.
      const QRect title = plots[i].title;
      EXPECT_GT(series_pixels(image, title.left(), title.right(), title.top(), title.bottom()), 10)
          << png << " plot " << i;
      const int below_legend = plot.top();
      const int shown = plot_x(plot, t_shown, 0, 20);
      // The line from t = 0 to the step shown, nothing after it.
      EXPECT_GT(series_pixels(image, plot.left(), shown - 4, below_legend, plot.bottom() + 1), 50)
          << png << " plot " << i;
      EXPECT_EQ(series_pixels(image, shown + 5, plot.right() + 1, below_legend, plot.bottom() + 1),
                0)
          << png << " plot " << i;
      // Autoscaled: tanks rises from the bottom, pipe falls from the top (±5 % padding).
      const int y_start =
          i == 0 ? plot.bottom() - plot.height() / 21 : plot.top() + plot.height() / 21;
      EXPECT_GT(series_pixels(image, plot.left(), plot.left() + 3, y_start - 3, y_start + 4), 0)
          << png << " plot " << i;
    }
  }
}

TEST(AnimationTimeline, StripsOfTheTrace) {
  TempDir tmp;
  write_run(tmp / "run", "conservative", 1.0);
  const fs::path png = tmp / "timeline.png";
  ASSERT_EQ(run_animation(
                {"--timeline", png.string(), "--run", (tmp / "run").string(), "--size", "800x200"},
                tmp.path()),
            0);
  const QImage image = load_png(png);
  const QRect area(8, 28, 800 - 16, 200 - 32);  // render_timeline's area below the title
  EXPECT_EQ(strip_pixel(image, area, 1, 0.6, 1.0), colours::rollback);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.8, 1.0), colours::waiting);
  EXPECT_EQ(strip_pixel(image, area, 0, 0.1, 1.0), colours::busy);
  // Right of each strip, its shares of the window: the monitor busy 40 %, the integrator busy
  // 20 % and rolling back 20 %, drawn in that order along the bar.
  const TimelineLayout l = timeline_layout(area, 2);
  const auto share_pixel = [&](std::size_t track, double at) {
    const QRect bar = l.shares.at(track);
    return image.pixel(bar.left() + static_cast<int>(at * bar.width()), bar.top() + 3);
  };
  EXPECT_EQ(share_pixel(0, 0.35), colours::busy);
  EXPECT_EQ(share_pixel(0, 0.45), colours::waiting);
  EXPECT_EQ(share_pixel(1, 0.15), colours::busy);
  EXPECT_EQ(share_pixel(1, 0.35), colours::rollback);
  EXPECT_EQ(share_pixel(1, 0.45), colours::waiting);
}

// Timelines compared side by side share one axis: --time-span 2 puts t = 0.5 s a quarter of
// the way along, where the monitor (busy 0 – 0.4 s) already waits.
TEST(AnimationTimeline, TimeSpanSetsTheAxis) {
  TempDir tmp;
  write_run(tmp / "run", "conservative", 1.0);
  const fs::path png = tmp / "timeline.png";
  ASSERT_EQ(run_animation({"--timeline", png.string(), "--run", (tmp / "run").string(), "--size",
                           "800x200", "--time-span", "2"},
                          tmp.path()),
            0);
  const QImage image = load_png(png);
  const QRect area(8, 28, 800 - 16, 200 - 32);
  EXPECT_EQ(strip_pixel(image, area, 0, 0.3, 2.0), colours::busy);
  EXPECT_EQ(strip_pixel(image, area, 0, 0.5, 2.0), colours::waiting);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.6, 2.0), colours::rollback);
  EXPECT_EQ(strip_pixel(image, area, 1, 1.5, 2.0), colours::waiting);
  std::string err;
  EXPECT_EQ(run_animation(
                {"--timeline", png.string(), "--run", (tmp / "run").string(), "--time-span", "-1"},
                tmp.path(), &err),
            2);
  EXPECT_NE(err.find("--time-span"), std::string::npos) << err;
}

// A zoom: --time-from and --time-span (or --zoom) draw the window [0.5, 1.0]; --around-first-event
// centres a window on the first "event" span (an impact the monitor applied, at 0.6 s).
TEST(AnimationTimeline, AWindowOfTheRunAroundItsFirstImpact) {
  TempDir tmp;
  write_run(tmp / "run", "conservative", 1.0);
  std::string trace = testing::read_file(tmp / "run" / "trace.json");
  trace.insert(trace.rfind(']'), R"(,
{"ph":"X","name":"event","cat":"busy","pid":1,"tid":1,"ts":650000,"dur":1,"args":{"step":650}},
{"ph":"X","name":"event","cat":"busy","pid":1,"tid":1,"ts":600000,"dur":1,"args":{"step":600}})");
  std::ofstream(tmp / "run" / "trace.json") << trace;
  const fs::path png = tmp / "timeline.png";
  const QRect area(8, 28, 800 - 16, 200 - 32);
  ASSERT_EQ(run_animation({"--timeline", png.string(), "--run", (tmp / "run").string(), "--size",
                           "800x200", "--time-from", "0.5", "--time-span", "0.5"},
                          tmp.path()),
            0);
  QImage image = load_png(png);
  EXPECT_EQ(strip_pixel(image, area, 0, 0.55, 1.0, 0.5), colours::waiting);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.55, 1.0, 0.5), colours::rollback);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.8, 1.0, 0.5), colours::waiting);
  // --zoom FROM..TO is the same window; a window that is not one is exit 2.
  const fs::path zoomed = tmp / "zoomed.png";
  ASSERT_EQ(run_animation({"--timeline", zoomed.string(), "--run", (tmp / "run").string(), "--size",
                           "800x200", "--zoom", "0.5..1.0"},
                          tmp.path()),
            0);
  EXPECT_EQ(load_png(zoomed), image);
  for (const std::string bad : {"1.0..0.5", "0.5", "a..b", "-1..2"}) {
    std::string err;
    EXPECT_EQ(run_animation(
                  {"--timeline", zoomed.string(), "--run", (tmp / "run").string(), "--zoom", bad},
                  tmp.path(), &err),
              2)
        << bad;
    EXPECT_NE(err.find("--zoom"), std::string::npos) << err;
  }
  // Centred on 0.6 s, 0.4 s wide: [0.4, 0.8]; the monitor was busy until 0.4 s only.
  ASSERT_EQ(run_animation({"--timeline", png.string(), "--run", (tmp / "run").string(), "--size",
                           "800x200", "--around-first-event", "--time-span", "0.4"},
                          tmp.path()),
            0);
  image = load_png(png);
  EXPECT_EQ(strip_pixel(image, area, 0, 0.45, 0.8, 0.4), colours::waiting);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.45, 0.8, 0.4), colours::waiting);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.65, 0.8, 0.4), colours::rollback);
  EXPECT_EQ(strip_pixel(image, area, 1, 0.75, 0.8, 0.4), colours::waiting);
  // A run without impacts has nothing to centre on.
  write_run(tmp / "quiet", "conservative", 1.0);
  std::string err;
  EXPECT_EQ(run_animation({"--timeline", png.string(), "--run", (tmp / "quiet").string(),
                           "--around-first-event"},
                          tmp.path(), &err),
            2);
  EXPECT_NE(err.find("no impact to centre on"), std::string::npos) << err;
}

// Fonts for measuring text as the renderer draws it (offscreen, as it runs).
QGuiApplication& gui() {
  static int argc = 1;
  static char arg0[] = "animation_tests";
  static char* argv[] = {arg0, nullptr};
  setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static QGuiApplication app(argc, argv);
  return app;
}

// Bars of the chart: the rows holding the bar colour, their leftmost column and the length
// of the longest.
struct BarRows {
  int top = 0, bottom = 0, left = 0, length = 0;
};
std::vector<BarRows> bar_rows(const QImage& image) {
  std::vector<BarRows> bars;
  bool in_bar = false;
  for (int y = 0; y < image.height(); ++y) {
    int left = -1, count = 0;
    for (int x = 0; x < image.width(); ++x)
      if ((image.pixel(x, y) | 0xff000000u) == colours::bar) {
        if (left < 0) left = x;
        ++count;
      }
    if (left >= 0 && !in_bar) bars.push_back({y, y, left, 0});
    if (left >= 0) {
      bars.back().bottom = y;
      bars.back().length = std::max(bars.back().length, count);
    }
    in_bar = left >= 0;
  }
  return bars;
}

// Labels name the layout when the runs have several, repetitions make one bar, and every
// label is drawn whole: its ink is as wide as the text (the old chart cut labels at 204 px).
TEST(AnimationChart, LabelsNameTheLayoutAndAreNeverCut) {
  gui();
  TempDir tmp;
  const std::string lookahead = R"("guarantee": "lookahead", )";
  write_run(tmp / "process/lookahead", "conservative", 1.0, lookahead + R"("layout": "process",)");
  write_run(tmp / "pendulum/lookahead", "conservative", 2.0,
            lookahead + R"("layout": "pendulum",)");
  write_run(tmp / "pendulum/optimistic/1", "optimistic", 0.5, R"("layout": "pendulum",)");
  write_run(tmp / "pendulum/optimistic/2", "optimistic", 0.9, R"("layout": "pendulum",)");
  write_run(tmp / "pendulum/optimistic/3", "optimistic", 0.6, R"("layout": "pendulum",)");
  const fs::path png = tmp / "chart.png";
  std::vector<std::string> args{"--chart", png.string(), "--runs"};
  for (const char* dir : {"process/lookahead", "pendulum/lookahead", "pendulum/optimistic/1",
                          "pendulum/optimistic/2", "pendulum/optimistic/3"})
    args.push_back((tmp / dir).string());
  ASSERT_EQ(run_animation(args, tmp.path()), 0);
  const QImage image = load_png(png);
  const std::vector<std::string> labels{"conservative/lookahead [process]",
                                        "conservative/lookahead [pendulum]",
                                        "optimistic [pendulum]"};
  const auto bars = bar_rows(image);
  ASSERT_EQ(bars.size(), labels.size());
  QFont font;
  font.setPixelSize(13);
  const QFontMetrics metrics(font);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    // The ink left of the bar, in the bar's band: the label.
    int first = image.width(), last = -1;
    for (int y = bars[i].top - 6; y <= bars[i].bottom + 6; ++y)
      for (int x = 0; x < bars[i].left; ++x)
        if (qGray(image.pixel(x, y)) < 200) {
          first = std::min(first, x);
          last = std::max(last, x);
        }
    const int ink = last - first + 1;
    const int text = metrics.boundingRect(QString::fromStdString(labels[i])).width();
    EXPECT_NEAR(ink, text, 3) << labels[i];
    EXPECT_GT(first, 0) << labels[i];
  }
  // The repetitions: the median (0.6 s) is the bar, against 2.0 s the longest.
  EXPECT_NEAR(static_cast<double>(bars[2].length) / bars[1].length, 0.3, 0.01);
}

TEST(AnimationChart, BarsProportionalToWallTime) {
  TempDir tmp;
  write_run(tmp / "a", "conservative", 1.0);
  write_run(tmp / "b", "optimistic", 2.0);
  const fs::path png = tmp / "chart.png";
  ASSERT_EQ(
      run_animation({"--chart", png.string(), "--runs", (tmp / "a").string(), (tmp / "b").string()},
                    tmp.path()),
      0);
  const QImage image = load_png(png);
  // Bars are runs of rows holding the bar colour; their length is the widest row.
  std::vector<int> bars;
  bool in_bar = false;
  for (int y = 0; y < image.height(); ++y) {
    int count = 0;
    for (int x = 0; x < image.width(); ++x)
      count += (image.pixel(x, y) | 0xff000000u) == colours::bar;
    if (count && !in_bar) bars.push_back(0);
    if (count) bars.back() = std::max(bars.back(), count);
    in_bar = count > 0;
  }
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_NEAR(static_cast<double>(bars[0]) / bars[1], 0.5, 0.01);
}

TEST(AnimationCli, BadRunDirectoryOrOptionExits2) {
  TempDir tmp;
  std::string err;
  EXPECT_EQ(
      run_animation({"--snapshot", (tmp / "x.png").string(), "--run", (tmp / "missing").string()},
                    tmp.path(), &err),
      2);
  EXPECT_NE(err.find("missing: not a directory"), std::string::npos) << err;
  fs::create_directories(tmp / "empty");
  EXPECT_EQ(
      run_animation({"--timeline", (tmp / "x.png").string(), "--run", (tmp / "empty").string()},
                    tmp.path(), &err),
      2);
  EXPECT_NE(err.find("summary.json: cannot open"), std::string::npos) << err;
  write_run(tmp / "run", "optimistic", 1.0);
  std::ofstream(tmp / "run" / "trajectory.csv") << "t,phi_1,omega_1\n";
  EXPECT_EQ(run_animation({"--snapshot", (tmp / "x.png").string(), "--run", (tmp / "run").string()},
                          tmp.path(), &err),
            2);
  EXPECT_NE(err.find("trajectory.csv:1: header"), std::string::npos) << err;
  EXPECT_EQ(run_animation({"--snapshot", (tmp / "x.png").string()}, tmp.path(), &err), 2);
  EXPECT_EQ(run_animation({"--chart", (tmp / "x.png").string(), "--runs", (tmp / "run").string(),
                           "--size", "20x20"},
                          tmp.path(), &err),
            2);
  EXPECT_NE(err.find("--size 20x20"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(tmp / "x.png"));
}

TEST(AnimationCli, HelpExplainsEveryMode) {
  TempDir tmp;
  AnimationProcess help({"--help"}, tmp.path());
  ASSERT_EQ(help.wait(30s), std::optional<int>(0));
  const std::string out = help.out();
  for (const char* word : {"--snapshot", "--timeline", "--chart", "--run", "--runs", "--step",
                           "--size", "Live mode", "--close-after-frames", "Exit codes"})
    EXPECT_NE(out.find(word), std::string::npos) << word;
}

// ---- the live servant over CORBA ----

// A run from t = 0 with one strip, "monitor", and no view yet.
idl::AnimationSetup setup_of(const char* scenario, const char* label, double h,
                             CORBA::ULongLong steps, CORBA::ULongLong frame_every) {
  idl::AnimationSetup s;
  s.scenario = scenario;
  s.label = label;
  s.t0 = 0;
  s.h = h;
  s.steps = steps;
  s.frame_every = frame_every;
  s.components.length(1);
  s.components[0] = "monitor";
  s.clock_ns = 0;
  s.paced = false;
  return s;
}

idl::AnimationSetup setup_of_two() {
  idl::AnimationSetup s = setup_of("pair", "optimistic", 0.001, 1000, 1);
  s.pendulums.length(2);
  s.pendulums[0] = {0.0, 1.0, 0.1};
  s.pendulums[1] = {0.2, 1.0, 0.1};
  return s;
}

// Frames without their commit times: taken as committed when they arrive.
idl::FrameTimes arrival() {
  idl::FrameTimes t;
  t.overruns = 0;
  return t;
}

idl::DoubleSeq states(std::size_t steps) {
  idl::DoubleSeq seq;
  seq.length(static_cast<CORBA::ULong>(4 * steps));
  for (CORBA::ULong i = 0; i < seq.length(); ++i) seq[i] = 0.01 * i;
  return seq;
}

class LiveAnimation : public ::testing::Test {
 protected:
  idl::Animation_var connect(AnimationProcess& p) {
    const std::string ior = p.first_line();
    EXPECT_EQ(ior.rfind("IOR:", 0), 0u) << ior << p.err();
    CORBA::Object_var obj = orb_.resolve(ior);
    return idl::Animation::_narrow(obj);
  }
  static OrbSettings client() {
    OrbSettings s;
    s.serve = false;
    return s;
  }
  OrbRuntime orb_{client()};
};

TEST_F(LiveAnimation, FedOverCorbaThenShutDownExitsZero) {
  TempDir tmp;
  AnimationProcess p({"--name", "animation-test"}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  idl::ComponentInfo_var info = view->info();
  EXPECT_EQ(std::string(info->role.in()), "animation");
  EXPECT_EQ(std::string(info->name.in()), "animation-test");
  EXPECT_EQ(static_cast<pid_t>(info->pid), p.pid());
  EXPECT_EQ(info->interface_version, idl::INTERFACE_VERSION);

  view->begin_run(setup_of_two());
  view->frames(0, states(3), arrival());
  idl::DoubleSeq bad = states(1);
  bad.length(3);  // not 4 values per step: dropped and counted
  view->frames(3, bad, arrival());
  idl::StepSeq reached;
  reached.length(2);
  reached[0] = 3;
  reached[1] = 2;
  view->horizon(2, reached, monotonic_ns());
  view->rolled_back(1, 1, monotonic_ns());
  idl::ActivitySpanSeq spans;
  spans.length(1);
  spans[0] = {100, 200, 0, 0, 0, 0};
  view->activity("monitor", spans);
  view->end_run("completed", 0.5, 0);
  // Every feed call is counted as a request once it has been handled.
  CORBA::ULongLong requests = 0;
  for (int i = 0; i < 100 && requests < 7; ++i, std::this_thread::sleep_for(20ms))
    requests = view->timing().requests;
  EXPECT_EQ(requests, 7u);
  std::this_thread::sleep_for(200ms);  // a few repaints with the frames
  view->shutdown();
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  EXPECT_FALSE(testing::process_exists(p.pid()));
  EXPECT_NE(p.err().find("3 frames received, 0 dropped, 1 rejected"), std::string::npos) << p.err();
}

TEST_F(LiveAnimation, WindowClosedMidRunEndsTheProcessCleanly) {
  TempDir tmp;
  AnimationProcess p({"--close-after-frames", "5"}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  view->begin_run(setup_of_two());
  view->frames(0, states(4), arrival());
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(p.wait(0ms)) << "closed before its 5th frame";
  view->frames(4, states(3), arrival());
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  EXPECT_FALSE(testing::process_exists(p.pid()));
  EXPECT_NE(p.err().find("7 frames received"), std::string::npos) << p.err();
}

// Frames of two pendulums that all hold phi = (0.5, 0).
idl::DoubleSeq still_frames(std::size_t steps) {
  idl::DoubleSeq seq;
  seq.length(static_cast<CORBA::ULong>(4 * steps));
  for (CORBA::ULong k = 0; k < steps; ++k) {
    seq[4 * k] = 0.5;
    seq[4 * k + 1] = seq[4 * k + 2] = seq[4 * k + 3] = 0;
  }
  return seq;
}

TEST_F(LiveAnimation, WindowShowsTheFramesFlashesAndStrips) {
  TempDir tmp;
  const fs::path png = tmp / "live.png";
  AnimationProcess p({"--close-after-frames", "20", "--grab-on-close", png.string()}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  idl::AnimationSetup setup = setup_of_two();
  setup.clock_ns = monotonic_ns();  // same host: the view's clock is the test's
  setup.paced = true;               // followed: each frame and rollback shown as it arrives
  view->begin_run(setup);
  idl::ActivitySpanSeq spans;
  spans.length(1);
  spans[0] = {setup.clock_ns, setup.clock_ns + 60'000'000'000ull, 0, 0, 0, 0};  // busy all along
  view->activity("monitor", spans);
  view->frames(0, still_frames(10), arrival());
  view->rolled_back(1, 5, monotonic_ns());
  view->frames(10, still_frames(10),
               arrival());  // the 20th frame: the window grabs itself and closes
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  const QImage image = load_png(png);
  ASSERT_FALSE(image.isNull()) << p.err();
  const LiveLayout layout = live_layout(image.size(), 1, /*lateness=*/true);
  const Scene scene = scene_for({{0.0, 1.0, 0.1}, {0.2, 1.0, 0.1}}, layout.model);
  const PixelPoint bob0 = scene.to_pixel(std::sin(0.5), -std::cos(0.5));
  const PixelPoint bob1 = scene.to_pixel(0.2, -1.0);
  EXPECT_EQ(pixel(image, bob0.x, bob0.y), colours::bob);
  EXPECT_EQ(pixel(image, bob1.x, bob1.y), colours::bob_flash);  // rolled back just now
  const QRect strip = timeline_layout(layout.timeline, 1).strips.at(0);
  EXPECT_EQ(image.pixel(strip.left() + strip.width() / 3, strip.center().y()) | 0xff000000u,
            colours::busy);
}

// The plot view: two partitions, a tick of 0.01 s, a frame every 10 ticks up to tick 100.
// "fast" plots a.x = t and a.v = -1, "slow" plots b.y = 3.
idl::AnimationSetup setup_of_two_partitions() {
  idl::AnimationSetup s = setup_of("tanks", "conservative", 0.01, 100, 10);
  s.plots.length(2);
  s.plots[0] = "fast";
  s.plots[1] = "slow";
  s.series.length(3);
  s.series[0].name = "a.x";
  s.series[0].plot = 0;
  s.series[1].name = "a.v";
  s.series[1].plot = 0;
  s.series[2].name = "b.y";
  s.series[2].plot = 1;
  s.clock_ns = monotonic_ns();
  return s;
}

idl::DoubleSeq plot_frames(CORBA::ULongLong first, CORBA::ULong count) {
  idl::DoubleSeq seq;
  seq.length(3 * count);
  for (CORBA::ULong k = 0; k < count; ++k) {
    seq[3 * k] = 0.01 * static_cast<double>(first + 10 * k);  // a.x = t
    seq[3 * k + 1] = -1;
    seq[3 * k + 2] = 3;
  }
  return seq;
}

TEST_F(LiveAnimation, APartitionedRunIsPlottedAsItPlays) {
  TempDir tmp;
  const fs::path png = tmp / "plots.png";
  AnimationProcess p({"--close-after-frames", "11", "--grab-on-close", png.string()}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  const idl::AnimationSetup setup = setup_of_two_partitions();
  view->begin_run(setup);
  view->frames(0, plot_frames(0, 5), arrival());    // ticks 0 .. 40
  view->frames(50, plot_frames(50, 5), arrival());  // ticks 50 .. 90
  idl::DoubleSeq short_frame = plot_frames(100, 1);
  short_frame.length(2);  // 2 values, not 3: dropped and counted
  view->frames(100, short_frame, arrival());
  view->frames(95, plot_frames(95, 1), arrival());  // no frame at tick 95
  idl::DoubleSeq nan = plot_frames(100, 1);
  nan[2] = std::nan("");
  view->frames(100, nan, arrival());
  idl::StepSeq reached;
  reached.length(2);
  reached[0] = reached[1] = 100;
  view->horizon(100, reached, setup.clock_ns);  // reached at the start: before every frame
  std::this_thread::sleep_for(1500ms);          // a 1 s run plays in real time: t = 0.9 s is shown
  view->frames(100, plot_frames(100, 1),
               arrival());  // the 11th frame: the window grabs itself, closes
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  EXPECT_NE(p.err().find("11 frames received, 0 dropped, 3 rejected"), std::string::npos)
      << p.err();
  const QImage image = load_png(png);
  ASSERT_FALSE(image.isNull()) << p.err();
  const LiveLayout layout = live_layout(image.size(), 1);
  const auto plots = plot_layout(layout.model, 2);
  ASSERT_EQ(plots.size(), 2u);
  // "slow": b.y = 3, a flat line in the middle of its autoscaled range [2, 4], drawn from
  // t = 0 to at least t = 0.9 s, in the first series colour; nothing a quarter below it.
  const QRect slow = plots[1].plot;
  const int mid = slow.bottom() - (slow.height() - 1) / 2;
  for (double t : {0.1, 0.5, 0.85}) {
    const int x = plot_x(slow, t, 0, 1);
    EXPECT_GT(series_pixels(image, x, x + 1, mid - 2, mid + 3), 0) << "t = " << t;
    EXPECT_EQ(
        series_pixels(image, x, x + 1, mid + slow.height() / 4 - 2, mid + slow.height() / 4 + 3), 0)
        << "t = " << t;
  }
  // "fast": both series (the ramp and the constant) in their colours.
  const QRect fast = plots[0].plot;
  const int half = fast.left() + fast.width() / 2;
  int ramp = 0, constant = 0;
  for (int y = fast.top() + 40; y <= fast.bottom(); ++y)
    for (int x = fast.left(); x < half; ++x) {
      ramp += (image.pixel(x, y) | 0xff000000u) == colours::series[0];
      constant += (image.pixel(x, y) | 0xff000000u) == colours::series[1];
    }
  EXPECT_GT(ramp, 20);
  EXPECT_GT(constant, 20);
  // The progress bar: every partition's last step final, the horizon line at its end.
  const QRect bar = layout.horizon.adjusted(140, 2, -8, -2);
  EXPECT_EQ((image.pixel(bar.right(), bar.center().y()) | 0xff000000u), colours::horizon);
}

// Hostile calls: Animation::begin_run Animation::frames Animation::horizon
// Hostile calls: Animation::rolled_back Animation::activity Animation::end_run
// Hostile calls: Animation::marks
TEST_F(LiveAnimation, GarbageIsDroppedNotFatal) {
  TempDir tmp;
  AnimationProcess p({}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  view->frames(0, states(2), arrival());  // before begin_run
  view->end_run("no run", std::nan(""), 4'294'967'295u);
  idl::AnimationSetup bad = setup_of_two();
  bad.pendulums[1].length = std::nan("");
  view->begin_run(bad);
  view->begin_run(setup_of_two());
  idl::DoubleSeq nan = states(1);
  nan[1] = std::nan("");
  view->frames(0, nan, arrival());
  view->rolled_back(7, 0, monotonic_ns());
  idl::ActivitySpanSeq spans;
  spans.length(2);
  spans[0] = {300, 200, 0, 0, 0, 0};  // ends before it begins
  spans[1] = {100, 200, 9, 0, 0, 0};  // no such kind
  view->activity("monitor", spans);
  idl::StepSeq reached;
  reached.length(5);
  view->horizon(1, reached, monotonic_ns());
  // Marks for a pendulum view (a plot view's only), one not in time, one with a long label.
  idl::TimeMarkSeq marks;
  marks.length(3);
  marks[0].t = std::nan("");
  marks[0].label = "x";
  marks[1].t = 1.0;
  marks[1].label = std::string(100'000, 'y').c_str();
  marks[2].t = std::numeric_limits<double>::infinity();
  marks[2].label = "";
  view->marks(marks);
  view->ping();  // still alive and answering
  view->shutdown();
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  EXPECT_NE(p.err().find("0 frames received, 0 dropped, 10 rejected"), std::string::npos)
      << p.err();
}

// ---- kausal run / compare --animate on the shipped partitioned models ----

const fs::path kScenarios = fs::path(KAUSAL_SOURCE_DIR) / "scenarios";
// (Hybrid models too: their partitions are plotted like any others'.)
const std::vector<std::string> kPartitioned = {"bouncing-ball-floor.toml",
                                               "fmu-ball-floor.toml",
                                               "fmu-bouncing-ball.toml",
                                               "fmu-cosim-switch.toml",
                                               "fmu-coupled.toml",
                                               "fmu-sampled-loop.toml",
                                               "hydraulic-clemens.toml",
                                               "hydraulic-multirate.toml",
                                               "machines-crews.toml",
                                               "machines-repair.toml",
                                               "orifices-dre0.toml",
                                               "orifices-pdre0.toml",
                                               "tank-control.toml",
                                               "turbogenerator.toml",
                                               "two-mass-master.toml",
                                               "two-mass-surrogate.toml",
                                               "two-mass.toml",
                                               "two-tanks-level-switch.toml",
                                               "two-tanks.toml"};

// The digest scenarios/digests.toml pins for a scenario file.
std::string pinned_digest(const std::string& file) {
  const std::string text = testing::read_file(kScenarios / "digests.toml");
  const auto at = text.find("file = \"" + file + "\"");
  if (at == std::string::npos) return "not pinned";
  const auto sha = text.find("sha256 = \"", at) + 10;
  return text.substr(sha, 64);
}

std::size_t rows_of(const fs::path& csv) {
  std::ifstream in(csv);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) lines += !line.empty();
  return lines - 1;  // the header
}

// What a kausal command with --animate --animate-until run-end left: its exit code and
// stderr, the view's log and its last picture (KAUSAL_TEST_ANIMATION_GRAB_ON_CLOSE), whether
// the view ran and whether it outlived kausal.
struct ViewedRun {
  int exit_code = -1;
  std::string err, log;
  QImage picture;
  bool view_seen = false, view_left = true;
};

ViewedRun run_with_view(const std::vector<std::string>& args, const fs::path& dir,
                        const fs::path& out, std::map<std::string, std::string> env = {}) {
  const fs::path png = dir / (out.filename().string() + "-view.png");
  env["QT_QPA_PLATFORM"] = "offscreen";
  env["KAUSAL_TEST_ANIMATION_GRAB_ON_CLOSE"] = png.string();
  testing::KausalProcess p(args, dir, env);
  ViewedRun r;
  const auto view = p.component_pid("animation", 20s);
  r.view_seen = view.has_value();
  r.exit_code = p.wait(50s).value_or(-1);
  r.err = p.err();
  r.view_left = view && testing::process_exists(*view);
  r.log = testing::read_file(out / "logs/animation.log");
  r.picture = load_png(png);
  return r;
}

// The view's last picture shows the run: values plotted in the first plot (left of its
// legend), and the progress bar's horizon at its end (every partition final to the end).
void expect_plots_and_the_final_horizon(const QImage& image, std::size_t plots, std::size_t strips,
                                        const std::string& what) {
  ASSERT_FALSE(image.isNull()) << what;
  const LiveLayout layout = live_layout(image.size(), strips);
  const auto rects = plot_layout(layout.model, plots);
  ASSERT_FALSE(rects.empty()) << what;
  const QRect first = rects[0].plot;
  EXPECT_GT(series_pixels(image, first.left(), first.left() + first.width() * 2 / 5, first.top(),
                          first.bottom() + 1),
            0)
      << what;
  const QRect bar = layout.horizon.adjusted(140, 2, -8, -2);
  EXPECT_EQ((image.pixel(bar.right(), bar.center().y()) | 0xff000000u), colours::horizon) << what;
}

// The first plot of a live picture crossed by lines in colours::mark (every event across the
// boundary is one), a column each.
void expect_marks(const QImage& image, const nlohmann::json& summary, const std::string& what) {
  const LiveLayout layout = live_layout(image.size(), summary["components"].size());
  const QRect plot = plot_layout(layout.model, summary["partitions"].size())[0].plot;
  int columns = 0;
  for (int x = plot.left(); x <= plot.right(); ++x)
    if ((image.pixel(x, plot.bottom() - 1) | 0xff000000u) == colours::mark) ++columns;
  EXPECT_GT(columns, 0) << what;
}

// A run of `file` shown whole: it ended well with the pinned digest, its view opened, got
// `frames` frames, dropped and rejected none, and closed with it.
void expect_shown_whole(const ViewedRun& r, const fs::path& out, const std::string& file,
                        std::size_t frames, const std::string& what) {
  ASSERT_EQ(r.exit_code, 0) << what << "\n" << r.err;
  EXPECT_TRUE(r.view_seen) << what;
  EXPECT_FALSE(r.view_left) << what;
  EXPECT_NE(r.err.find("animation: 0 frames dropped"), std::string::npos) << what << r.err;
  EXPECT_EQ(testing::read_json(out / "summary.json")["trajectory_sha256"], pinned_digest(file))
      << what;
  const std::string received = std::to_string(frames) + " frames received, 0 dropped, 0 rejected";
  EXPECT_NE(r.log.find(received), std::string::npos) << what << ": " << received << "\n" << r.log;
}

class AnimatePartitioned : public ::testing::TestWithParam<std::string> {};

// Every method of every shipped partitioned model: the view opens, receives every row of
// trajectory.csv as a frame and rejects nothing, plots them, and ends with the run; the
// digest is the pinned one (watching changes nothing). The view is fed from the monitor's
// commits whatever the layout, so the parallel methods run in the single layout here (a
// tenth of the CPU of component processes); AnimatePartitionedCompare and AnimatePaced show
// runs of component processes.
TEST_P(AnimatePartitioned, EveryMethodIsPlottedLiveAndKeepsThePinnedDigest) {
  TempDir tmp;
  const std::string file = GetParam();
  // (The co-simulation master does not speculate: no optimistic run.)
  const bool master = testing::read_file(kScenarios / file).find("[master]") != std::string::npos;
  for (const std::string method : {"sequential", "conservative", "optimistic"}) {
    if (master && method == "optimistic") continue;
    const fs::path out = tmp / method;
    std::vector<std::string> args{"run",       (kScenarios / file).string(),
                                  "--method",  method,
                                  "--animate", "--realtime",
                                  "0",         "--animate-until",
                                  "run-end",   "--out",
                                  out.string()};
    if (method != "sequential") args.insert(args.end(), {"--layout", "single"});
    const ViewedRun r = run_with_view(args, tmp.path(), out);
    const std::string what = file + " " + method;
    expect_shown_whole(r, out, file, rows_of(out / "trajectory.csv"), what);
    const auto summary = testing::read_json(out / "summary.json");
    expect_plots_and_the_final_horizon(r.picture, summary["partitions"].size(),
                                       summary["components"].size(), what);
    // A hybrid model's events across the boundary: lines in the plots.
    if (summary.contains("events")) expect_marks(r.picture, summary, what);
  }
}

std::string test_name_of(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.find('.'));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shipped, AnimatePartitioned, ::testing::ValuesIn(kPartitioned),
                         test_name_of);

// The list above is every shipped partitioned scenario, hybrid ones included (a new one is
// animated too).
TEST(AnimatePartitionedList, NamesEveryShippedPartitionedScenario) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(kScenarios)) {
    const std::string text = testing::read_file(entry.path());
    if (entry.path().extension() == ".toml" && text.find("[[subsystem]]") != std::string::npos)
      found.push_back(entry.path().filename().string());
  }
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, kPartitioned);
}

// compare --animate: one view for the three runs, each shown from its start; every digest the
// pinned one.
TEST(AnimatePartitionedCompare, OneViewShowsEveryRun) {
  TempDir tmp;
  const std::string file = "two-tanks.toml";
  const fs::path out = tmp / "cmp";
  const ViewedRun r =
      run_with_view({"compare", (kScenarios / file).string(), "--animate", "--realtime", "0",
                     "--animate-until", "run-end", "--out", out.string()},
                    tmp.path(), out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.view_seen);
  EXPECT_FALSE(r.view_left);
  std::size_t feeds = 0;
  for (auto at = r.err.find("animation: 0 frames dropped"); at != std::string::npos;
       at = r.err.find("animation: 0 frames dropped", at + 1))
    ++feeds;
  EXPECT_EQ(feeds, 3u) << r.err;
  for (const char* method : {"sequential", "conservative", "optimistic"})
    EXPECT_EQ(testing::read_json(out / method / "summary.json")["trajectory_sha256"],
              pinned_digest(file))
        << method;
  // The last run's frames (a new run starts the view afresh), nothing rejected in any.
  const std::string received = std::to_string(rows_of(out / "optimistic/trajectory.csv")) +
                               " frames received, 0 dropped, 0 rejected";
  EXPECT_NE(r.log.find(received), std::string::npos) << received << "\n" << r.log;
  const auto summary = testing::read_json(out / "optimistic/summary.json");
  expect_plots_and_the_final_horizon(r.picture, summary["partitions"].size(),
                                     summary["components"].size(), "compare");
}

// ---- kausal run --animate on a discrete-event model ----

// Each method, the conservative one in the process layout (its progress comes over CORBA):
// the view receives a frame for every tick of the committed time and rejects nothing, plots
// them and ends at the end; the digest is the pinned one. trace.json graphs each group's
// counts, and their last values are the run's.
TEST(AnimateEvents, EveryMethodIsPlottedLiveAndEachGroupGraphedInTheTrace) {
  TempDir tmp;
  const std::string file = "phold.toml";
  for (const auto& [method, layout] : std::vector<std::pair<std::string, std::string>>{
           {"sequential", ""}, {"optimistic", "single"}, {"conservative", "process"}}) {
    const fs::path out = tmp / method;
    std::vector<std::string> args{"run",       (kScenarios / file).string(),
                                  "--method",  method,
                                  "--animate", "--animate-until",
                                  "run-end",   "--out",
                                  out.string()};
    if (method != "sequential") args.insert(args.end(), {"--layout", layout, "--groups", "3"});
    const ViewedRun r = run_with_view(args, tmp.path(), out);
    const std::string what = file + " " + method;
    expect_shown_whole(r, out, file, EventViewLayout::default_ticks + 1, what);
    const auto summary = testing::read_json(out / "summary.json");
    const std::size_t groups = method == "sequential" ? 1 : 3;
    expect_plots_and_the_final_horizon(r.picture, groups + (groups > 1), 0, what);
    // The newest sample of each group's counters; their sums are the run's figures.
    std::map<std::string, nlohmann::json> newest;
    const nlohmann::json trace = testing::read_json(out / "trace.json");
    for (const auto& e : trace["traceEvents"])
      if (e["ph"] == "C") newest[e["name"].get<std::string>()] = e["args"];
    double committed = 0, processed = 0, nulls = 0, anti = 0;
    std::size_t graphed = 0;
    for (const auto& [name, values] : newest) {
      if (name.ends_with("events")) {
        committed += values["committed"].get<double>();
        processed += values["processed"].get<double>();
        ++graphed;
      } else if (name.ends_with("synchronisation")) {
        nulls += values["null messages"].get<double>();
        anti += values["anti-messages"].get<double>();
      } else {
        EXPECT_EQ(values["committed"], summary["events"]["end"]) << what << " " << name;
      }
    }
    EXPECT_EQ(graphed, groups) << what;
    EXPECT_EQ(committed, summary["events"]["committed"].get<double>()) << what;
    EXPECT_EQ(processed, summary["events"]["processed"].get<double>()) << what;
    EXPECT_EQ(nulls, summary["events"]["null_messages"].get<double>()) << what;
    EXPECT_EQ(anti, summary["events"]["anti_messages"].get<double>()) << what;
    if (method == "conservative") {
      EXPECT_GT(nulls, 0) << what;
    }
  }
}

// ---- a paced run, shown as it happens ----

// The columns of the horizon bar where the horizon line is drawn (colours::horizon).
std::vector<int> horizon_columns(const QImage& image, const QRect& bar) {
  std::vector<int> xs;
  for (int x = bar.left(); x <= bar.right(); ++x)
    if ((image.pixel(x, bar.center().y()) | 0xff000000u) == colours::horizon) xs.push_back(x);
  return xs;
}

// Columns of the lateness strip with a bar in them (a margin or an overrun) in [x0, x1).
int lateness_columns(const QImage& image, const QRect& strip, int x0, int x1) {
  int columns = 0;
  for (int x = std::max(x0, strip.left() + 1); x < std::min(x1, strip.right()); ++x) {
    bool bar = false;
    for (int y = strip.top() + 1; y < strip.bottom() && !bar; ++y) {
      const QRgb c = image.pixel(x, y) | 0xff000000u;
      bar = c == colours::busy || c == colours::rollback;
    }
    columns += bar;
  }
  return columns;
}

// --animate without a pace: two-tanks.toml's 600 s (docs/adding-a-model.md §6) play in about
// 10 s, as the view plays them (60×), or slower if this machine cannot keep up then, said so;
// never at real time (10 minutes). The digest is the pinned one.
TEST(AnimatePaced, WithoutAPaceALongRunIsPacedAsTheViewPlaysIt) {
  TempDir tmp;
  const fs::path out = tmp / "run";
  const ViewedRun r = run_with_view({"run", (kScenarios / "two-tanks.toml").string(), "--animate",
                                     "--animate-until", "run-end", "--out", out.string()},
                                    tmp.path(), out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = testing::read_json(out / "summary.json");
  EXPECT_EQ(summary["trajectory_sha256"], pinned_digest("two-tanks.toml"));
  ASSERT_TRUE(summary.contains("realtime")) << r.err;
  const double factor = summary["realtime"]["factor"].get<double>();
  EXPECT_GT(factor, 1);
  EXPECT_LE(factor, 60);
  const std::string said = factor == 60
                               ? "--animate: paced at 60× real time, the pace the view plays it at"
                               : "below the view's 60×: a step needs about";
  EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
}

// The window closed after 2,000 of the tutorial's 6,000 steps, paced at 4 simulated seconds per
// wall second: its last picture is of that moment. The horizon (the optimistic GVT, the
// conservative guarantee) is beside step 2,000, not at the run's end as a replay of a
// finished run would show it; the lateness strip is filled up to there and empty beyond. The
// run goes on without its view to the pinned digest.
TEST(AnimatePaced, TheViewShowsTheRunAsItHappens) {
  TempDir tmp;
  constexpr double shown = 2000, steps = 6000;
  for (const std::string method : {"optimistic", "conservative"}) {
    const fs::path out = tmp / method;
    const ViewedRun r = run_with_view(
        {"run", (kScenarios / "tutorial.toml").string(), "--method", method, "--animate",
         "--realtime", "4", "--skip-feasibility-check", "--out", out.string()},
        tmp.path(), out, {{"KAUSAL_TEST_ANIMATION_CLOSE_AFTER_FRAMES", "2000"}});
    ASSERT_EQ(r.exit_code, 0) << method << "\n" << r.err;
    EXPECT_EQ(testing::read_json(out / "summary.json")["trajectory_sha256"],
              pinned_digest("tutorial.toml"))
        << method;
    ASSERT_FALSE(r.picture.isNull()) << method << r.log;
    const auto summary = testing::read_json(out / "summary.json");
    const LiveLayout layout =
        live_layout(r.picture.size(), summary["components"].size(), /*lateness=*/true);
    const QRect bar = layout.horizon.adjusted(140, 2, -8, -2);
    const auto x_of = [&](double step) {
      return bar.left() + static_cast<int>(step / steps * bar.width());
    };
    const std::vector<int> horizon = horizon_columns(r.picture, bar);
    ASSERT_FALSE(horizon.empty()) << method;
    // The step shown (a black line, unless the horizon's covers it) is the newest frame too,
    // not a replay that lags behind the frames received.
    for (int x = bar.left(); x <= bar.right(); ++x)
      if ((r.picture.pixel(x, bar.center().y()) | 0xff000000u) == qRgb(0, 0, 0)) {
        EXPECT_GE(x, x_of(shown - 50)) << method;
        EXPECT_LE(x, x_of(shown + 600)) << method;
      }
    // Frames reach the view within a few dozen milliseconds (about 100 steps here), and an
    // optimistic Integrator runs at most its window (128 steps) ahead of the GVT.
    // The horizon comes in the same 30 ms batch as the frames, just after them: a repaint
    // between the two shows the previous batch's (120 steps at factor 4, more on a loaded
    // machine).
    EXPECT_GE(horizon.front(), x_of(shown - 400)) << method;
    EXPECT_LE(horizon.back(), x_of(shown + 600)) << method;
    const QRect strip = layout.lateness.adjusted(140, 2, -8, -2);
    EXPECT_GT(lateness_columns(r.picture, strip, x_of(0), x_of(shown - 100)),
              (x_of(shown - 100) - x_of(0)) / 2)
        << method;
    EXPECT_EQ(lateness_columns(r.picture, strip, x_of(shown + 600), strip.right()), 0) << method;
  }
}

}  // namespace
}  // namespace kausal
