#pragma once
// The Animation servant: the monitor's oneway feed into Playback. It runs on the ORB's
// threads and never touches a widget; the window reads Playback on the Qt thread.
#include <atomic>
#include <mutex>

#include "animation/playback.hpp"
#include "common/activity_clock.hpp"
#include "idl/component_servant.hpp"

namespace kausal {

AnimationRun from_idl(const idl::AnimationSetup& setup);

class AnimationServant final : public ComponentServant<POA_kausal::idl::Animation> {
 public:
  // `playback` must outlive the servant (it is destroyed with the ORB, before playback).
  AnimationServant(const std::string& name, OrbRuntime& orb, Playback& playback);
  ~AnimationServant() override { stop_feed(); }

  void begin_run(const idl::AnimationSetup& setup) override;
  void frames(CORBA::ULongLong first_step, const idl::DoubleSeq& states,
              const idl::FrameTimes& times) override;
  void horizon(CORBA::ULongLong guarantee_or_gvt, const idl::StepSeq& reached,
               CORBA::ULongLong at_ns) override;
  void rolled_back(CORBA::ULong pendulum, CORBA::ULongLong step, CORBA::ULongLong at_ns) override;
  void activity(const char* component, const idl::ActivitySpanSeq& spans) override;
  void marks(const idl::TimeMarkSeq& marks) override;
  void end_run(const char* status, CORBA::Double wall_s, CORBA::ULongLong dropped_frames) override;
  // The window polls this and closes (the process then exits 0): the ORB is not run on the
  // Qt thread, so shutting it down from here would leave the window open.
  void shutdown() override { shutdown_requested_ = true; }

  bool shutdown_requested() const { return shutdown_requested_; }

 protected:
  ActivityTotals totals() override;
  const ActivityTrace& activity_trace() override { return clock_.trace(); }

 private:
  // Runs one feed call as busy time. Oneway calls have nobody to report to: a failure is
  // written to stderr and the call is dropped.
  template <typename F>
  void handle(const char* operation, F&& f);

  Playback& playback_;
  std::atomic<bool> shutdown_requested_{false};
  std::mutex clock_mutex_;
  ActivityClock clock_;
};

}  // namespace kausal
