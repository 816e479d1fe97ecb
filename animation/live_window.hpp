#pragma once
// The live window: the pendulums swinging from committed frames (or a partitioned model's
// values plotted up to the frame shown), the horizon, a strip per component, the controls.
// Everything here runs on the Qt thread; the feed arrives in Playback from the ORB's threads and is
// copied out once per repaint.
#include <QLabel>
#include <QMainWindow>
#include <QPainter>
#include <QPushButton>
#include <QTimer>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "animation/playback.hpp"

class QToolBar;

namespace kausal {

// Paints one PlaybackView.
class PlaybackWidget : public QWidget {
 public:
  explicit PlaybackWidget(QWidget* parent = nullptr);
  void show_view(PlaybackView view);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void paint(QPainter& p);

  PlaybackView view_;
};

// What a model takes from the window's run controls besides pace and stop: a push of a
// pendulum (a chain), a set of an input or a parameter (partitioned, co-simulation and hybrid
// models), an event sent to a component (discrete-event models).
enum class ControlKind { pendulums, values, events };

// What the window's run controls do to a paced run (its Operator, docs/realtime.md): each
// returns a line for the status bar ("push at step 1200", or why the run refused).
struct RunControls {
  ControlKind kind = ControlKind::pendulums;
  std::string example;  // values, events: the entry field's placeholder ("upper.inflow = 0.05")
  std::function<std::string(double factor)> pace;  // 0: as fast as possible
  std::function<std::string(std::uint64_t pendulum, double impulse)> push;
  std::function<std::string(const std::string& target, double value)> set;
  std::function<std::string(const std::string& target, double value)> send;
  std::function<std::string()> stop;
};

struct LiveOptions {
  std::optional<std::uint64_t> close_after_frames;  // test hook
  std::function<bool()> shutdown_requested;         // Participant::shutdown arrived
  std::filesystem::path grab_on_close;              // test hook: the view as a PNG, at the end
  std::optional<RunControls> controls;              // a paced run: pace, push, set, stop
};

class LiveWindow : public QMainWindow {
 public:
  static constexpr std::chrono::milliseconds tick{33};  // ~30 repaints a second

  LiveWindow(Playback& playback, LiveOptions options);

 private:
  void build_controls();
  void build_run_controls(const RunControls& controls);
  void add_assignment(QToolBar& bar, const RunControls& controls);
  void report(const std::string& line);
  void on_tick();
  void toggle_pause();
  void grab_view();
  void save_picture();
  std::string status_text(const PlaybackView& v) const;

  Playback& playback_;
  LiveOptions options_;
  PlaybackWidget* view_;
  QPushButton* pause_ = nullptr;
  QLabel* status_ = nullptr;
  std::string reported_;  // the run controls' last answer, shown with the status
  QTimer timer_;
  std::chrono::steady_clock::time_point last_tick_;
  bool closing_ = false;
};

}  // namespace kausal
