#pragma once
// The live view's state, fed from the ORB's threads (Animation servant) and read by the Qt
// thread: committed frames in a bounded buffer, the playback clock (pause, single step,
// slow motion), the horizon, rollback flashes and the activity strips; for a plot view
// (partitioned models) also the bounded history of the values shown so far, and for a paced
// run how the shown steps kept their deadlines. Every entry point checks what it is given; a
// bad value is dropped and counted, never trusted.
//
// One moment. Everything the monitor sends is stamped on its clock: a frame with its commit,
// a horizon and a rollback with when they happened, the activity spans with their times. The
// view shows one moment of the run at a time: following a run (a paced run, as it happens)
// that moment is now; replaying buffered frames it is the commit of the frame shown. The
// horizon, the run-ahead of each unit, the rollback flashes and the strips are those of that
// moment, whatever the speed, and frozen with it while paused.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "animation/lateness_history.hpp"
#include "animation/plot_history.hpp"
#include "animation/run_view.hpp"
#include "animation/view_types.hpp"

namespace kausal {

// idl::AnimationSetup as plain C++. One view: pendulums (the chain) or plots (a partitioned
// model: `plot.series` values per frame, drawn against simulated time).
struct AnimationRun {
  std::string scenario;
  std::string label;  // "optimistic", "conservative/lookahead", ...
  double t0 = 0;
  double h = 0;
  std::uint64_t steps = 0;  // the last step of the run
  std::vector<PendulumGeometry> pendulums;
  PlotSpec plot;
  std::uint64_t frame_every = 1;  // steps between frames; the last frame may be at `steps`
  std::vector<std::string> components;
  std::uint64_t clock_ns = 0;  // the monitor's monotonic clock at the start of the run
  bool paced = false;          // the run follows a clock: shown as it happens, with lateness

