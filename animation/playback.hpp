#pragma once
// The live view's state, fed from the ORB's threads (Animation servant) and read by the Qt
// thread: committed frames in a bounded buffer, the playback clock (pause, single step,
// slow motion), the horizon, rollback flashes and the activity strips. Every entry point
// checks what it is given; a bad value is dropped and counted, never trusted.
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "animation/run_view.hpp"
#include "animation/view_types.hpp"

namespace kausal {

// idl::AnimationSetup as plain C++.
struct AnimationRun {
  std::string scenario;
  std::string label;  // "optimistic", "conservative/lookahead", ...
  double t0 = 0;
  double h = 0;
  std::uint64_t steps = 0;  // the last step of the run
  std::vector<PendulumGeometry> pendulums;
  std::vector<std::string> components;
  std::uint64_t clock_ns = 0;  // the monitor's monotonic clock at the start of the run

  // Optimistic runs have a GVT, conservative ones a guarantee.
  std::string horizon_name() const;
};

struct Frame {
  std::uint64_t step = 0;
  double t = 0;
  std::vector<double> states;  // (phi, omega) per pendulum
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
  std::vector<std::uint64_t> reached;  // per pendulum
  double at_s = 0;                     // when it arrived, seconds since the run started
};

// Everything the Qt thread draws, copied under the lock once per repaint.
struct PlaybackView {
  std::optional<AnimationRun> run;
  std::optional<Frame> frame;
  std::optional<Horizon> horizon;
  std::vector<bool> flashing;  // per pendulum
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

  explicit Playback(std::size_t frame_capacity = 4096, std::size_t spans_per_track = 50000);

  // ---- the feed (any thread) ----
  // Starts a new run: clears frames, horizon, flashes and strips. A run with no pendulum or
  // non-finite or non-positive geometry is rejected (returns false, counted).
  bool begin_run(AnimationRun run);
  // States of first_step, first_step + 1, ...: 2 values per pendulum per step. Returns the
  // number of frames accepted (all or none).
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
  void show_front();
  double seconds_since_start(std::uint64_t ns) const;

  mutable std::mutex mutex_;
  std::size_t frame_capacity_;
  std::size_t spans_per_track_;
  std::optional<AnimationRun> run_;
  std::deque<Frame> frames_;  // front: the frame shown
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
