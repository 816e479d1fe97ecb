#include "animation/live_window.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QShortcut>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>
#include <iostream>
#include <sstream>

#include "animation/render.hpp"

namespace kausal {
namespace {

std::string title_of(const PlaybackView& v) {
  if (!v.run) return "waiting for a run to begin";
  std::ostringstream o;
  o << v.run->label << " · " << v.run->scenario;
  if (v.frame) o << " · t = " << v.frame->t << " s";
  // What moment this is: the run as it happens, a replay of it, or its end.
  if (v.at_end)
    o << " · run " << v.end_status << " (" << v.end_wall_s << " s)";
  else if (v.paused)
    o << " · paused";
  else
    o << " · " << to_string(v.mode);
  if (!v.at_end && !v.end_status.empty())
    o << " (the run " << v.end_status << " after " << v.end_wall_s << " s)";
  return o.str();
}

std::optional<TimelineMarker> horizon_marker(const PlaybackView& v) {
  if (!v.horizon || !v.run) return std::nullopt;
  return TimelineMarker{v.horizon->at_s,
                        v.run->horizon_name() + " " + std::to_string(v.horizon->step)};
}

}  // namespace

PlaybackWidget::PlaybackWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(480, 360);
}

void PlaybackWidget::show_view(PlaybackView view) {
  view_ = std::move(view);
  update();
}

void PlaybackWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(colours::background));
  // An exception must not leave a Qt event handler; a picture that cannot be drawn (a
  // window too small for the chain) says so instead.
  try {
    paint(p);
  } catch (const std::exception& e) {
    draw_text(p, rect(), e.what(), Qt::AlignCenter);
  }
}

void PlaybackWidget::paint(QPainter& p) {
  const LiveLayout l = live_layout(size(), view_.tracks.size(), view_.lateness.has_value());
  draw_text(p, l.title, title_of(view_));
  if (!view_.run) return;
  const AnimationRun& run = *view_.run;
  if (run.plot_view()) {
    if (view_.plot)
      draw_plots(p, l.model, run.plot, *view_.plot, run.t0,
                 run.t0 + static_cast<double>(run.steps) * run.h, view_.flashing, view_.marks);
  } else if (l.model.height() > 2 * static_cast<int>(pendulum_margin_px) + 4 && view_.frame) {
    draw_pendulums(p, scene_for(run.pendulums, l.model), view_.frame->states, view_.flashing);
  }
  const std::optional<std::uint64_t> horizon =
      view_.horizon ? std::optional(view_.horizon->step) : std::nullopt;
  draw_horizon_bar(p, l.horizon, view_.run->steps, view_.frame ? view_.frame->step : 0, horizon,
                   view_.run->horizon_name(),
                   view_.horizon ? view_.horizon->reached : std::vector<std::uint64_t>{});
  if (view_.lateness) draw_lateness_bar(p, l.lateness, *view_.lateness);
  if (!view_.tracks.empty())
    draw_timeline(p, l.timeline, view_.tracks, 0.0, std::max(view_.moment_s, 1e-3),
                  horizon_marker(view_));
}

LiveWindow::LiveWindow(Playback& playback, LiveOptions options)
    : playback_(playback), options_(std::move(options)), view_(new PlaybackWidget(this)) {
  setWindowTitle("kausal animation");
  setCentralWidget(view_);
  build_controls();
  resize(1000, 720);
  last_tick_ = std::chrono::steady_clock::now();
  connect(&timer_, &QTimer::timeout, this, [this] { on_tick(); });
  timer_.start(tick);
}

