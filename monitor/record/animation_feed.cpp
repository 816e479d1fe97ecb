#include "monitor/record/animation_feed.hpp"

#include <algorithm>
#include <limits>

#include "common/thin_out.hpp"
#include "idl/convert.hpp"

namespace kausal {

struct AnimationFeed::Outgoing {
  std::deque<Chunk> chunks;
  std::vector<PendingHorizon> horizons;
  std::vector<Rollback> rollbacks;
  std::vector<ActivitySpan> monitor_spans;
  std::vector<std::pair<double, std::string>> marks;

  bool empty() const {
    return chunks.empty() && horizons.empty() && rollbacks.empty() && monitor_spans.empty() &&
           marks.empty();
  }
};

AnimationFeed::AnimationFeed(idl::Animation_ptr view, const idl::AnimationSetup& setup,
                             std::vector<std::size_t> columns, const StepClock* clock)
    : view_(idl::Animation::_duplicate(view)),
      frame_every_(std::max<std::uint64_t>(setup.frame_every, 1)),
      last_step_(setup.steps),
      columns_(std::move(columns)),
      clock_(clock) {
  try {
    view_->begin_run(setup);
  } catch (const CORBA::Exception&) {
    lost_ = true;
  }
  thread_ = std::thread([this] { run(); });
}

AnimationFeed::~AnimationFeed() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void AnimationFeed::committed(std::uint64_t step, std::span<const double> values) {
  const auto now = StepClock::Clock::now();
  std::lock_guard lock(mutex_);
  if (lost_ || pending_frames_ >= max_pending_frames) {
    ++dropped_;
    return;
  }
  // The frame after the chunk's last one continues it.
  if (chunks_.empty() || next_frame(chunks_.back().last_step) != step ||
      chunks_.back().frames >= max_frames_per_call)
    chunks_.push_back({step, step, 0, {}, {}});
  Chunk& c = chunks_.back();
  if (columns_.empty()) {
    c.states.insert(c.states.end(), values.begin(), values.end());
  } else {
    for (std::size_t k : columns_) c.states.push_back(k < values.size() ? values[k] : 0.0);
  }
  c.committed.push_back(now);
  c.last_step = step;
  ++c.frames;
  ++pending_frames_;
}

void AnimationFeed::horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) {
  const std::uint64_t now = monotonic_ns();
  std::lock_guard lock(mutex_);
  horizons_.push_back({horizon, {reached.begin(), reached.end()}, now});
  const std::size_t most = std::clamp<std::size_t>(
      max_horizon_values / std::max<std::size_t>(reached.size(), 1), 2, max_horizons_per_call);
  if (horizons_.size() > most) thin_out(horizons_);  // too many for one batch
}

