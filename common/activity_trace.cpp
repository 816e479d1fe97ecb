#include "common/activity_trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>

namespace kausal {

std::string local_host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

const char* kind_name(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::busy:
      return "busy";
    case ActivityKind::rollback:
      return "rollback";
    case ActivityKind::call:
      return "call";
  }
  return "busy";
}

const char* call_name(ActivityCall call) {
  static constexpr std::array<const char*, static_cast<std::size_t>(ActivityCall::count_)> names{
      "busy",       "event",  "advance",  "run_ahead",  "apply_event", "rollback", "commit",
      "derivative", "output", "jacobian", "indicators", "provide",     "outputs",  "grant",
      "sweep",      "route",  "process",  "schedule",   "crossing"};
  const auto k = static_cast<std::size_t>(call);
  return k < names.size() ? names[k] : "busy";
}

ActivityTrace::ActivityTrace(std::size_t capacity)
    : capacity_(std::max<std::size_t>(capacity, 2)) {}

void ActivityTrace::record(ActivityKind kind, std::uint64_t begin_ns, std::uint64_t end_ns,
                           SpanTag tag) {
  if (end_ns < begin_ns) end_ns = begin_ns;
  std::lock_guard lock(mutex_);
  if (end_ > 0) {  // settled readers are never given the newest span: it may grow
    ActivitySpan& last = at(end_ - 1);
    // An untagged piece (request overhead around a step) joins the step next to it.
    const bool same_work =
        last.tag.call == tag.call && last.tag.epoch == tag.epoch &&
        (last.tag.step == tag.step || last.tag.step == untagged || tag.step == untagged);
    if (kind != ActivityKind::call && last.kind == kind && same_work && begin_ns >= last.end_ns &&
        begin_ns - last.end_ns < merge_gap_ns) {
      last.end_ns = end_ns;
      if (last.tag.step == untagged) last.tag.step = tag.step;
      return;
    }
  }
  const ActivitySpan span{begin_ns, end_ns, kind, tag};
  if (ring_.size() < capacity_)
    ring_.push_back(span);
  else
    at(end_) = span;
  ++end_;
  settled_ = std::max(settled_, oldest());
  advance_settled();
}

void ActivityTrace::advance_settled() {
  while (settled_ < end_) {
    const ActivitySpan& s = at(settled_);
    if (speculative_ && s.tag.step != untagged && s.tag.step > gvt_) return;
    ++settled_;
  }
}

void ActivityTrace::set_speculative() {
  std::lock_guard lock(mutex_);
  speculative_ = true;
}

void ActivityTrace::settle(std::uint64_t gvt) {
  std::lock_guard lock(mutex_);
  gvt_ = std::max(gvt_, gvt);
  advance_settled();
}

void ActivityTrace::mark_rolled_back_after(std::uint64_t step) {
  std::lock_guard lock(mutex_);
  // Spans a settled reader has been given are final (for speculative traces that is never
  // the case for spans after the GVT).
  for (std::uint64_t k = end_; k > std::max(oldest(), handed_); --k) {
    ActivitySpan& s = at(k - 1);
    if (s.tag.step == untagged || s.kind == ActivityKind::call) continue;
    if (s.tag.step <= step && s.kind == ActivityKind::busy) return;
    if (s.tag.step > step) s.kind = ActivityKind::rollback;
  }
}

TracePage ActivityTrace::read(std::uint64_t first, std::size_t max_count, bool unsettled) const {
  std::lock_guard lock(mutex_);
  TracePage out;
  out.first = std::max(first, oldest());
  const std::uint64_t limit = unsettled ? end_ : std::min(settled_, end_ ? end_ - 1 : 0);
  if (out.first >= limit) return out;
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(max_count, limit - out.first));
  out.spans.reserve(n);
  for (std::size_t k = 0; k < n; ++k) out.spans.push_back(at(out.first + k));
  if (!unsettled) handed_ = std::max(handed_, out.first + n);
  return out;
}

std::uint64_t ActivityTrace::recorded() const {
  std::lock_guard lock(mutex_);
  return end_;
}

std::uint64_t ActivityTrace::dropped() const {
  std::lock_guard lock(mutex_);
  return oldest();
}

}  // namespace kausal
