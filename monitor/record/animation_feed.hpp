#pragma once
// The live animation's feed (RunObserver over CORBA): the monitor thread only appends to
// bounded buffers; a sender thread ships them to the Animation by oneway calls a few dozen
// times a second. A slow view makes the buffers overflow (frames dropped and counted), a
// closed one ends the sending (everything after it counted as dropped): neither slows the
// simulation nor changes its result. One feed for every model kind: the setup says which
// view (pendulums or plots) and every how many steps a frame comes. Everything is stamped on
// the monitor's clock as it happens (a frame's commit, a horizon, a rollback), so that the
// view shows each moment whole; a paced run's frames carry their lateness too.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "idl/kausal.hh"
#include "monitor/core/run_observer.hpp"
#include "monitor/sync/step_clock.hpp"

namespace kausal {

class AnimationFeed final : public LiveFeed {
 public:
  static constexpr std::size_t max_pending_frames = 200'000;
  static constexpr std::size_t max_frames_per_call = 2048;
  static constexpr std::chrono::milliseconds period{30};
  static constexpr std::size_t max_horizons_per_call = 256;
  static constexpr std::size_t max_horizon_values = 65536;  // reached entries per batch

  // columns: which of the committed values a frame carries, in order (a plot view shows a
  // few of a partitioned model's states); empty: all of them. clock: a paced run's (the
  // frames' lateness; it outlives the feed), null otherwise.
  AnimationFeed(idl::Animation_ptr view, const idl::AnimationSetup& setup,
                std::vector<std::size_t> columns = {}, const StepClock* clock = nullptr);
  ~AnimationFeed() override;
  AnimationFeed(const AnimationFeed&) = delete;
  AnimationFeed& operator=(const AnimationFeed&) = delete;

  void committed(std::uint64_t step, std::span<const double> values) override;
  void horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) override;
  void rolled_back(std::size_t unit, std::uint64_t step) override;
  void monitor_trace(const ActivityTrace* trace) override;
  // Kept until sent, at most max_pending_marks (the view keeps fewer); more are dropped.
  void marked(double t, const std::string& label) override;
  static constexpr std::size_t max_pending_marks = 4096;

  // Sends what is still pending (frames, the horizon, rollbacks; for at most `drain`), then
  // end_run with the frames that were dropped. Returns that count.
  std::uint64_t finish(const std::string& status, double wall_s,
                       std::chrono::milliseconds drain) override;
  bool view_lost() const override;

 private:
  // Frames that follow each other (every frame_every steps): one `frames` call.
  struct Chunk {
    std::uint64_t first_step = 0;
    std::uint64_t last_step = 0;
    std::size_t frames = 0;
    std::vector<double> states;  // the values of each frame, frame after frame
    std::vector<StepClock::Clock::time_point> committed;  // per frame
  };
  struct Outgoing;
  void run();
  Outgoing take_pending();
  // Sends one batch; false (and the view marked lost) if the view is unreachable.
  bool send(Outgoing& out);
  idl::FrameTimes times_of(const Chunk& c) const;
  // The step of the frame after `step` (the last frame, at the last step, may be closer).
  std::uint64_t next_frame(std::uint64_t step) const;

  idl::Animation_var view_;
  const std::uint64_t frame_every_;
  const std::uint64_t last_step_;
  const std::vector<std::size_t> columns_;
  const StepClock* clock_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Chunk> chunks_;
  std::size_t pending_frames_ = 0;
  std::uint64_t dropped_ = 0;
  // Every horizon since the last batch, oldest first: a replay shows each frame with the
  // horizon of its moment. Beyond max_horizons_per_call (fewer for long chains: at most
  // max_horizon_values reached entries) they are thinned out (common/thin_out.hpp).
  struct PendingHorizon {
    std::uint64_t horizon = 0;
    std::vector<std::uint64_t> reached;
    std::uint64_t at_ns = 0;
  };
  std::vector<PendingHorizon> horizons_;
  struct Rollback {
    std::size_t unit = 0;
    std::uint64_t step = 0;
    std::uint64_t at_ns = 0;
  };
  std::vector<Rollback> rollbacks_;
  std::vector<std::pair<double, std::string>> marks_;
  const ActivityTrace* monitor_trace_ = nullptr;
  std::uint64_t monitor_spans_sent_ = 0;
  bool lost_ = false;
  bool stopping_ = false;
  bool sending_ = false;
  std::thread thread_;
};

}  // namespace kausal
