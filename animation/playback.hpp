#pragma once
// The live view's state, fed from the ORB's threads (Animation servant) and read by the Qt
// thread: committed frames in a bounded buffer, the playback clock (pause, single step,
// slow motion), the horizon, rollback flashes and the activity strips; for a plot view
// (partitioned models) also the bounded history of the values shown so far. Every entry
// point checks what it is given; a bad value is dropped and counted, never trusted.
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

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
  // Playback::plot_replay_s.
  double playback_rate() const;
};

struct Frame {
  std::uint64_t step = 0;
  double t = 0;
  std::vector<double> states;  // (phi, omega) per pendulum, or one value per plot series
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
  double at_s = 0;                     // when it arrived, seconds since the run started
};

// Everything the Qt thread draws, copied under the lock once per repaint.
struct PlaybackView {
  std::optional<AnimationRun> run;
  std::optional<Frame> frame;
  std::optional<Horizon> horizon;
  std::vector<bool> flashing;  // per pendulum (plot views: per plot)
  // Plot views: the values up to the frame shown (the history, bounded, and that frame).
  std::optional<PlotPoints> plot;
  std::vector<ComponentTrack> tracks;
  double timeline_end_s = 0;
  PlaybackCounters counters;
  bool paused = false;
  double speed = 1;
  std::string end_status;  // empty while the run goes on
  double end_wall_s = 0;
};

class Playback {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds flash_duration{500};
  static constexpr std::size_t max_tracks = 64;
  // A plot view's limits: plots (partitions), series in all, and the points kept per series.
  static constexpr std::size_t max_plots = 256;
  static constexpr std::size_t max_series = 2048;
  static constexpr double plot_replay_s = 10;

  explicit Playback(std::size_t frame_capacity = 4096, std::size_t spans_per_track = 50000,
                    std::size_t plot_points = PlotHistory::default_max_points);

  // ---- the feed (any thread) ----
  // Starts a new run: clears frames, horizon, flashes, strips and the plot history. Rejected
  // (returns false, counted): neither or both views; a pendulum with non-finite or
  // non-positive geometry; a plot view without series, with a series in no plot or beyond
  // max_plots / max_series; a non-finite t0, h <= 0, frame_every 0 or past `steps`.
  bool begin_run(AnimationRun run);
  // Frames first_step, next_frame_step(first_step), ...: frame_size() values each. Returns
  // the number of frames accepted (all or none): wrong sizes, values that are not finite, a
  // first step that is no frame's or not after the newest frame, frames past the last step
  // are rejected and counted.
  std::size_t add_frames(std::uint64_t first_step, std::span<const double> states);
  bool set_horizon(std::uint64_t step, std::vector<std::uint64_t> reached,
                   std::uint64_t now_ns = monotonic_ns());
  bool rolled_back(std::size_t pendulum, std::uint64_t step, Clock::time_point now = Clock::now());
  // Spans on the monitor's monotonic clock (same host); bad spans are dropped and counted.
  std::size_t add_spans(const std::string& component, const std::vector<ActivitySpan>& spans);
  void end_run(const std::string& status, double wall_s, std::uint64_t monitor_dropped);

  // ---- the controls (Qt thread) ----
  void set_paused(bool paused);
  // Shows the next buffered frame and pauses.
  void step_once();
  // Slow motion: simulated seconds per wall second, 0.1 .. 1 (InputError otherwise).
  void set_speed(double speed);
  // Moves the playback clock on by `wall` (scaled by the speed) unless paused; it never
  // runs past the newest frame.
  void advance(Clock::duration wall);

  PlaybackView view(Clock::time_point now = Clock::now(),
                    std::uint64_t now_ns = monotonic_ns()) const;
  PlaybackCounters counters() const;
  bool paused() const;
  std::optional<Frame> current() const;
  std::size_t buffered() const;

 private:
  bool valid_frames(std::uint64_t first_step, std::span<const double> states) const;
  void push_frame(Frame frame);
  // The shown frame leaves the buffer; a plot view keeps it in its history.
  void pop_front();
  void show_front();
  double seconds_since_start(std::uint64_t ns) const;

  mutable std::mutex mutex_;
  std::size_t frame_capacity_;
  std::size_t spans_per_track_;
  std::optional<AnimationRun> run_;
  std::size_t plot_points_;
  std::deque<Frame> frames_;  // front: the frame shown
  PlotHistory history_;       // plot views: the frames before the one shown
  std::optional<std::uint64_t> newest_step_;
  double position_t_ = 0;  // the playback clock (simulated seconds)
  bool paused_ = false;
  double speed_ = 1;
  std::optional<Horizon> horizon_;
  std::vector<std::optional<Clock::time_point>> rolled_back_at_;
  struct LiveTrack {
    std::string name;
    std::deque<ActivitySpan> spans;
  };
  LiveTrack* track(const std::string& name);
  std::vector<LiveTrack> tracks_;  // the run's components first, in its order
  PlaybackCounters counters_;
  std::string end_status_;
  double end_wall_s_ = 0;
};

}  // namespace kausal
