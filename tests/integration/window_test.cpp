// The live window's run controls (kausal-animation's second toolbar) on a real paced run in
// component processes: Push and Stop run reach the run's Operator over the ORB, take effect
// at a step and are recorded; the pace changes the run; after the run a control says that
// nobody serves it any more. Pause freezes the moment shown and Live follows the run again.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
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

// Each test with its offscreen application (QApplication keeps argc by reference).
class LiveWindowControls : public ::testing::Test {
 private:
  // Before the application, which reads it.
  bool offscreen_ = setenv("QT_QPA_PLATFORM", "offscreen", 1) == 0;
  int argc_ = 1;
  char name_[13] = "window_tests";
  char* argv_[2] = {name_, nullptr};
  QApplication app_{argc_, argv_};
};

TEST_F(LiveWindowControls, PushPaceAndStopReachThePacedRun) {
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

// The run controls fit the model: a chain's window pushes pendulums and sets nothing; a
// partitioned model's sets an input or a parameter, its field showing one the model has; a
// discrete-event model's sends events. What the control answers goes to the status bar.
TEST_F(LiveWindowControls, EachModelKindGetsTheControlsItTakes) {
  std::vector<std::string> calls;
  auto controls_of = [&calls](ControlKind kind, const std::string& example) {
    RunControls c;
    c.kind = kind;
    c.example = example;
    c.pace = [](double) { return std::string("pace"); };
    c.push = [&calls](std::uint64_t, double) { return calls.emplace_back("push"); };
    c.set = [&calls](const std::string& target, double value) {
      return calls.emplace_back("set " + target + " " + std::to_string(value));
    };
    c.send = [&calls](const std::string& target, double value) {
      return calls.emplace_back("send " + target + " " + std::to_string(value));
    };
    c.stop = [] { return std::string("stop"); };
    return c;
  };
  auto options = [](RunControls controls) {
    LiveOptions o;
    o.controls = std::move(controls);
    return o;
  };
  auto placeholder = [](QWidget& window) {
    const auto* field = window.findChild<QLineEdit*>("assignment");
    return field ? field->placeholderText().toStdString() : std::string("(none)");
  };
  // Types `text` into the field, clicks `name`: what the status bar says then.
  auto apply = [](QMainWindow& window, const QString& text, const QString& name) {
    window.findChild<QLineEdit*>("assignment")->setText(text);
    return status_after_clicking(window, button(window, name));
  };
  {
    Playback playback;
    LiveWindow window(playback, options(controls_of(ControlKind::pendulums, "")));
    EXPECT_NE(button(window, "Push"), nullptr);
    EXPECT_EQ(button(window, "Set"), nullptr);
    EXPECT_EQ(button(window, "Send"), nullptr);
    EXPECT_EQ(placeholder(window), "(none)");
  }
  {
    Playback playback;
    LiveWindow window(playback, options(controls_of(ControlKind::values, "upper.inflow = 0.05")));
    EXPECT_EQ(button(window, "Push"), nullptr);
    ASSERT_NE(button(window, "Set"), nullptr);
    EXPECT_EQ(placeholder(window), "upper.inflow = 0.05");
    const std::string said = apply(window, " upper.inflow = 0.07 ", "Set");
    EXPECT_NE(said.find("set upper.inflow 0.07"), std::string::npos) << said;
    const std::string refused = apply(window, "upper.inflow", "Set");
    EXPECT_NE(refused.find("set: write SUBSYSTEM.NAME = VALUE"), std::string::npos) << refused;
  }
  {
    Playback playback;
    LiveWindow window(playback, options(controls_of(ControlKind::events, "lp0 = 1")));
    EXPECT_EQ(button(window, "Push"), nullptr);
    EXPECT_EQ(button(window, "Set"), nullptr);
    ASSERT_NE(button(window, "Send"), nullptr);
    EXPECT_EQ(placeholder(window), "lp0 = 1");
    const std::string said = apply(window, "lp3.arrival = 2", "Send");
    EXPECT_NE(said.find("send lp3.arrival 2.0"), std::string::npos) << said;
  }
  // The pace selector starts at the run's own pace (--animate's may be 60×): it changes
  // nothing until chosen.
  {
    Playback playback;
    LiveWindow window(playback, options(controls_of(ControlKind::values, "")));
    EXPECT_EQ(placeholder(window), "SUBSYSTEM.NAME = VALUE");
    QComboBox* pace = nullptr;
    for (auto* c : window.findChildren<QComboBox*>())
      if (c->findText("as fast as possible") >= 0) pace = c;
    ASSERT_NE(pace, nullptr);
    EXPECT_EQ(pace->currentText().toStdString(), "run at its pace");
  }
  EXPECT_EQ(calls.size(), 2u);
}

}  // namespace
}  // namespace kausal::testing
