#pragma once
// The intervals a component spent busy or rolling back, on the host's monotonic clock: the
// raw material of the utilisation timelines (trace.json, report.html, the live strips).
// Time outside every busy or rollback span is waiting. Each span names the call it belongs
// to, with the step and epoch it worked on; "call" spans cover a whole request, waits for
// peers included (the envelopes that trace.json's flow arrows start from).
//
// Memory is bounded: a ring of the newest spans. Readers (the monitor's trace collector, the
// live feed) page through it by absolute index while the run goes on; spans they did not read
// in time are overwritten and count as lost.
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kausal {

enum class ActivityKind : std::uint8_t { busy = 0, rollback = 1, call = 2 };
const char* kind_name(ActivityKind kind);  // "busy", "rollback", "call"

// The request a span belongs to (trace.json names its slices after it).
enum class ActivityCall : std::uint8_t {
  unnamed = 0,
  event,        // System: an event (impulse)
  advance,      // Integrator: steps up to a guarantee (conservative)
  run_ahead,    // Integrator: steps taken on its own (integrator/worker.hpp)
  apply_event,  // Integrator: an event handed on to its System
  rollback,     // Integrator: back to a step, later work discarded
  commit,       // Integrator: a new GVT (state list freed before it)
  derivative,   // System: the model API calls (derivative is one Calc)
  output,
  jacobian,
  indicators,
  provide,   // Integrator: an input sample arrives
  outputs,   // Integrator: final states and outputs taken
  grant,     // monitor: a round of guarantees to every Integrator
  sweep,     // monitor: the impact sweep of one step
  route,     // monitor: a partition's final steps recorded, their samples routed
  process,   // event group: a batch of events processed
  schedule,  // Integrator: a hybrid model's events for its event inputs arrive
  crossing,  // Integrator: an event output's crossing located inside the step
  count_
};
const char* call_name(ActivityCall call);  // "derivative", "advance", ... ("busy" for unnamed)

// What a span worked on.
struct SpanTag {
  static constexpr std::uint64_t no_step = std::numeric_limits<std::uint64_t>::max();
  ActivityCall call = ActivityCall::unnamed;
  std::uint64_t step = no_step;  // the step worked on (for a request: the first)
  std::uint32_t epoch = 0;       // optimistic: the rollback epoch of the Integrator
};

struct ActivitySpan {
  std::uint64_t begin_ns = 0;  // CLOCK_MONOTONIC (std::chrono::steady_clock on Linux)
  std::uint64_t end_ns = 0;
  ActivityKind kind = ActivityKind::busy;
  SpanTag tag;
};

// A span as it may arrive over the wire: a known kind and call, no end before its begin.
inline bool valid_span(const ActivitySpan& s) {
  return s.kind <= ActivityKind::call && s.tag.call < ActivityCall::count_ &&
         s.begin_ns <= s.end_ns;
}

// Nanoseconds of the steady clock, the unit of every span.
inline std::uint64_t monotonic_ns(std::chrono::steady_clock::time_point t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}
inline std::uint64_t monotonic_ns() {
  return monotonic_ns(std::chrono::steady_clock::now());
}

// The name of this host, as traces and reports say where a component ran.
std::string local_host_name();

// Spans first, first + 1, ... of a trace; first may lie after the index asked for when the
// spans in between were overwritten before they were read.
struct TracePage {
  std::uint64_t first = 0;
  std::vector<ActivitySpan> spans;
};

// Thread-safe: a component records from its request threads and worker while the trace is
// read (paged) by the monitor or streamed to an animation.
class ActivityTrace {
 public:
  static constexpr std::uint64_t untagged = SpanTag::no_step;
  // A span closer than this to the previous one of the same kind and call is merged into
  // it if both belong to the same step (or one to none): a request would otherwise be
  // several slivers.
  static constexpr std::uint64_t merge_gap_ns = 1000;
  // About 3 MB of spans at most: the ring fills up to this many over a long run and then
  // overwrites its oldest. The monitor reads every component's trace a few times a second,
  // long before a span is overwritten.
  static constexpr std::size_t default_capacity = std::size_t{1} << 16;

  explicit ActivityTrace(std::size_t capacity = default_capacity);

  void record(ActivityKind kind, std::uint64_t begin_ns, std::uint64_t end_ns, SpanTag tag = {});
  // The work of every step after `step` was discarded: busy spans tagged with a later step
  // become rollback spans (walking back from the newest until a span of `step` or earlier).
  void mark_rolled_back_after(std::uint64_t step);

  // A speculative trace (an optimistic Integrator) may still turn spans of steps after its
  // GVT into rollback spans: they are settled, and handed to settled readers, only once
  // settle() passes their step. Other traces settle every span at once.
  void set_speculative();
  void settle(std::uint64_t gvt);

  // Spans from index `first` on (at most max_count). unsettled: also those that may still
  // change (the live view; the last read after a run). A settled read never returns the
  // newest span either: a span recorded a moment later may still be merged into it.
  TracePage read(std::uint64_t first, std::size_t max_count, bool unsettled = true) const;
  // The spans of read(first, max_count) (what is still kept of a finished trace).
  std::vector<ActivitySpan> page(std::uint64_t first, std::size_t max_count) const {
    return read(first, max_count).spans;
  }
  std::uint64_t recorded() const;  // spans recorded so far (the next index)
  std::uint64_t dropped() const;   // spans overwritten so far (read or not)

 private:
  ActivitySpan& at(std::uint64_t index) { return ring_[index % capacity_]; }
  const ActivitySpan& at(std::uint64_t index) const { return ring_[index % capacity_]; }
  std::uint64_t oldest() const { return end_ > capacity_ ? end_ - capacity_ : 0; }
  void advance_settled();

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::vector<ActivitySpan> ring_;    // grows up to capacity_
  std::uint64_t end_ = 0;             // index of the next span
  std::uint64_t settled_ = 0;         // spans before it are final
  mutable std::uint64_t handed_ = 0;  // spans before it were given to a settled reader
  bool speculative_ = false;
  std::uint64_t gvt_ = 0;
};

}  // namespace kausal
