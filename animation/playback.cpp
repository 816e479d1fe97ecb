#include "animation/playback.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"
#include "common/thin_out.hpp"
#include "common/view_pace.hpp"

namespace kausal {
namespace {

bool all_finite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

bool valid_geometry(const std::vector<PendulumGeometry>& pendulums) {
  return std::all_of(pendulums.begin(), pendulums.end(), [](const PendulumGeometry& p) {
    return std::isfinite(p.pivot_x) && std::isfinite(p.length) && std::isfinite(p.radius) &&
           p.length > 0 && p.radius > 0;
  });
}

bool valid_plots(const PlotSpec& plot) {
  if (plot.plots.empty() || plot.series.empty() || plot.plots.size() > Playback::max_plots ||
      plot.series.size() > Playback::max_series)
    return false;
  return std::all_of(plot.series.begin(), plot.series.end(),
                     [&](const PlotSeriesInfo& s) { return s.plot < plot.plots.size(); });
}

bool valid_setup(const AnimationRun& run) {
  if (!std::isfinite(run.t0) || !std::isfinite(run.h) || run.h <= 0 || run.frame_every == 0 ||
      run.frame_every > std::max<std::uint64_t>(run.steps, 1))
    return false;
  const bool plots = !run.plot.plots.empty() || !run.plot.series.empty();
  if (run.pendulums.empty() == !plots) return false;  // exactly one view
  return plots ? valid_plots(run.plot) : valid_geometry(run.pendulums);
}

}  // namespace

const char* to_string(PlaybackMode mode) {
  return mode == PlaybackMode::follow ? "live" : "replay";
}

std::size_t AnimationRun::frame_size() const {
  return plot_view() ? plot.series.size() : 2 * pendulums.size();
}

std::size_t AnimationRun::units() const {
  return plot_view() ? plot.plots.size() : pendulums.size();
}

std::uint64_t AnimationRun::next_frame_step(std::uint64_t step) const {
  return step >= steps || steps - step <= frame_every ? steps : step + frame_every;
}

std::string AnimationRun::horizon_name() const {
  if (plot_view()) return "final";
  return label.rfind("optimistic", 0) == 0 ? "GVT" : "guarantee";
}

double AnimationRun::playback_rate() const {
  return view_playback_rate(plot_view(), static_cast<double>(steps) * h);
}

Playback::Playback(std::size_t frame_capacity, std::size_t spans_per_track, std::size_t plot_points)
    : frame_capacity_(std::max<std::size_t>(frame_capacity, 1)),
      spans_per_track_(std::max<std::size_t>(spans_per_track, 1)),
      plot_points_(plot_points) {}

bool Playback::begin_run(AnimationRun run) {
  std::lock_guard lock(mutex_);
  if (!valid_setup(run)) {
    ++counters_.rejected;
    return false;
  }
  const std::uint64_t rejected = counters_.rejected;
  frames_.clear();
  newest_step_.reset();
  horizons_.clear();
  rollbacks_.clear();
  marks_.clear();
  mode_ = run.paced ? PlaybackMode::follow : PlaybackMode::replay;
  paused_ = false;
  if (run.paced)
    lateness_.emplace(run.steps);
  else
    lateness_.reset();
  noted_step_.reset();
  history_ = PlotHistory(run.plot_view() ? run.plot.series.size() : 0, plot_points_);
  tracks_.clear();
  for (const auto& name : run.components)
    if (tracks_.size() < max_tracks) tracks_.push_back({name, {}});
  counters_ = {};
  counters_.rejected = rejected;  // bad calls stay counted across runs
  end_status_.clear();
  newest_s_ = 0;
  position_t_ = run.t0;
  run_ = std::move(run);
  return true;
}

bool Playback::valid_frames(std::uint64_t first_step, std::span<const double> states,
                            const FrameTimes& times) const {
  if (!run_) return false;
  const std::size_t size = run_->frame_size();
  if (states.empty() || states.size() % size != 0 || !all_finite(states)) return false;
  const std::uint64_t count = states.size() / size;
  const auto none_or_one_each = [&](std::size_t n) { return n == 0 || n == count; };
  if (!none_or_one_each(times.committed_ns.size()) || !none_or_one_each(times.lateness_s.size()))
    return false;
  if (std::any_of(times.lateness_s.begin(), times.lateness_s.end(),
                  [](double v) { return std::isinf(v); }))
    return false;
  const std::uint64_t every = run_->frame_every;
  if (first_step > run_->steps || (first_step % every != 0 && first_step != run_->steps))
    return false;
  // Frames after the first one: up to the last step, which is a frame's step too.
  const std::uint64_t remaining = run_->steps - first_step;
  if (count - 1 > remaining / every + (remaining % every != 0 ? 1 : 0)) return false;
  return !newest_step_ || first_step > *newest_step_;  // late or repeated frames are stale
}

std::size_t Playback::add_frames(std::uint64_t first_step, std::span<const double> states,
                                 const FrameTimes& times, std::uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (!valid_frames(first_step, states, times)) {
    const std::size_t size = run_ ? run_->frame_size() : 0;
    counters_.rejected += size && states.size() >= size ? states.size() / size : 1;
    return 0;
  }
  const std::size_t size = run_->frame_size();
  const std::size_t count = states.size() / size;
  std::uint64_t step = first_step;
  for (std::size_t k = 0; k < count; ++k, step = run_->next_frame_step(step)) {
    Frame f;
    f.step = step;
    f.t = run_->t0 + static_cast<double>(step) * run_->h;
    f.states.assign(states.begin() + k * size, states.begin() + (k + 1) * size);
    f.committed_s =
        seconds_since_start(times.committed_ns.empty() ? now_ns : times.committed_ns[k]);
    if (!times.lateness_s.empty()) f.lateness_s = times.lateness_s[k];
    f.overruns = times.overruns;
    newest_s_ = std::max(newest_s_, f.committed_s);
    push_frame(std::move(f));
    newest_step_ = step;
  }
  counters_.received += count;
  if (mode_ == PlaybackMode::follow) show_newest();
  return count;
}

void Playback::push_frame(Frame frame) {
  if (frames_.empty()) position_t_ = frame.t;
  frames_.push_back(std::move(frame));
  if (frames_.size() > frame_capacity_) {
    pop_front();
    ++counters_.dropped;
    position_t_ = std::max(position_t_, frames_.front().t);
  }
}

void Playback::pop_front() {
  note_shown(frames_.front());  // a frame passed unseen (a full buffer, a jump) counts too
  if (run_ && run_->plot_view()) history_.add(frames_.front().t, frames_.front().states);
  frames_.pop_front();
}

void Playback::note_shown(const Frame& frame) {
  if (noted_step_ && frame.step <= *noted_step_) return;
  noted_step_ = frame.step;
  if (lateness_) lateness_->add(frame.step, frame.lateness_s, frame.overruns);
}

bool Playback::set_horizon(std::uint64_t step, std::vector<std::uint64_t> reached,
                           std::uint64_t at_ns) {
  std::lock_guard lock(mutex_);
  if (!run_ || reached.size() != run_->units()) {
    ++counters_.rejected;
    return false;
  }
  const double at = seconds_since_start(at_ns);
  // Times only grow on one clock; one that does not is taken as arriving now-ish (after the
  // newest), never reordering what was shown.
  const double at_s = horizons_.empty() ? at : std::max(at, horizons_.back().at_s);
  horizons_.push_back(Horizon{step, std::move(reached), at_s});
  newest_s_ = std::max(newest_s_, at_s);
  // Thinned, not cut: a long replay still finds a horizon near each moment, and the first
  // one (of the moment shown) stays.
  if (horizons_.size() > max_horizons) thin_out(horizons_);
  return true;
}

bool Playback::rolled_back(std::size_t pendulum, std::uint64_t step, std::uint64_t at_ns) {
  std::lock_guard lock(mutex_);
  if (!run_ || pendulum >= run_->units() || step > run_->steps) {
    ++counters_.rejected;
    return false;
  }
  rollbacks_.push_back({pendulum, seconds_since_start(at_ns), std::nullopt});
  newest_s_ = std::max(newest_s_, rollbacks_.back().at_s);
  if (rollbacks_.size() > max_rollbacks) rollbacks_.pop_front();
  return true;
}

std::size_t Playback::add_marks(const std::vector<PlotMark>& marks) {
  std::lock_guard lock(mutex_);
  std::size_t accepted = 0;
  for (const PlotMark& m : marks) {
    if (!run_ || !run_->plot_view() || !std::isfinite(m.t)) {
      ++counters_.rejected;
      continue;
    }
    marks_.push_back({m.t, m.label.substr(0, max_mark_label)});
    if (marks_.size() > max_marks) marks_.pop_front();
    ++accepted;
  }
  return accepted;
}

Playback::LiveTrack* Playback::track(const std::string& name) {
  for (auto& t : tracks_)
    if (t.name == name) return &t;
  if (tracks_.size() >= max_tracks) return nullptr;
  return &tracks_.emplace_back(LiveTrack{name, {}});
}

std::size_t Playback::add_spans(const std::string& component,
                                const std::vector<ActivitySpan>& spans) {
  std::lock_guard lock(mutex_);
  LiveTrack* t = run_ ? track(component) : nullptr;
  if (!t) {
    counters_.rejected += spans.size();
    return 0;
  }
  std::size_t accepted = 0;
  for (const auto& s : spans) {
    if (!valid_span(s)) {
      ++counters_.rejected;
      continue;
    }
    if (s.kind == ActivityKind::call) continue;  // a request's envelope: no strip shows it
    t->spans.push_back(s);
    newest_s_ = std::max(newest_s_, seconds_since_start(s.end_ns));
    ++accepted;
    if (t->spans.size() > spans_per_track_) {
      t->spans.pop_front();
      ++counters_.spans_dropped;
    }
  }
  return accepted;
}

void Playback::end_run(const std::string& status, double wall_s, std::uint64_t monitor_dropped) {
  std::lock_guard lock(mutex_);
  end_status_ = status.empty() ? "ended" : status;
  end_wall_s_ = std::isfinite(wall_s) && wall_s >= 0 ? wall_s : 0;
  counters_.monitor_dropped = monitor_dropped;
}

void Playback::set_paused(bool paused) {
  std::lock_guard lock(mutex_);
  paused_ = paused;
  if (!paused_ || mode_ != PlaybackMode::follow) return;
  mode_ = PlaybackMode::replay;  // from the frame shown: the moment stands still
  if (!frames_.empty()) position_t_ = frames_.front().t;
}

void Playback::step_once() {
  std::lock_guard lock(mutex_);
  paused_ = true;
  mode_ = PlaybackMode::replay;
  if (frames_.size() > 1) pop_front();
  if (!frames_.empty()) {
    position_t_ = frames_.front().t;
    note_shown(frames_.front());
  }
  catch_up_to_moment(monotonic_ns());
}

void Playback::follow() {
  std::lock_guard lock(mutex_);
  mode_ = PlaybackMode::follow;
  paused_ = false;
  show_newest();
  catch_up_to_moment(monotonic_ns());
}

void Playback::set_speed(double speed) {
  if (!(speed >= 0.1 && speed <= 1.0))
    throw InputError("playback speed must be between 0.1 and 1 (got " + std::to_string(speed) +
                     ")");
  std::lock_guard lock(mutex_);
  speed_ = speed;
}

void Playback::advance(Clock::duration wall) {
  std::lock_guard lock(mutex_);
  if (paused_ || !run_) return;
  const double seconds = std::chrono::duration<double>(wall).count();
  const bool replay = mode_ == PlaybackMode::replay;
  played_s_ += replay ? seconds * speed_ : seconds;
  if (replay && !frames_.empty()) {
    position_t_ += seconds * speed_ * run_->playback_rate();
    show_front();
    // Caught up with a paced run that goes on: from now on it is shown as it happens. (An
    // unpaced run's frames come as fast as it goes: they are played at the chosen speed.)
    if (run_->paced && frames_.size() == 1 && position_t_ >= frames_.front().t &&
        end_status_.empty())
      mode_ = PlaybackMode::follow;
  }
  catch_up_to_moment(monotonic_ns());
}

// Drops the frames the playback clock has passed; waits on the newest one.
void Playback::show_front() {
  while (frames_.size() > 1 && frames_[1].t <= position_t_) pop_front();
  if (frames_.size() == 1) position_t_ = std::min(position_t_, frames_.front().t);
  if (!frames_.empty()) note_shown(frames_.front());
}

void Playback::show_newest() {
  while (frames_.size() > 1) pop_front();
  if (frames_.empty()) return;
  position_t_ = frames_.front().t;
  note_shown(frames_.front());
}

bool Playback::showing_end() const {
  return !end_status_.empty() && (mode_ == PlaybackMode::follow || frames_.size() <= 1);
}

double Playback::moment_s(std::uint64_t now_ns) const {
  if (showing_end()) return std::max(end_wall_s_, newest_s_);
  // A replay shows the commit of its frame; a followed run, now.
  if (mode_ == PlaybackMode::replay && !frames_.empty()) return frames_.front().committed_s;
  return seconds_since_start(now_ns);
}

const Horizon* Playback::horizon_at(double moment) const {
  const Horizon* shown = nullptr;
  for (const Horizon& h : horizons_) {
    if (h.at_s > moment) break;
    shown = &h;
  }
  return shown;
}

void Playback::catch_up_to_moment(std::uint64_t now_ns) {
  const double moment = moment_s(now_ns);
  // Horizons before the one of this moment are never shown again (a replay goes forward).
  while (horizons_.size() > 1 && horizons_[1].at_s <= moment) horizons_.pop_front();
  for (Rollback& r : rollbacks_)
    if (!r.flashed_from && r.at_s <= moment) r.flashed_from = played_s_;
  while (!rollbacks_.empty() && rollbacks_.front().flashed_from &&
         played_s_ - *rollbacks_.front().flashed_from >= flash_s)
    rollbacks_.pop_front();
}

double Playback::seconds_since_start(std::uint64_t ns) const {
  const auto start = run_ ? run_->clock_ns : 0;
  return ns >= start ? static_cast<double>(ns - start) * 1e-9
                     : -static_cast<double>(start - ns) * 1e-9;
}

PlaybackView Playback::view(std::uint64_t now_ns) const {
  std::lock_guard lock(mutex_);
  PlaybackView v;
  v.run = run_;
  v.mode = mode_;
  v.moment_s = moment_s(now_ns);
  if (!frames_.empty()) v.frame = frames_.front();
  if (run_ && run_->plot_view()) {
    v.plot = v.frame ? history_.snapshot(&v.frame->t, v.frame->states) : history_.snapshot();
    // A replay shows a mark once it has got there.
    for (const PlotMark& m : marks_)
      if (v.frame && m.t <= v.frame->t) v.marks.push_back(m);
  }
  if (const Horizon* h = horizon_at(v.moment_s)) v.horizon = *h;
  if (run_) {
    v.flashing.assign(run_->units(), false);
    for (const Rollback& r : rollbacks_)
      if (r.flashed_from && played_s_ - *r.flashed_from < flash_s) v.flashing[r.unit] = true;
  }
  // The strips up to the moment shown.
  for (const auto& t : tracks_) {
    auto& out = v.tracks.emplace_back(ComponentTrack{t.name, "", {}, ""});
    for (const auto& s : t.spans) {
      const double begin = seconds_since_start(s.begin_ns);
      if (begin > v.moment_s) continue;
      out.spans.push_back({begin, std::min(seconds_since_start(s.end_ns), v.moment_s), s.kind});
    }
  }
  v.counters = counters_;
  v.paused = paused_;
  v.speed = speed_;
  v.end_status = end_status_;
  v.end_wall_s = end_wall_s_;
  v.at_end = showing_end();
  if (lateness_) v.lateness = lateness_->view();
  return v;
}

PlaybackCounters Playback::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

bool Playback::paused() const {
  std::lock_guard lock(mutex_);
  return paused_;
}

PlaybackMode Playback::mode() const {
  std::lock_guard lock(mutex_);
  return mode_;
}

std::optional<Frame> Playback::current() const {
  std::lock_guard lock(mutex_);
  if (frames_.empty()) return std::nullopt;
  return frames_.front();
}

std::size_t Playback::buffered() const {
  std::lock_guard lock(mutex_);
  return frames_.size();
}

}  // namespace kausal
