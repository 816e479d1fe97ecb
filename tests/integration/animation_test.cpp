// kausal-animation as a real process: the offscreen render modes checked pixel by pixel
// against the physics, and the live servant fed over CORBA.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <cmath>

#include "animation/render.hpp"
#include "animation/timeline.hpp"
#include "idl/kausal.hh"
#include "idl/orb_runtime.hpp"
#include "kausal_process.hpp"
#include "system/activity_trace.hpp"

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
                 double t1) {
  const TimelineLayout l = timeline_layout(timeline_area, 2);
  const QRect strip = l.strips.at(track);
  const Timeline columns(0, t1, static_cast<std::size_t>(strip.width()));
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
  const Scene scene = scene_for(chain, layout.pendulums);
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
  const Scene scene = scene_for(chain, snapshot_layout(image.size(), 2).pendulums);
  // Step 5 (t = 0.005 s) shows the row of t = 0: phi_1 = 0.3.
  const PixelPoint c = scene.to_pixel(std::sin(0.3), -std::cos(0.3));
  EXPECT_EQ(pixel(image, c.x, c.y), colours::bob);
  const PixelPoint last = scene.to_pixel(std::sin(-0.6), -std::cos(-0.6));
  EXPECT_EQ(pixel(image, last.x, last.y), colours::background);
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
  ASSERT_EQ(run_animation({"--help"}, tmp.path()), 0);
  const std::string out = testing::read_file(tmp / "kausal-animation.out");
  for (const char* word : {"--snapshot", "--timeline", "--chart", "--run", "--runs", "--step",
                           "--size", "Live mode", "--close-after-frames", "Exit codes"})
    EXPECT_NE(out.find(word), std::string::npos) << word;
}

// ---- the live servant over CORBA ----

idl::AnimationSetup setup_of_two() {
  idl::AnimationSetup s;
  s.scenario = "pair";
  s.label = "optimistic";
  s.t0 = 0;
  s.h = 0.001;
  s.steps = 1000;
  s.pendulums.length(2);
  s.pendulums[0] = {0.0, 1.0, 0.1};
  s.pendulums[1] = {0.2, 1.0, 0.1};
  s.components.length(1);
  s.components[0] = "monitor";
  s.clock_ns = 0;
  return s;
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
  view->frames(0, states(3));
  idl::DoubleSeq bad = states(1);
  bad.length(3);  // not 4 values per step: dropped and counted
  view->frames(3, bad);
  idl::StepSeq reached;
  reached.length(2);
  reached[0] = 3;
  reached[1] = 2;
  view->horizon(2, reached);
  view->rolled_back(1, 1);
  idl::ActivitySpanSeq spans;
  spans.length(1);
  spans[0] = {100, 200, 0};
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
  view->frames(0, states(4));
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(p.wait(0ms)) << "closed before its 5th frame";
  view->frames(4, states(3));
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
  view->begin_run(setup);
  idl::ActivitySpanSeq spans;
  spans.length(1);
  spans[0] = {setup.clock_ns, setup.clock_ns + 60'000'000'000ull, 0};  // busy all along
  view->activity("monitor", spans);
  view->frames(0, still_frames(10));
  view->rolled_back(1, 5);
  view->frames(10, still_frames(10));  // the 20th frame: the window grabs itself and closes
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  const QImage image = load_png(png);
  ASSERT_FALSE(image.isNull()) << p.err();
  const LiveLayout layout = live_layout(image.size(), 1);
  const Scene scene = scene_for({{0.0, 1.0, 0.1}, {0.2, 1.0, 0.1}}, layout.pendulums);
  const PixelPoint bob0 = scene.to_pixel(std::sin(0.5), -std::cos(0.5));
  const PixelPoint bob1 = scene.to_pixel(0.2, -1.0);
  EXPECT_EQ(pixel(image, bob0.x, bob0.y), colours::bob);
  EXPECT_EQ(pixel(image, bob1.x, bob1.y), colours::bob_flash);  // rolled back just now
  const QRect strip = timeline_layout(layout.timeline, 1).strips.at(0);
  EXPECT_EQ(image.pixel(strip.left() + strip.width() / 3, strip.center().y()) | 0xff000000u,
            colours::busy);
}

TEST_F(LiveAnimation, GarbageIsDroppedNotFatal) {
  TempDir tmp;
  AnimationProcess p({}, tmp.path());
  idl::Animation_var view = connect(p);
  ASSERT_FALSE(CORBA::is_nil(view));
  view->frames(0, states(2));  // before begin_run
  idl::AnimationSetup bad = setup_of_two();
  bad.pendulums[1].length = std::nan("");
  view->begin_run(bad);
  view->begin_run(setup_of_two());
  idl::DoubleSeq nan = states(1);
  nan[1] = std::nan("");
  view->frames(0, nan);
  view->rolled_back(7, 0);
  idl::ActivitySpanSeq spans;
  spans.length(2);
  spans[0] = {300, 200, 0};  // ends before it begins
  spans[1] = {100, 200, 9};  // no such kind
  view->activity("monitor", spans);
  idl::StepSeq reached;
  reached.length(5);
  view->horizon(1, reached);
  view->ping();  // still alive and answering
  view->shutdown();
  ASSERT_EQ(p.wait(10s), std::optional<int>(0)) << p.err();
  EXPECT_NE(p.err().find("0 frames received, 0 dropped, 7 rejected"), std::string::npos) << p.err();
}

}  // namespace
}  // namespace kausal
