// The live window's run controls (kausal-animation's second toolbar) on a real paced run in
// component processes: Push and Stop run reach the run's Operator over the ORB, take effect
// at a step and are recorded; the pace changes the run; after the run a control says that
// nobody serves it any more. Pause freezes the moment shown and Live follows the run again.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <cstdlib>

#include "animation/live_window.hpp"
#include "animation/operator_controls.hpp"
#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

QPushButton* button(QWidget& window, const QString& text) {
  for (auto* b : window.findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

// What the status bar says after the window's next repaints (its timer writes it).
std::string status_after_clicking(QMainWindow& window, QPushButton* b) {
  QTest::mouseClick(b, Qt::LeftButton);
  QTest::qWait(3 * static_cast<int>(LiveWindow::tick.count()));
  const auto labels = window.statusBar()->findChildren<QLabel*>();
  return labels.empty() ? std::string() : labels.front()->text().toStdString();
}

TEST(LiveWindowControls, PushPaceAndStopReachThePacedRun) {
  setenv("QT_QPA_PLATFORM", "offscreen", 1);
  int argc = 1;
  char name[] = "window_tests";
  char* argv[] = {name, nullptr};
  QApplication app(argc, argv);

  TempDir dir;
  const std::string thesis =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 60.0"}})
          .string();
  const fs::path out = dir / "live";
  KausalProcess run({"run", thesis, "--method", "optimistic", "--layout", "pendulum", "--realtime",
                     "1", "--skip-feasibility-check", "--out", out.string()},
                    dir.path());
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!fs::exists(out / "operator.ior") && std::chrono::steady_clock::now() < deadline &&
         !run.wait(0ms))
    std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(fs::exists(out / "operator.ior")) << run.err();

  OrbSettings client;
  client.serve = false;
  OrbRuntime orb(client);
  Playback playback;
  LiveOptions options;
  options.controls = operator_controls(orb, out / "operator.ior");
  LiveWindow window(playback, options);
  window.show();

  // Push pendulum 2 (the spin box says "pendulum N"; the impulse is 0.05 N·s by default).
  QSpinBox* pendulum = nullptr;
  for (auto* s : window.findChildren<QSpinBox*>())
    if (s->prefix() == "pendulum ") pendulum = s;
  ASSERT_NE(pendulum, nullptr);
  pendulum->setValue(2);
  ASSERT_NE(button(window, "Push"), nullptr);
  const std::string pushed = status_after_clicking(window, button(window, "Push"));
  EXPECT_NE(pushed.find("push 2 at step"), std::string::npos) << pushed;

  // The run's pace, from the second toolbar's selector.
  QComboBox* pace = nullptr;
  for (auto* c : window.findChildren<QComboBox*>())
    if (c->findText("as fast as possible") >= 0) pace = c;
  ASSERT_NE(pace, nullptr);
  pace->setCurrentIndex(pace->findText("run at 2×"));
  QTest::qWait(3 * static_cast<int>(LiveWindow::tick.count()));
  EXPECT_NE(
      window.statusBar()->findChildren<QLabel*>().front()->text().toStdString().find("pace: 2×"),
      std::string::npos);

  // The playback's own controls: Pause freezes the moment (a replay), Live follows again.
  QTest::mouseClick(button(window, "Pause"), Qt::LeftButton);
  EXPECT_TRUE(playback.paused());
  EXPECT_EQ(playback.mode(), PlaybackMode::replay);
  QTest::mouseClick(button(window, "Live"), Qt::LeftButton);
  EXPECT_FALSE(playback.paused());
  EXPECT_EQ(playback.mode(), PlaybackMode::follow);

  const std::string stopped = status_after_clicking(window, button(window, "Stop run"));
  EXPECT_NE(stopped.find("stop at step"), std::string::npos) << stopped;
  ASSERT_EQ(run.wait(30s), std::optional<int>(130)) << run.err();
  const std::string recorded = read_file(out / "injections.jsonl");
  EXPECT_NE(recorded.find("\"kind\":\"push\",\"target\":\"2\""), std::string::npos) << recorded;
  EXPECT_NE(recorded.find("\"kind\":\"stop\""), std::string::npos) << recorded;
  // The run has gone with its operator.ior: the window says so, and does not crash.
  const std::string after = status_after_clicking(window, button(window, "Push"));
  EXPECT_NE(after.find("serves no operator"), std::string::npos) << after;
}

}  // namespace
}  // namespace kausal::testing
