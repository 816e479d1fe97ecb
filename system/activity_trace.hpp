#pragma once
// The intervals a component spent busy or rolling back, on the host's monotonic clock: the
// raw material of the utilisation timelines (trace.json, report.html, the live strips).
// Time outside every span is waiting.
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

namespace kausal {

enum class ActivityKind : std::uint8_t { busy = 0, rollback = 1 };

struct ActivitySpan {
  std::uint64_t begin_ns = 0;  // CLOCK_MONOTONIC (std::chrono::steady_clock on Linux)
  std::uint64_t end_ns = 0;
  ActivityKind kind = ActivityKind::busy;
};

// Nanoseconds of the steady clock, the unit of every span.
inline std::uint64_t monotonic_ns(std::chrono::steady_clock::time_point t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}
inline std::uint64_t monotonic_ns() {
  return monotonic_ns(std::chrono::steady_clock::now());
}

// Thread-safe: a component records from its request threads and worker while the trace is
// read (paged) by the monitor or streamed to an animation.
class ActivityTrace {
 public:
  static constexpr std::uint64_t untagged = std::numeric_limits<std::uint64_t>::max();
  // A span closer than this to the previous one of the same kind is merged into it if both
  // belong to the same step (or one to none): a request would otherwise be several slivers.
  static constexpr std::uint64_t merge_gap_ns = 1000;
  // About 50 MB of spans; later ones are counted as dropped, never kept.
  static constexpr std::size_t default_capacity = std::size_t{1} << 21;

  explicit ActivityTrace(std::size_t capacity = default_capacity) : capacity_(capacity) {}

  // `step` tags the work of one Integrator step, so that a rollback can find it.
  void record(ActivityKind kind, std::uint64_t begin_ns, std::uint64_t end_ns,
              std::uint64_t step = untagged);
  // The work of every step after `step` was discarded: busy spans tagged with a later step
  // become rollback spans (walking back from the newest until a span of `step` or earlier).
  void mark_rolled_back_after(std::uint64_t step);

  // Spans first, first + 1, ... (at most max_count).
  std::vector<ActivitySpan> page(std::uint64_t first, std::size_t max_count) const;
  std::uint64_t recorded() const;
  std::uint64_t dropped() const;

 private:
  struct Entry {
    ActivitySpan span;
    std::uint64_t step;
  };
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::vector<Entry> entries_;
  std::uint64_t dropped_ = 0;
};

}  // namespace kausal
