#include "system/activity_trace.hpp"

#include <algorithm>

namespace kausal {

void ActivityTrace::record(ActivityKind kind, std::uint64_t begin_ns, std::uint64_t end_ns,
                           std::uint64_t step) {
  if (end_ns < begin_ns) end_ns = begin_ns;
  std::lock_guard lock(mutex_);
  if (!entries_.empty()) {
    Entry& last = entries_.back();
    // An untagged piece (request overhead around a step) joins the step next to it.
    const bool same_work = last.step == step || last.step == untagged || step == untagged;
    if (last.span.kind == kind && same_work && begin_ns >= last.span.end_ns &&
        begin_ns - last.span.end_ns < merge_gap_ns) {
      last.span.end_ns = end_ns;
      if (last.step == untagged) last.step = step;
      return;
    }
  }
  if (entries_.size() >= capacity_) {
    ++dropped_;
    return;
  }
  entries_.push_back({{begin_ns, end_ns, kind}, step});
}

void ActivityTrace::mark_rolled_back_after(std::uint64_t step) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->step == untagged) continue;
    if (it->step <= step && it->span.kind == ActivityKind::busy) return;
    if (it->step > step) it->span.kind = ActivityKind::rollback;
  }
}

std::vector<ActivitySpan> ActivityTrace::page(std::uint64_t first, std::size_t max_count) const {
  std::lock_guard lock(mutex_);
  std::vector<ActivitySpan> out;
  if (first >= entries_.size()) return out;
  const std::size_t n = std::min<std::size_t>(max_count, entries_.size() - first);
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) out.push_back(entries_[first + k].span);
  return out;
}

std::uint64_t ActivityTrace::recorded() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::uint64_t ActivityTrace::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace kausal
