#include "monitor/core/step_timings.hpp"

#include <algorithm>

namespace kausal {

StepTimings::Track& StepTimings::track(const std::string& name, ComponentRole role) {
  for (Track& t : tracks_)
    if (t.name == name) return t;
  tracks_.push_back(Track{name, role, 0, {}});
  return tracks_.back();
}

// The state gathered so far becomes its sample (added to what an earlier piece left).
void StepTimings::flush(Track& t) {
  if (t.state == SpanTag::no_step) return;
  if (t.samples.empty()) t.base = t.state;
  if (t.state >= t.base) {
    const std::size_t k = t.state - t.base;
    if (k >= t.samples.size()) t.samples.resize(k + 1);
    t.samples[k].extent_s += static_cast<float>(t.end_ns - t.begin_ns) * 1e-9f;
    t.samples[k].busy_s += static_cast<float>(t.busy_ns) * 1e-9f;
  }
  t.state = SpanTag::no_step;
}

void StepTimings::add(const std::string& component, ComponentRole role,
                      std::span<const ActivitySpan> spans) {
  if (role != ComponentRole::integrator && role != ComponentRole::monitor) return;
  std::lock_guard lock(mutex_);
  Track& t = track(component, role);
  for (const ActivitySpan& s : spans) {
    // Busy work on a step only: rollback spans are work that was discarded, call spans
    // envelopes around other spans.
    if (!valid_span(s) || s.kind != ActivityKind::busy || s.tag.step == SpanTag::no_step) continue;
    if (s.tag.step != t.state) {
      flush(t);
      t.state = s.tag.step;
      t.begin_ns = s.begin_ns;
      t.busy_ns = 0;
    }
    t.end_ns = std::max(t.end_ns, s.end_ns);
    if (t.end_ns < t.begin_ns) t.end_ns = t.begin_ns;
    t.busy_ns += s.end_ns - s.begin_ns;
  }
}

const StepTimings::Sample* StepTimings::sample(const Track& t, std::uint64_t state) {
  if (state < t.base || state - t.base >= t.samples.size()) return nullptr;
  return &t.samples[state - t.base];
}

std::optional<double> StepTimings::compute_s(std::uint64_t state) const {
  std::lock_guard lock(mutex_);
  double slowest = 0, monitor = 0;
  bool known = false;
  for (Track& t : tracks_) {
    flush(t);
    const Sample* s = sample(t, state);
    if (!s || (s->extent_s == 0 && s->busy_s == 0)) continue;
    known = true;
    if (t.role == ComponentRole::monitor)
      monitor += s->busy_s;
    else
      slowest = std::max(slowest, static_cast<double>(s->extent_s));
  }
  if (!known) return std::nullopt;
  return slowest + monitor;
}

std::vector<ComponentTiming> StepTimings::timings() const {
  std::lock_guard lock(mutex_);
  std::vector<ComponentTiming> out;
  for (Track& t : tracks_) {
    flush(t);
    std::vector<double> extent, busy;
    for (const Sample& s : t.samples) {
      if (s.extent_s == 0 && s.busy_s == 0) continue;  // a state it did not work on
      extent.push_back(s.extent_s);
      busy.push_back(s.busy_s);
    }
    out.push_back({t.name, spread_of(std::move(extent)), spread_of(std::move(busy))});
  }
  return out;
}

}  // namespace kausal