void AnimationFeed::rolled_back(std::size_t unit, std::uint64_t step) {
  const std::uint64_t now = monotonic_ns();
  std::lock_guard lock(mutex_);
  if (rollbacks_.size() < 10'000) rollbacks_.push_back({unit, step, now});
}

void AnimationFeed::marked(double t, const std::string& label) {
  std::lock_guard lock(mutex_);
  if (marks_.size() < max_pending_marks) marks_.emplace_back(t, label);
}

void AnimationFeed::monitor_trace(const ActivityTrace* trace) {
  std::lock_guard lock(mutex_);  // the sender reads the trace under this lock only
  monitor_trace_ = trace;
  monitor_spans_sent_ = trace ? trace->recorded() : 0;
}

bool AnimationFeed::view_lost() const {
  std::lock_guard lock(mutex_);
  return lost_;
}

AnimationFeed::Outgoing AnimationFeed::take_pending() {
  Outgoing out;
  out.chunks.swap(chunks_);
  pending_frames_ = 0;
  out.horizons.swap(horizons_);
  out.rollbacks.swap(rollbacks_);
  out.marks.swap(marks_);
  if (monitor_trace_) {
    TracePage page = monitor_trace_->read(monitor_spans_sent_, 8192);
    monitor_spans_sent_ = page.first + page.spans.size();
    out.monitor_spans = std::move(page.spans);
  }
  return out;
}

std::uint64_t AnimationFeed::next_frame(std::uint64_t step) const {
  return step >= last_step_ || last_step_ - step <= frame_every_ ? last_step_ : step + frame_every_;
}

// A frame's commit on the monitor's clock, and in a paced run its lateness (NaN while its
// due time is not known) and the overruns so far.
idl::FrameTimes AnimationFeed::times_of(const Chunk& c) const {
  idl::FrameTimes times;
  const auto n = static_cast<CORBA::ULong>(c.committed.size());
  times.committed_ns.length(n);
  if (clock_) times.lateness_s.length(n);
  std::uint64_t step = c.first_step;
  for (CORBA::ULong k = 0; k < n; ++k) {
    times.committed_ns[k] = monotonic_ns(c.committed[k]);
    if (clock_)
      times.lateness_s[k] = clock_->lateness_s(step, c.committed[k])
                                .value_or(std::numeric_limits<double>::quiet_NaN());
    step = next_frame(step);
  }
  times.overruns = clock_ ? clock_->overruns() : 0;
  return times;
}

bool AnimationFeed::send(Outgoing& out) {
  try {
    for (const Chunk& c : out.chunks) view_->frames(c.first_step, to_seq(c.states), times_of(c));
    out.chunks.clear();
    for (const Rollback& r : out.rollbacks)
      view_->rolled_back(static_cast<CORBA::ULong>(r.unit), r.step, r.at_ns);
    for (const PendingHorizon& h : out.horizons) {
      idl::StepSeq reached;
      reached.length(static_cast<CORBA::ULong>(h.reached.size()));
      for (std::size_t i = 0; i < h.reached.size(); ++i)
        reached[static_cast<CORBA::ULong>(i)] = h.reached[i];
      view_->horizon(h.horizon, reached, h.at_ns);
    }
    if (!out.monitor_spans.empty()) view_->activity("monitor", to_idl(out.monitor_spans));
    if (!out.marks.empty()) {
      idl::TimeMarkSeq marks;
      marks.length(static_cast<CORBA::ULong>(out.marks.size()));
      for (CORBA::ULong k = 0; k < marks.length(); ++k) {
        marks[k].t = out.marks[k].first;
        marks[k].label = out.marks[k].second.c_str();
      }
      view_->marks(marks);
    }
    return true;
  } catch (const CORBA::Exception&) {
    return false;
  }
}

void AnimationFeed::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, period, [&] { return stopping_; });
    if (stopping_ || lost_) return;
    Outgoing out = take_pending();
    if (out.empty()) continue;
    sending_ = true;
    lock.unlock();
    const bool alive = send(out);
    lock.lock();
    sending_ = false;
    wake_.notify_all();
    if (!alive) {
      lost_ = true;
      for (const Chunk& c : out.chunks) dropped_ += c.frames;  // never arrived
      for (const Chunk& c : chunks_) dropped_ += c.frames;
      chunks_.clear();
      pending_frames_ = 0;
      return;
    }
  }
}

std::uint64_t AnimationFeed::finish(const std::string& status, double wall_s,
                                    std::chrono::milliseconds drain) {
  std::unique_lock lock(mutex_);
  // Everything pending goes first: frames, and the last horizon (the run's end on the bar).
  wake_.wait_for(lock, drain, [&] {
    return lost_ || (chunks_.empty() && horizons_.empty() && rollbacks_.empty() && marks_.empty() &&
                     !sending_);
  });
  dropped_ += pending_frames_;
  chunks_.clear();
  pending_frames_ = 0;
  const std::uint64_t dropped = dropped_;
  if (lost_) return dropped;
  lock.unlock();  // a oneway call can block on a full socket: never under the lock
  try {
    view_->end_run(status.c_str(), wall_s, dropped);
  } catch (const CORBA::Exception&) {
    lock.lock();
    lost_ = true;
  }
  return dropped;
}

}  // namespace kausal
