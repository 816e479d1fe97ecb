#include "monitor/record/trace_writer.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"

namespace kausal {
namespace {

// Microseconds since the origin, with nanosecond resolution (3 decimals): written by hand
// because a json object per span would make large traces slow to write, and from integers
// because printf's "%.3f" of ns / 1000.0 (the same text) took 7 % of a conservative run's
// monitor (perf, cradle.toml in processes).
std::string trace_micros(std::uint64_t ns) {
  char buf[32];
  char* end = std::to_chars(buf, buf + sizeof buf, ns / 1000).ptr;
  const auto fraction = static_cast<unsigned>(ns % 1000);
  *end++ = '.';
  *end++ = static_cast<char>('0' + fraction / 100);
  *end++ = static_cast<char>('0' + fraction / 10 % 10);
  *end++ = static_cast<char>('0' + fraction % 10);
  return std::string(buf, end);
}

// "integrator-3" -> "3": the System and the Integrator of one pendulum (or partition) share
// the rest of their names.
std::string pair_of(const std::string& name, ComponentRole role) {
  const std::string prefix = to_string(role) + "-";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : "";
}

bool called_by_monitor(ActivityCall c) {
  return c == ActivityCall::advance || c == ActivityCall::apply_event ||
         c == ActivityCall::rollback || c == ActivityCall::commit || c == ActivityCall::schedule;
}

bool called_by_integrator(ActivityCall c) {
  return c == ActivityCall::event || c == ActivityCall::derivative || c == ActivityCall::output ||
         c == ActivityCall::jacobian || c == ActivityCall::indicators;
}

}  // namespace

const char* trace_mode_name(TraceMode mode) {
  switch (mode) {
    case TraceMode::coarse:
      return "coarse";
    case TraceMode::off:
      return "off";
    case TraceMode::full:
      break;
  }
  return "full";
}

std::string describe_trace(const TraceStats& s) {
  if (s.mode == TraceMode::off) return "off (--trace off): trace.json has tracks, no slices";
  std::string line = std::string(trace_mode_name(s.mode)) + ", " + std::to_string(s.events) +
                     " events in trace.json";
  if (s.mode == TraceMode::coarse)
    line += " (coarsened: busy and rollback time per " +
            std::to_string(TraceOptions::coarse_bin_ns / 1'000'000) + " ms)";
  if (s.capped())
    line += "; capped at --trace-limit " + std::to_string(s.limit) + ": " +
            std::to_string(s.not_written) + " later spans not written";
  if (s.lost) line += "; " + std::to_string(s.lost) + " spans lost (read too late)";
  return line;
}

TraceFile::TraceFile(const std::filesystem::path& file, const TraceOptions& options,
                     std::optional<std::uint64_t> origin_ns)
    : file_(file),
      out_(file, std::ios::trunc),
      options_(options),
      origin_ns_(origin_ns.value_or(monotonic_ns())) {
  if (!out_) throw InputError(file.string() + ": cannot write trace");
  stats_.mode = options.mode;
  stats_.limit = options.limit;
  const nlohmann::ordered_json process{{"ph", "M"},
                                       {"name", "process_name"},
                                       {"pid", 1},
                                       {"tid", 0},
                                       {"args", {{"name", "kausal"}}}};
  out_ << "{\"traceEvents\":[\n" << process.dump();
}

int TraceFile::track(const std::string& name, ComponentRole role, const std::string& host,
                     long pid) {
  std::lock_guard lock(mutex_);
  for (const Track& t : tracks_)
    if (t.name == name) return t.tid;
  Track t;
  t.name = name;
  t.role = role;
  t.pair = pair_of(name, role);
  t.tid = static_cast<int>(tracks_.size()) + 1;
  const nlohmann::ordered_json meta{
      {"ph", "M"},
      {"name", "thread_name"},
      {"pid", 1},
      {"tid", t.tid},
      {"args", {{"name", name}, {"role", role}, {"host", host}, {"os_pid", pid}}}};
  const nlohmann::ordered_json order{{"ph", "M"},
                                     {"name", "thread_sort_index"},
                                     {"pid", 1},
                                     {"tid", t.tid},
                                     {"args", {{"sort_index", t.tid}}}};
  out_ << ",\n" << meta.dump() << ",\n" << order.dump();
  tracks_.push_back(std::move(t));
  return tracks_.back().tid;
}

bool TraceFile::room_for(std::uint64_t events) {
  return stats_.events + events <= options_.limit;
}

void TraceFile::lost(int tid, std::uint64_t n) {
  std::lock_guard lock(mutex_);
  tracks_.at(static_cast<std::size_t>(tid - 1)).lost += n;
  stats_.lost += n;
}

void TraceFile::write(int tid, std::span<const ActivitySpan> spans, std::int64_t clock_offset_ns) {
  std::lock_guard lock(mutex_);
  Track& t = tracks_.at(static_cast<std::size_t>(tid - 1));
  t.streamed = true;
  if (step_timings_) step_timings_->add(t.name, t.role, spans);
  for (ActivitySpan s : spans) {
    if (!valid_span(s)) {
      ++t.lost;
      ++stats_.lost;
      continue;
    }
    if (options_.mode == TraceMode::off) {
      ++t.not_written;
      ++stats_.not_written;
      continue;
    }
    // Onto the monitor's clock, then relative to the origin; nothing before it.
    const auto shift = [&](std::uint64_t ns) {
      return static_cast<std::int64_t>(ns - origin_ns_) - clock_offset_ns;
    };
    const std::int64_t begin = shift(s.begin_ns), end = shift(s.end_ns);
    if (begin < 0) ++stats_.clamped;
    if (end < 0) continue;  // all of it before the first step: setup, not the run
    s.begin_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(begin, 0));
    s.end_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(end, 0));
    if (options_.mode == TraceMode::coarse)
      add_to_bin(t, s);
    else
      write_span(t, s);
  }
}