  bool plot_view() const { return pendulums.empty(); }
  // Values per frame: (phi, omega) per pendulum, or one per series.
  std::size_t frame_size() const;
  // Pendulums or plots: the entries of a horizon's `reached`, what rolled_back names.
  std::size_t units() const;
  // The step of the frame after `step`: step + frame_every, at most `steps`.
  std::uint64_t next_frame_step(std::uint64_t step) const;
  // Optimistic runs have a GVT, conservative ones a guarantee; a plot view shows the last
  // step every partition has made final.
  std::string horizon_name() const;
  // Simulated seconds the playback clock moves per wall second at speed 1×: real time for
  // the chain; a plot view plays at least as fast as real time and a whole run in at most
  // view_replay_s (common/view_pace.hpp, the pace --animate gives a run).
  double playback_rate() const;
};

// How the playback chooses the frame it shows.
enum class PlaybackMode {
  follow,  // the newest frame as it arrives: the run as it happens (paced runs start so)
  replay,  // its own clock through the buffered frames, at the chosen speed
};
const char* to_string(PlaybackMode mode);

// When the frames of one add_frames call were committed, and how they kept their deadlines.
struct FrameTimes {
  std::vector<std::uint64_t> committed_ns;  // one per frame (monitor's clock); empty: on arrival
  std::vector<double> lateness_s;           // paced runs: one per frame (NaN: not known)
  std::uint64_t overruns = 0;               // paced runs: states committed late so far
};

struct Frame {
  std::uint64_t step = 0;
  double t = 0;
  std::vector<double> states;  // (phi, omega) per pendulum, or one value per plot series
  double committed_s = 0;      // its commit, seconds since the run started (monitor's clock)
  double lateness_s = std::numeric_limits<double>::quiet_NaN();  // paced runs (NaN: unknown)
  std::uint64_t overruns = 0;  // paced runs: the monitor's count when it was sent
};

struct PlaybackCounters {
  std::uint64_t received = 0;         // frames accepted
  std::uint64_t dropped = 0;          // accepted, then pushed out of the full buffer unseen
  std::uint64_t rejected = 0;         // bad values: wrong sizes, not finite, out of order, ...
  std::uint64_t monitor_dropped = 0;  // frames the monitor could not send (end_run)
  std::uint64_t spans_dropped = 0;    // activity spans pushed out of a full strip
};

struct Horizon {
  std::uint64_t step = 0;              // GVT (optimistic) or guarantee (conservative)
  std::vector<std::uint64_t> reached;  // per pendulum (plot views: per plot)
  double at_s = 0;                     // when it was reached, seconds since the run started
};

// Everything the Qt thread draws, copied under the lock once per repaint.
struct PlaybackView {
  std::optional<AnimationRun> run;
  std::optional<Frame> frame;
  std::optional<Horizon> horizon;
  std::vector<bool> flashing;  // per pendulum (plot views: per plot)
  // Plot views: the values up to the frame shown (the history, bounded, and that frame), and
  // the marks up to it.
  std::optional<PlotPoints> plot;
  std::vector<PlotMark> marks;
  std::vector<ComponentTrack> tracks;  // up to the moment shown
  PlaybackCounters counters;
  PlaybackMode mode = PlaybackMode::replay;
  double moment_s = 0;  // the moment shown, seconds since the run started: the strips' end
  bool paused = false;
  double speed = 1;
  std::string end_status;  // empty while the run goes on
  double end_wall_s = 0;
  bool at_end = false;                   // the run has ended and the moment shown is its end
  std::optional<LatenessView> lateness;  // paced runs: the deadlines of the steps shown
};

class Playback {
 public:
  using Clock = std::chrono::steady_clock;
  // A rollback flashes for this long of playback time (longer in slow motion, frozen while
  // paused).
  static constexpr double flash_s = 0.5;
  static constexpr std::size_t max_tracks = 64;
  // Horizons and rollbacks kept for moments not shown yet. Beyond max_horizons every second
  // horizon goes (the first and the newest stay); beyond max_rollbacks the oldest rollback.
  static constexpr std::size_t max_horizons = 4096;
  static constexpr std::size_t max_rollbacks = 10000;
  // A plot view's limits: plots (partitions), series in all, and the points kept per series.
  static constexpr std::size_t max_plots = 256;
  static constexpr std::size_t max_series = 2048;

  explicit Playback(std::size_t frame_capacity = 4096, std::size_t spans_per_track = 50000,
                    std::size_t plot_points = PlotHistory::default_max_points);

  // ---- the feed (any thread) ----
  // Starts a new run: clears frames, horizon, flashes, strips and the plot history; a paced
  // run is followed, any other replayed. Rejected
  // (returns false, counted): neither or both views; a pendulum with non-finite or
  // non-positive geometry; a plot view without series, with a series in no plot or beyond
  // max_plots / max_series; a non-finite t0, h <= 0, frame_every 0 or past `steps`.
  bool begin_run(AnimationRun run);
  // Frames first_step, next_frame_step(first_step), ...: frame_size() values each, with
  // their times (committed_ns and lateness_s empty or one per frame; a lateness may be NaN,
  // never infinite). Returns the number of frames accepted (all or none): wrong sizes, values
  // that are not finite, a first step that is no frame's or not after the newest frame,
  // frames past the last step are rejected and counted.
  std::size_t add_frames(std::uint64_t first_step, std::span<const double> states,
                         const FrameTimes& times = {}, std::uint64_t now_ns = monotonic_ns());
  // The horizon reached at at_ns (the monitor's clock).
  bool set_horizon(std::uint64_t step, std::vector<std::uint64_t> reached,
                   std::uint64_t at_ns = monotonic_ns());
  bool rolled_back(std::size_t pendulum, std::uint64_t step, std::uint64_t at_ns = monotonic_ns());
  // Plot views: moments to mark (PlotMark), each at a finite simulated time with a label of
  // at most max_mark_label bytes (a longer one is cut); the newest max_marks are kept.
  // Returns the marks accepted; the others (a pendulum view, no run, a time that is not
  // finite) are rejected and counted.
  std::size_t add_marks(const std::vector<PlotMark>& marks);
  static constexpr std::size_t max_marks = 512;
  static constexpr std::size_t max_mark_label = 80;
  // Spans on the monitor's monotonic clock (same host); bad spans are dropped and counted.
  std::size_t add_spans(const std::string& component, const std::vector<ActivitySpan>& spans);
  void end_run(const std::string& status, double wall_s, std::uint64_t monitor_dropped);

