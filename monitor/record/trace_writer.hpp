#pragma once
// trace.json: the run's activity in Chrome trace-event format (opens in Perfetto and
// chrome://tracing), written while the run goes on (docs/architecture.md, "Traces").
//
// One track (thread) per component, named after it. Slices ("ph": "X") are named after the
// call they belong to (Calc, advance, run_ahead, rollback, apply_event, commit, grant,
// sweep, ...); "cat" says what the time was: "busy", "rollback", or "call" (a whole
// request, its waits for peers included: the busy pieces of an Integrator's advance sit
// inside it, the gaps between them are its waits for its System). args carry the step and
// the epoch where the component knows them. Flow arrows ("s"/"f") lead from the caller's
// slice to the callee's: monitor -> Integrator (grant -> advance, sweep -> rollback and
// apply_event, commit -> commit) and Integrator -> System (the request -> Calc, event).
//
// Counters ("ph": "C") graph values a component reported over time: an event group's
// counts and virtual times (docs/events.md, "Watching a run").
//
// Timestamps are microseconds since the trace's origin: the moment the components were set
// up, before the first step. Nothing earlier is written: a span that began before it (or
// that a remote host's clock offset, known only to about the round trip, puts before it) is
// clamped to 0 and counted. Memory and size are bounded: the monitor pages every component
// a few times a second (TraceCollector) and writes at most `limit` events.
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "monitor/core/run_observer.hpp"
#include "monitor/core/run_result.hpp"
#include "monitor/core/step_timings.hpp"
#include "monitor/core/trace_source.hpp"

namespace kausal {

struct TraceOptions {
  TraceMode mode = TraceMode::full;
  // Events (slices and flow ends) trace.json may hold; later spans are counted, not
  // written. About 110 bytes each: the default bounds a trace near 110 MB.
  std::uint64_t limit = 1'000'000;
  // coarse: each component's busy and rollback time per bin of this width becomes one slice
  // (its length the time spent, named after the call that took most of it).
  static constexpr std::uint64_t coarse_bin_ns = 10'000'000;
};

// One line for the summary: the mode, the events written, and why spans are missing.
std::string describe_trace(const TraceStats& stats);

class TraceFile {
 public:
  // Opens `file` (InputError if it cannot) with `origin_ns` (default: the monitor's clock
  // now) as time 0; mode off writes a trace with tracks but no slices.
  TraceFile(const std::filesystem::path& file, const TraceOptions& options,
            std::optional<std::uint64_t> origin_ns = std::nullopt);
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  std::uint64_t origin_ns() const { return origin_ns_; }
  // The track of a component, created (with its metadata) on first use.
  int track(const std::string& name, ComponentRole role, const std::string& host = "",
            long pid = 0);
  // Spans of a track, recorded on a clock `clock_offset_ns` ahead of the monitor's.
  void write(int tid, std::span<const ActivitySpan> spans, std::int64_t clock_offset_ns = 0);
  // Paced runs: every span written (or not, past the limit or with the trace off) is also
  // handed to `work`, which must outlive the file.
  void tap(StepTimings* work) { step_timings_ = work; }
  // Spans of a track that were overwritten before they could be read.
  void lost(int tid, std::uint64_t n);
  // Writes the spans the result still carries for components never streamed (in-process
  // runs), the run's description and what the trace holds; closes the file. Sets every
  // component's trace counts in `result` and returns the totals. InputError if the file
  // cannot be written.
  TraceStats finish(RunResult& result);

 private:
  struct Bin {  // coarse: the time of one kind in the current bin
    std::uint64_t ns = 0;
    std::map<ActivityCall, std::uint64_t> by_call;
    std::uint64_t calls = 0;
  };
  struct Track {
    std::string name;
    ComponentRole role = ComponentRole::monitor;
    std::string pair;
    int tid = 0;
    bool streamed = false;  // its spans come from a TraceCollector, not from the result
    std::uint64_t slices = 0, not_written = 0, lost = 0;
    std::uint64_t bin = 0;  // coarse: index of the bin being filled
    Bin busy, rollback;
  };
  bool room_for(std::uint64_t events);
  void write_slice(Track& t, std::uint64_t begin, std::uint64_t dur, const char* name,
                   ActivityKind kind, const SpanTag& tag, const std::string& extra_args = "");
  void write_span(Track& t, const ActivitySpan& span);
  void write_counters(const Track& t, const CounterTrack& counter);
  void add_to_bin(Track& t, const ActivitySpan& span);
  void flush_bin(Track& t);
  void write_flow(const Track& from, const Track& to, std::uint64_t from_ts, std::uint64_t to_ts,
                  const char* name);
  const Track* caller_of(const Track& t, const ActivitySpan& span) const;

  std::mutex mutex_;
  std::filesystem::path file_;
  std::ofstream out_;
  TraceOptions options_;
  std::uint64_t origin_ns_;
  std::vector<Track> tracks_;  // tid k + 1
  std::uint64_t next_flow_ = 1;
  TraceStats stats_;
  StepTimings* step_timings_ = nullptr;
};

// Reads every source a few times a second while the run goes on and writes what is new
// (settled: an optimistic Integrator's spans once their steps are committed). As the run's
// observer it also streams the monitor's own trace, and hands every observation on to
// `next` (the live animation) unchanged.
class TraceCollector final : public RunObserver {
 public:
  static constexpr std::chrono::milliseconds period{200};

  TraceCollector(TraceFile& file, RunObserver* next = nullptr);
  ~TraceCollector() override;  // finish()
  TraceCollector(const TraceCollector&) = delete;
  TraceCollector& operator=(const TraceCollector&) = delete;

  void add(TraceSource source);
  // A trace of this process (the monitor's calls), read directly.
  void add_local(const std::string& name, ComponentRole role, const ActivityTrace& trace);
  // Stops reading; reads what every source still has, unsettled spans included.
  void finish();

  void committed(std::uint64_t step, std::span<const double> values) override;
  void horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) override;
  void rolled_back(std::size_t unit, std::uint64_t step) override;
  void monitor_trace(const ActivityTrace* trace) override;
  void marked(double t, const std::string& label) override;

 private:
  struct Reader {
    TraceSource source;
    int tid = 0;
    std::uint64_t next = 0;
    bool gone = false;
    const ActivityTrace* local = nullptr;  // the run's sweeps (monitor_trace); read directly
  };
  void run();
  void read_all(bool unsettled);
  static void read(TraceFile& file, Reader& r, bool unsettled);

  TraceFile& file_;
  RunObserver* next_;
  std::mutex mutex_;  // readers_; held while reading (the monitor's trace may go)
  std::vector<Reader> readers_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool finished_ = false;
  std::thread thread_;
};

// The whole trace of a finished in-process run at once (tests, tools).
void write_trace_json(RunResult& result, const std::filesystem::path& file,
                      const TraceOptions& options = {});

}  // namespace kausal