void TraceFile::write_slice(Track& t, std::uint64_t begin, std::uint64_t dur, const char* name,
                            ActivityKind kind, const SpanTag& tag, const std::string& extra_args) {
  out_ << ",\n{\"ph\":\"X\",\"name\":\"" << name << "\",\"cat\":\"" << kind_name(kind)
       << "\",\"pid\":1,\"tid\":" << t.tid << ",\"ts\":" << trace_micros(begin)
       << ",\"dur\":" << trace_micros(dur);
  std::string args = extra_args;
  auto add = [&](const char* key, std::uint64_t v) {
    args += (args.empty() ? "" : ",") + std::string("\"") + key + "\":" + std::to_string(v);
  };
  if (tag.step != SpanTag::no_step) add("step", tag.step);
  if (t.role == ComponentRole::integrator || tag.epoch > 0) add("epoch", tag.epoch);
  if (!args.empty()) out_ << ",\"args\":{" << args << "}";
  out_ << "}";
  ++t.slices;
  ++stats_.events;
}

void TraceFile::write_span(Track& t, const ActivitySpan& s) {
  if (!room_for(1)) {
    ++t.not_written;
    ++stats_.not_written;
    return;
  }
  // The monitor's only unnamed busy scope is the impact sweep of a step (step_chain).
  const char* name = s.tag.call != ActivityCall::unnamed ? call_name(s.tag.call)
                     : t.role == ComponentRole::monitor  ? call_name(ActivityCall::sweep)
                                                         : kind_name(s.kind);
  write_slice(t, s.begin_ns, s.end_ns - s.begin_ns, name, s.kind, s.tag);
  if (const Track* caller = caller_of(t, s); caller && room_for(2))
    write_flow(*caller, t, s.begin_ns, s.begin_ns + (s.end_ns - s.begin_ns) / 2, name);
  // A hybrid model's crossing goes the other way: from the partition that located it to the
  // monitor, which has the discrete side (in the reply of the call it was found in).
  if (t.role == ComponentRole::integrator && s.tag.call == ActivityCall::crossing && room_for(2))
    for (const Track& monitor : tracks_)
      if (monitor.name == "monitor") write_flow(t, monitor, s.end_ns, s.end_ns, name);
}

// The track whose open slice made the call `span` serves: the monitor for an Integrator's
// request, the pendulum's (partition's) Integrator for a System's work.
const TraceFile::Track* TraceFile::caller_of(const Track& t, const ActivitySpan& span) const {
  std::string caller;
  if (t.role == ComponentRole::integrator && span.kind == ActivityKind::call &&
      called_by_monitor(span.tag.call))
    caller = "monitor";
  else if (t.role == ComponentRole::system && span.kind != ActivityKind::call && !t.pair.empty() &&
           called_by_integrator(span.tag.call))
    caller = "integrator-" + t.pair;
  else
    return nullptr;
  for (const Track& c : tracks_)
    if (c.name == caller) return &c;
  return nullptr;
}

