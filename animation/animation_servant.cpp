#include "animation/animation_servant.hpp"

#include <cstring>

#include <iostream>

namespace kausal {

AnimationRun from_idl(const idl::AnimationSetup& setup) {
  AnimationRun run;
  run.scenario = setup.scenario.in();
  run.label = setup.label.in();
  run.t0 = setup.t0;
  run.h = setup.h;
  run.steps = setup.steps;
  for (CORBA::ULong i = 0; i < setup.pendulums.length(); ++i) {
    const auto& p = setup.pendulums[i];
    run.pendulums.push_back({p.pivot_x, p.length, p.radius});
  }
  for (CORBA::ULong i = 0; i < setup.plots.length(); ++i)
    run.plot.plots.emplace_back(setup.plots[i].in());
  for (CORBA::ULong i = 0; i < setup.series.length(); ++i)
    run.plot.series.push_back({setup.series[i].name.in(), setup.series[i].plot});
  run.frame_every = setup.frame_every;
  for (CORBA::ULong i = 0; i < setup.components.length(); ++i)
    run.components.emplace_back(setup.components[i].in());
  run.clock_ns = setup.clock_ns;
  run.paced = setup.paced;
  return run;
}

namespace {

FrameTimes from_idl(const idl::FrameTimes& times) {
  FrameTimes out;
  out.committed_ns.assign(times.committed_ns.get_buffer(),
                          times.committed_ns.get_buffer() + times.committed_ns.length());
  out.lateness_s.assign(times.lateness_s.get_buffer(),
                        times.lateness_s.get_buffer() + times.lateness_s.length());
  out.overruns = times.overruns;
  return out;
}

}  // namespace

AnimationServant::AnimationServant(const std::string& name, OrbRuntime& orb, Playback& playback)
    : ComponentServant(name, "animation", orb), playback_(playback) {}

template <typename F>
void AnimationServant::handle(const char* operation, F&& f) {
  const auto begin = ActivityClock::Clock::now();
  try {
    f();
  } catch (const std::exception& e) {
    std::cerr << name() << ": " << operation << " dropped: " << e.what() << '\n';
  }
  std::lock_guard lock(clock_mutex_);
  clock_.count_request();
  clock_.add(ActivityKind::busy, begin, ActivityClock::Clock::now());
}

void AnimationServant::begin_run(const idl::AnimationSetup& setup) {
  handle("begin_run", [&] {
    if (!playback_.begin_run(from_idl(setup)))
      std::cerr << name()
                << ": begin_run refused: no view or two, a bad geometry, plot, "
                   "step or frame interval\n";
  });
}

void AnimationServant::frames(CORBA::ULongLong first_step, const idl::DoubleSeq& states,
                              const idl::FrameTimes& times) {
  handle("frames", [&] {
    playback_.add_frames(first_step, std::span<const double>(states.get_buffer(), states.length()),
                         from_idl(times));
  });
}

void AnimationServant::horizon(CORBA::ULongLong guarantee_or_gvt, const idl::StepSeq& reached,
                               CORBA::ULongLong at_ns) {
  handle("horizon", [&] {
    playback_.set_horizon(guarantee_or_gvt,
                          {reached.get_buffer(), reached.get_buffer() + reached.length()}, at_ns);
  });
}

void AnimationServant::rolled_back(CORBA::ULong pendulum, CORBA::ULongLong step,
                                   CORBA::ULongLong at_ns) {
  handle("rolled_back", [&] { playback_.rolled_back(pendulum, step, at_ns); });
}

void AnimationServant::marks(const idl::TimeMarkSeq& marks) {
  handle("marks", [&] {
    // Only the newest are kept: only they are taken, each label cut to its limit unread.
    const CORBA::ULong n = marks.length(), keep = static_cast<CORBA::ULong>(Playback::max_marks);
    std::vector<PlotMark> taken;
    for (CORBA::ULong k = n > keep ? n - keep : 0; k < n; ++k) {
      const char* label = marks[k].label.in();
      taken.push_back({marks[k].t, std::string(label, strnlen(label, Playback::max_mark_label))});
    }
    playback_.add_marks(taken);
  });
}

void AnimationServant::activity(const char* component, const idl::ActivitySpanSeq& spans) {
  handle("activity", [&] { playback_.add_spans(component, kausal::from_idl(spans)); });
}

void AnimationServant::end_run(const char* status, CORBA::Double wall_s,
                               CORBA::ULongLong dropped_frames) {
  handle("end_run", [&] { playback_.end_run(status, wall_s, dropped_frames); });
}

ActivityTotals AnimationServant::totals() {
  std::lock_guard lock(clock_mutex_);
  return clock_.totals();
}

}  // namespace kausal