void LiveWindow::build_controls() {
  QToolBar* bar = addToolBar("playback");
  pause_ = new QPushButton("Pause", bar);
  pause_->setToolTip("Pause or resume the playback (Space); the run itself goes on");
  connect(pause_, &QPushButton::clicked, this, [this] { toggle_pause(); });
  bar->addWidget(pause_);
  auto* step = new QPushButton("Step", bar);
  step->setToolTip("Show the next committed frame and pause (Right arrow)");
  connect(step, &QPushButton::clicked, this, [this] { playback_.step_once(); });
  bar->addWidget(step);
  auto* live = new QPushButton("Live", bar);
  live->setToolTip(
      "Show the run as it happens again: the newest frame, now (L). A replay that catches up "
      "with the run goes live by itself");
  connect(live, &QPushButton::clicked, this, [this] { playback_.follow(); });
  bar->addWidget(live);
  auto* speed = new QComboBox(bar);
  for (const char* s : {"0.1×", "0.25×", "0.5×", "1×"}) speed->addItem(s);
  speed->setCurrentIndex(3);
  speed->setToolTip(
      "Replay speed: simulated seconds per wall second (a paused or stepped run replays; "
      "live, the run's own pace rules)");
  connect(speed, &QComboBox::currentIndexChanged, this, [this](int i) {
    static constexpr double speeds[] = {0.1, 0.25, 0.5, 1.0};
    if (i >= 0 && i < 4) playback_.set_speed(speeds[i]);
  });
  bar->addWidget(speed);
  auto* save = new QPushButton("Save picture…", bar);
  save->setToolTip("Save the view as it is now as a PNG (Ctrl+S), e.g. for teaching notes");
  connect(save, &QPushButton::clicked, this, [this] { save_picture(); });
  bar->addWidget(save);
  connect(new QShortcut(QKeySequence::Save, this), &QShortcut::activated, this,
          [this] { save_picture(); });
  connect(new QShortcut(Qt::Key_Space, this), &QShortcut::activated, this,
          [this] { toggle_pause(); });
  connect(new QShortcut(Qt::Key_Right, this), &QShortcut::activated, this,
          [this] { playback_.step_once(); });
  connect(new QShortcut(Qt::Key_L, this), &QShortcut::activated, this,
          [this] { playback_.follow(); });
  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);
  if (options_.controls) build_run_controls(*options_.controls);
}

// The run itself, not the playback: its pace, a push or a changed value at the next step
// boundary, a stop. Each answer stays in the status bar until the next one.
void LiveWindow::build_run_controls(const RunControls& controls) {
  addToolBarBreak();
  QToolBar* bar = addToolBar("run");
  auto* pace = new QComboBox(bar);
  // First the pace the run started at (--realtime, or --animate's, which the terminal
  // states), then the paces it can be changed to.
  static constexpr double factors[] = {0.1, 0.25, 0.5, 1, 2, 5, 10, 0};
  pace->addItem("run at its pace");
  for (double f : factors)
    pace->addItem(f == 0 ? QString("as fast as possible") : QString("run at %1×").arg(f));
  pace->setToolTip("The run's pace: simulated seconds per wall second (the run, not the playback)");
  connect(pace, &QComboBox::currentIndexChanged, this, [this, controls](int i) {
    if (i >= 1 && i <= 8) report(controls.pace(factors[i - 1]));
  });
  bar->addWidget(pace);
  if (controls.kind == ControlKind::pendulums) {
    auto* pendulum = new QSpinBox(bar);
    pendulum->setRange(1, 1'000'000);
    pendulum->setPrefix("pendulum ");
    auto* impulse = new QDoubleSpinBox(bar);
    impulse->setRange(-10, 10);
    impulse->setDecimals(3);
    impulse->setSingleStep(0.01);
    impulse->setValue(0.05);
    impulse->setSuffix(" N·s");
    auto* push = new QPushButton("Push", bar);
    push->setToolTip(
        "Push the pendulum at the next step boundary (a tangential impulse on its bob)");
    connect(push, &QPushButton::clicked, this, [this, controls, pendulum, impulse] {
      report(controls.push(static_cast<std::uint64_t>(pendulum->value()), impulse->value()));
    });
    for (QWidget* w : std::initializer_list<QWidget*>{pendulum, impulse, push}) bar->addWidget(w);
  } else {
    add_assignment(*bar, controls);
  }
  auto* stop = new QPushButton("Stop run", bar);
  stop->setToolTip("End the run at the next step boundary (kausal run --resume goes on)");
  connect(stop, &QPushButton::clicked, this, [this, controls] { report(controls.stop()); });
  bar->addWidget(stop);
}