// A flow arrow: "s" inside the caller's slice that is open when the callee's begins (the
// caller waits for the answer), "f" bound to the callee's slice ("bp": "e").
void TraceFile::write_flow(const Track& from, const Track& to, std::uint64_t from_ts,
                           std::uint64_t to_ts, const char* name) {
  const std::uint64_t id = next_flow_++;
  out_ << ",\n{\"ph\":\"s\",\"id\":" << id << ",\"name\":\"" << name
       << "\",\"cat\":\"flow\",\"pid\":1,\"tid\":" << from.tid
       << ",\"ts\":" << trace_micros(from_ts) << "}";
  out_ << ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":" << id << ",\"name\":\"" << name
       << "\",\"cat\":\"flow\",\"pid\":1,\"tid\":" << to.tid << ",\"ts\":" << trace_micros(to_ts)
       << "}";
  stats_.events += 2;
}

// Coarse: busy and rollback time of each bin, split where a span crosses a bin's end; call
// spans (envelopes) are left out.
void TraceFile::add_to_bin(Track& t, const ActivitySpan& s) {
  if (s.kind == ActivityKind::call) return;
  constexpr std::uint64_t width = TraceOptions::coarse_bin_ns;
  std::uint64_t begin = s.begin_ns;
  while (begin < s.end_ns || begin == s.begin_ns) {
    const std::uint64_t bin = begin / width;
    if (bin > t.bin) {
      flush_bin(t);
      t.bin = bin;
    }
    const std::uint64_t end = std::min(s.end_ns, (bin + 1) * width);
    Bin& b = s.kind == ActivityKind::rollback ? t.rollback : t.busy;
    b.ns += end - begin;
    b.by_call[s.tag.call] += end - begin;
    if (begin == s.begin_ns) ++b.calls;
    if (end >= s.end_ns) break;
    begin = end;
  }
}

void TraceFile::flush_bin(Track& t) {
  std::uint64_t at = t.bin * TraceOptions::coarse_bin_ns;
  for (auto [bin, kind] :
       {std::pair(&t.busy, ActivityKind::busy), std::pair(&t.rollback, ActivityKind::rollback)}) {
    if (bin->ns == 0) continue;
    if (!room_for(1)) {
      t.not_written += bin->calls;
      stats_.not_written += bin->calls;
    } else {
      const auto top = std::max_element(bin->by_call.begin(), bin->by_call.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
      const char* name = top->first != ActivityCall::unnamed ? call_name(top->first)
                         : t.role == ComponentRole::monitor  ? call_name(ActivityCall::sweep)
                                                             : kind_name(kind);
      write_slice(t, at, bin->ns, name, kind, {},
                  "\"spans\":" + std::to_string(bin->calls) +
                      ",\"bin_ms\":" + std::to_string(TraceOptions::coarse_bin_ns / 1'000'000));
    }
    at += bin->ns;
    *bin = Bin{};
  }
}

void TraceFile::write_counters(const Track& t, const CounterTrack& counter) {
  if (options_.mode == TraceMode::off) return;
  // Chrome keys a counter by its process and name: the component's name keeps each apart.
  const std::string name = nlohmann::json(t.name + " \u00b7 " + counter.name).dump();
  for (const CounterTrack::Sample& sample : counter.samples) {
    if (!room_for(1)) return;
    nlohmann::ordered_json args = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < std::min(sample.values.size(), counter.series.size()); ++i)
      args[counter.series[i]] = sample.values[i];
    const std::uint64_t at = sample.at_ns > origin_ns_ ? sample.at_ns - origin_ns_ : 0;
    out_ << ",\n{\"ph\":\"C\",\"name\":" << name << ",\"pid\":1,\"tid\":" << t.tid
         << ",\"ts\":" << trace_micros(at) << ",\"args\":" << args.dump() << "}";
    ++stats_.events;
  }
}