  // ---- the controls (Qt thread) ----
  // Pausing a followed run replays from the frame shown: the moment stands still.
  void set_paused(bool paused);
  // Shows the next buffered frame and pauses.
  void step_once();
  // Follows the run again: the newest frame, now (and unpaused).
  void follow();
  // Slow motion of a replay: simulated seconds per wall second, 0.1 .. 1 (InputError
  // otherwise).
  void set_speed(double speed);
  // Moves the playback on by `wall` unless paused: a replay's clock (scaled by the speed;
  // never past the newest frame: a replay that catches up with a paced run still going
  // follows it), and the time the rollback flashes fade in.
  void advance(Clock::duration wall);

  PlaybackView view(std::uint64_t now_ns = monotonic_ns()) const;
  PlaybackCounters counters() const;
  bool paused() const;
  PlaybackMode mode() const;
  std::optional<Frame> current() const;
  std::size_t buffered() const;

 private:
  bool valid_frames(std::uint64_t first_step, std::span<const double> states,
                    const FrameTimes& times) const;
  void push_frame(Frame frame);
  // The shown frame leaves the buffer; a plot view keeps it in its history.
  void pop_front();
  void show_front();
  void show_newest();
  // The frame shown is counted in the lateness history (once).
  void note_shown(const Frame& frame);
  // The moment shown (seconds since the start) and what belongs to it: the horizon reached
  // by then, flashes of the rollbacks before it starting now.
  double moment_s(std::uint64_t now_ns) const;
  // The run has ended and its last moment is shown (followed, or replayed to the newest frame).
  bool showing_end() const;
  const Horizon* horizon_at(double moment) const;
  void catch_up_to_moment(std::uint64_t now_ns);
  double seconds_since_start(std::uint64_t ns) const;

  mutable std::mutex mutex_;
  std::size_t frame_capacity_;
  std::size_t spans_per_track_;
  std::optional<AnimationRun> run_;
  std::size_t plot_points_;
  std::deque<Frame> frames_;    // front: the frame shown
  PlotHistory history_;         // plot views: the frames before the one shown
  std::deque<PlotMark> marks_;  // plot views: the newest max_marks, in order of arrival
  std::optional<std::uint64_t> newest_step_;
  double position_t_ = 0;  // a replay's clock (simulated seconds)
  double played_s_ = 0;    // playback time: wall time while not paused, slowed by the speed
  PlaybackMode mode_ = PlaybackMode::replay;
  bool paused_ = false;
  double speed_ = 1;
  std::deque<Horizon> horizons_;  // by time; the first one at or before the moment shown
  struct Rollback {
    std::size_t unit = 0;
    double at_s = 0;
    std::optional<double> flashed_from;  // playback time when its moment was first shown
  };
  std::deque<Rollback> rollbacks_;  // not yet shown, or flashing
  std::optional<LatenessHistory> lateness_;
  std::optional<std::uint64_t> noted_step_;  // the newest frame the lateness history has
  struct LiveTrack {
    std::string name;
    std::deque<ActivitySpan> spans;
  };
  LiveTrack* track(const std::string& name);
  std::vector<LiveTrack> tracks_;  // the run's components first, in its order
  PlaybackCounters counters_;
  std::string end_status_;
  double end_wall_s_ = 0;
  // The latest time anything arrived stamped with (a commit, a horizon, a rollback, a span's
  // end): an ended run's last moment is at least this (its wall time may start later).
  double newest_s_ = 0;
};

}  // namespace kausal