// A set (an input or a parameter: SUBSYSTEM.NAME = VALUE) or an event sent (COMPONENT or
// COMPONENT.KIND = VALUE, the payload), typed into a field whose placeholder is one the model
// takes.
void LiveWindow::add_assignment(QToolBar& bar, const RunControls& controls) {
  const bool events = controls.kind == ControlKind::events;
  const std::string form = events ? "COMPONENT[.KIND] = VALUE" : "SUBSYSTEM.NAME = VALUE";
  auto* assignment = new QLineEdit(&bar);
  assignment->setObjectName("assignment");
  assignment->setPlaceholderText(
      QString::fromStdString(controls.example.empty() ? form : controls.example));
  assignment->setToolTip(QString::fromStdString(
      events ? "An event to a component (its kind by name or number) with the payload VALUE, "
               "at the next step boundary's time: " +
                   form
             : "A constant input or a parameter takes VALUE at the next step boundary: " + form));
  auto* apply = new QPushButton(events ? "Send" : "Set", &bar);
  connect(apply, &QPushButton::clicked, this, [this, controls, assignment, events, form] {
    const std::string text = assignment->text().toStdString();
    const auto eq = text.find('=');
    auto trimmed = [](std::string s) {
      const auto b = s.find_first_not_of(' ');
      const auto e = s.find_last_not_of(' ');
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    try {
      if (eq == std::string::npos) throw std::invalid_argument("no '='");
      const std::string target = trimmed(text.substr(0, eq));
      const double value = std::stod(text.substr(eq + 1));
      report(events ? controls.send(target, value) : controls.set(target, value));
    } catch (const std::logic_error&) {
      report(std::string(events ? "send" : "set") + ": write " + form);
    }
  });
  bar.addWidget(assignment);
  bar.addWidget(apply);
}

void LiveWindow::report(const std::string& line) {
  reported_ = line;
}

void LiveWindow::toggle_pause() {
  playback_.set_paused(!playback_.paused());
}

void LiveWindow::on_tick() {
  const auto now = std::chrono::steady_clock::now();
  playback_.advance(now - last_tick_);
  last_tick_ = now;
  const bool shutting_down = options_.shutdown_requested && options_.shutdown_requested();
  // Asked to close (the run has ended, --animate-until run-end): its last moment is shown,
  // and saved with --grab-on-close, however far a replay had got.
  if (shutting_down && !closing_) playback_.follow();
  PlaybackView v = playback_.view();
  pause_->setText(v.paused ? "Resume" : "Pause");
  status_->setText(QString::fromStdString(
      reported_.empty() ? status_text(v) : status_text(v) + "  ·  " + reported_));
  const bool enough_frames =
      options_.close_after_frames && v.counters.received >= *options_.close_after_frames;
  view_->show_view(std::move(v));
  if (closing_) return;
  if (enough_frames || shutting_down) {
    closing_ = true;
    if (!options_.grab_on_close.empty()) grab_view();
    close();
  }
}

void LiveWindow::grab_view() {
  if (!view_->grab().save(QString::fromStdString(options_.grab_on_close.string()), "PNG"))
    std::cerr << "kausal-animation: " << options_.grab_on_close.string() << ": cannot write\n";
}

void LiveWindow::save_picture() {
  const QPixmap picture = view_->grab();  // what is shown now, before the dialog opens
  const QString file =
      QFileDialog::getSaveFileName(this, "Save picture", "kausal-view.png", "PNG images (*.png)");
  if (file.isEmpty()) return;
  if (!picture.save(file, "PNG"))
    QMessageBox::warning(this, "kausal-animation", "Cannot write " + file);
}

std::string LiveWindow::status_text(const PlaybackView& v) const {
  std::ostringstream o;
  o << "frames received " << v.counters.received << " · dropped " << v.counters.dropped
    << " · rejected " << v.counters.rejected;
  if (v.counters.monitor_dropped) o << " · not sent by the monitor " << v.counters.monitor_dropped;
  o << " · buffered " << playback_.buffered();
  if (v.mode == PlaybackMode::replay) o << " · replay speed " << v.speed << "×";
  return o.str();
}

}  // namespace kausal