TraceStats TraceFile::finish(RunResult& r) {
  for (ComponentReport& c : r.components) {
    const int tid = track(c.name, c.role, c.host, c.pid);
    if (!tracks_[static_cast<std::size_t>(tid - 1)].streamed) write(tid, c.spans, 0);
    std::lock_guard lock(mutex_);
    for (const CounterTrack& counter : c.counters)
      write_counters(tracks_[static_cast<std::size_t>(tid - 1)], counter);
  }
  std::lock_guard lock(mutex_);
  for (Track& t : tracks_) flush_bin(t);
  for (ComponentReport& c : r.components) {
    for (const Track& t : tracks_) {
      if (t.name != c.name) continue;
      c.trace_slices = t.slices;
      c.dropped_spans = t.not_written + t.lost;
    }
  }
  nlohmann::ordered_json trace{{"mode", trace_mode_name(stats_.mode)},
                               {"limit", stats_.limit},
                               {"events", stats_.events},
                               {"spans_not_written", stats_.not_written},
                               {"spans_lost", stats_.lost},
                               {"spans_clamped", stats_.clamped},
                               {"origin",
                                "time 0 is when the components had been set up, just before "
                                "the first step; earlier spans are clamped to 0"}};
  if (stats_.mode == TraceMode::coarse) trace["bin_ms"] = TraceOptions::coarse_bin_ns / 1'000'000;
  if (stats_.capped())
    trace["capped"] = "the trace reached its limit of " + std::to_string(stats_.limit) +
                      " events: later spans were not written (--trace-limit, --trace coarse)";
  nlohmann::ordered_json meta;
  meta["method"] = r.label();
  meta["scenario"] = r.scenario;
  meta["wall_s"] = r.wall_s;
  meta["status"] = to_string(r.status);
  meta["run_start_us"] =
      r.start_ns > origin_ns_ ? static_cast<double>(r.start_ns - origin_ns_) / 1000.0 : 0.0;
  meta["trace"] = trace;
  out_ << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" << meta.dump() << "}\n";
  out_.flush();
  if (!out_) throw InputError(file_.string() + ": cannot write trace");
  out_.close();
  r.trace = stats_;
  return stats_;
}

// ---- TraceCollector ----

TraceCollector::TraceCollector(TraceFile& file, RunObserver* next) : file_(file), next_(next) {
  thread_ = std::thread([this] { run(); });
}

TraceCollector::~TraceCollector() {
  finish();
}

void TraceCollector::add(TraceSource source) {
  const int tid = file_.track(source.name, source.role, source.host, source.pid);
  std::lock_guard lock(mutex_);
  readers_.push_back({std::move(source), tid, 0, false});
}

void TraceCollector::add_local(const std::string& name, ComponentRole role,
                               const ActivityTrace& trace) {
  add({name, role, "", 0, 0,
       [&trace](std::uint64_t first, bool unsettled) -> std::optional<TracePage> {
         return trace.read(first, 65536, unsettled);
       }});
}

void TraceCollector::read(TraceFile& file, Reader& r, bool unsettled) {
  while (!r.gone) {
    std::optional<TracePage> page;
    try {
      page = r.source.read(r.next, unsettled);
    } catch (...) {
      // A report is never fatal: what arrived is kept.
    }
    if (!page) {
      r.gone = true;
      return;
    }
    if (page->first > r.next) file.lost(r.tid, page->first - r.next);
    if (page->spans.empty()) return;
    file.write(r.tid, page->spans, r.source.clock_offset_ns);
    r.next = page->first + page->spans.size();
  }
}

void TraceCollector::read_all(bool unsettled) {
  for (Reader& r : readers_) read(file_, r, unsettled);
}

void TraceCollector::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [&] { return stopping_; });
    if (!stopping_) read_all(false);
  }
}

void TraceCollector::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::lock_guard lock(mutex_);
  read_all(true);
  readers_.clear();
}

void TraceCollector::committed(std::uint64_t step, std::span<const double> values) {
  if (next_) next_->committed(step, values);
}

void TraceCollector::horizon(std::uint64_t horizon, std::span<const std::uint64_t> reached) {
  if (next_) next_->horizon(horizon, reached);
}

void TraceCollector::rolled_back(std::size_t unit, std::uint64_t step) {
  if (next_) next_->rolled_back(unit, step);
}

void TraceCollector::marked(double t, const std::string& label) {
  if (next_) next_->marked(t, label);
}

// The run's own activity (the sweeps): read like any other source while it lasts, and
// read to its end before it goes.
void TraceCollector::monitor_trace(const ActivityTrace* trace) {
  if (trace) {
    add_local("monitor", ComponentRole::monitor, *trace);
    std::lock_guard lock(mutex_);
    readers_.back().local = trace;
  } else {
    std::lock_guard lock(mutex_);
    for (Reader& r : readers_) {
      if (!r.local) continue;
      read(file_, r, true);
      r.local = nullptr;  // about to go: never read again
      r.gone = true;
    }
  }
  if (next_) next_->monitor_trace(trace);
}

void write_trace_json(RunResult& result, const std::filesystem::path& file,
                      const TraceOptions& options) {
  TraceFile trace(file, options, result.start_ns);
  trace.finish(result);
}

}  // namespace kausal
