#include "animation/run_view.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/bridge_mark.hpp"
#include "common/csv_field.hpp"
#include "common/errors.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json parse_json_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open (is this a kausal run directory?)");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
  }
}

// A member that must be there and have the right type; names file and field otherwise.
template <typename T>
T required(const json& j, const std::string& key, const fs::path& file) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(file.string() + ": missing field \"" + key + "\"");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw InputError(file.string() + ": field \"" + key + "\" has the wrong type");
  }
}

double finite_number(const json& j, const std::string& key, const fs::path& file) {
  const double v = required<double>(j, key, file);
  if (!std::isfinite(v)) throw InputError(file.string() + ": \"" + key + "\" is not finite");
  return v;
}

std::vector<PendulumGeometry> read_geometry(const json& summary, const fs::path& file) {
  const auto list = required<json>(summary, "geometry", file);
  if (!list.is_array()) throw InputError(file.string() + ": \"geometry\" is not an array");
  std::vector<PendulumGeometry> out;
  for (const json& g : list) {
    const std::string where = "geometry[" + std::to_string(out.size()) + "]";
    if (!g.is_object()) throw InputError(file.string() + ": " + where + " is not an object");
    PendulumGeometry p{finite_number(g, "pivot_x", file), finite_number(g, "length", file),
                       finite_number(g, "radius", file)};
    if (p.length <= 0 || p.radius <= 0)
      throw InputError(file.string() + ": " + where + ": length and radius must be positive");
    out.push_back(p);
  }
  return out;
}

std::vector<ComponentTrack> read_components(const json& summary, const fs::path& file) {
  std::vector<ComponentTrack> out;
  const auto it = summary.find("components");
  if (it == summary.end()) return out;  // a sequential run may have none worth a strip
  if (!it->is_array()) throw InputError(file.string() + ": \"components\" is not an array");
  for (const json& c : *it) {
    if (!c.is_object()) throw InputError(file.string() + ": a component is not an object");
    out.push_back({required<std::string>(c, "name", file),
                   c.contains("role") ? required<std::string>(c, "role", file) : "",
                   {},
                   c.contains("node") ? required<std::string>(c, "node", file) : ""});
  }
  return out;
}

ComponentTrack& track_named(std::vector<ComponentTrack>& tracks, const std::string& name) {
  for (auto& t : tracks)
    if (t.name == name) return t;
  tracks.push_back({name, "", {}, ""});
  return tracks.back();
}

// One event of trace.json as far as a timeline needs it.
struct TraceEvent {
  std::string ph, name, cat, args_name;
  std::optional<double> tid, ts, dur;
  bool has_args = false;
};

// A span held until its track is named (thread_name metadata may follow the spans).
struct HeldSpan {
  long tid;
  double ts, dur;
  ActivityKind kind;
};

// Reads trace.json as a stream (SAX) into the tracks: a trace of a million events is over
// 100 MB of JSON, and a document tree of it took 1.8 GB and seconds to build; this keeps the
// spans only. A span whose track is named goes to it at once (kausal's traces name every
// track before its spans); one whose name comes later is held until the end, and so is
// every span after it, so that the tracks keep the order of their first spans. Only the
// members of the events in "traceEvents" are looked at; everything else is skipped. Errors
// name the file and the field, as the rest of this file does.
class TraceReader : public nlohmann::json_sax<json> {
 public:
  TraceReader(fs::path file, std::vector<ComponentTrack>& tracks,
              std::optional<double>& first_event_s)
      : file_(std::move(file)), tracks_(tracks), first_event_s_(first_event_s) {}

  void read() {
    std::ifstream in(file_, std::ios::binary);
    if (!in) throw InputError(file_.string() + ": cannot open (is this a kausal run directory?)");
    json::sax_parse(in, this);
    if (!root_object_) throw InputError(file_.string() + ": not a trace-event object");
    if (!saw_events_) throw InputError(file_.string() + ": missing field \"traceEvents\"");
  }

  // The spans held for a name that came after them.
  void place_held_spans() const {
    for (const HeldSpan& s : held_) {
      const auto name = names_.find(s.tid);
      if (name == names_.end())
        throw InputError(file_.string() + ": span on track " + std::to_string(s.tid) +
                         " which has no thread_name");
      place(name->second, s);
    }
  }

  bool null() override { return other_scalar(); }
  bool boolean(bool) override { return other_scalar(); }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool binary(binary_t&) override { return other_scalar(); }

  bool string(string_t& v) override {
    if (depth_ == 3 && in_event_) {
      if (key_ == "ph") return (event_.ph = v, true);
      if (key_ == "name") return (event_.name = v, true);
      if (key_ == "cat") return (event_.cat = v, true);
      return wrong_type_if_numeric();
    }
    if (depth_ == 4 && in_event_ && key_ == "args" && args_key_ == "name") event_.args_name = v;
    return other_scalar();
  }

  bool key(string_t& k) override {
    if (depth_ == 1) root_key_ = k;
    if (depth_ == 3) key_ = k;
    if (depth_ == 4) args_key_ = k;
    return true;
  }

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) root_object_ = true;
    if (depth_ == 3 && in_events_array()) {
      in_event_ = true;
      event_ = {};
    }
    if (depth_ == 4 && in_event_ && key_ == "args") event_.has_args = true;
    if (depth_ == 2 && root_key_ == "traceEvents") not_an_array();
    return true;
  }

  bool end_object() override {
    if (depth_ == 3 && in_event_) {
      finish_event();
      in_event_ = false;
    }
    if (depth_ == 4) args_key_.clear();
    --depth_;
    return true;
  }

  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && root_key_ == "traceEvents") {
      saw_events_ = true;
      events_array_ = true;
    }
    return true;
  }

  bool end_array() override {
    if (depth_ == 2) events_array_ = false;
    --depth_;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw InputError(file_.string() + ": not valid JSON (" + e.what() + ")");
  }

 private:
  bool in_events_array() const { return events_array_ && depth_ == 3; }

  [[noreturn]] void not_an_array() const {
    throw InputError(file_.string() + ": \"traceEvents\" is not an array");
  }

  // Any scalar: "traceEvents" itself must not be one.
  void scalar_seen() const {
    if (depth_ == 1 && root_key_ == "traceEvents") not_an_array();
  }

  // A scalar that is neither a number nor a string an event needs: inside an event, where a
  // number belongs it has the wrong type.
  bool other_scalar() const {
    scalar_seen();
    if (depth_ == 3 && in_event_) return wrong_type_if_numeric();
    return true;
  }

  bool number(double v) {
    scalar_seen();
    if (depth_ != 3 || !in_event_) return true;
    if (key_ == "tid")
      event_.tid = v;
    else if (key_ == "ts")
      event_.ts = v;
    else if (key_ == "dur")
      event_.dur = v;
    else if (key_ == "ph" || key_ == "name" || key_ == "cat")
      wrong_type(key_);
    return true;
  }

  bool wrong_type_if_numeric() const {
    if (key_ == "tid" || key_ == "ts" || key_ == "dur") wrong_type(key_);
    return true;
  }

  [[noreturn]] void wrong_type(const std::string& key) const {
    throw InputError(file_.string() + ": field \"" + key + "\" has the wrong type");
  }

  [[noreturn]] void missing(const std::string& key) const {
    throw InputError(file_.string() + ": missing field \"" + key + "\"");
  }

  long track_id() const {
    if (!event_.tid) missing("tid");
    const double tid = *event_.tid;
    if (tid != std::floor(tid) || std::abs(tid) > 1e15) wrong_type("tid");
    return static_cast<long>(tid);
  }

  double finite(const std::optional<double>& v, const std::string& key) const {
    if (!v) missing(key);
    if (!std::isfinite(*v)) throw InputError(file_.string() + ": \"" + key + "\" is not finite");
    return *v;
  }

  // thread_name metadata names a track; an "X" event is a span: cat says what the time was
  // (busy, rollback, or call: a whole request, waits included, which is no strip's
  // business); traces of older versions name the kind instead.
  void finish_event() {
    if (event_.ph == "M" && event_.name == "thread_name") {
      const long tid = track_id();
      if (!event_.has_args) missing("args");
      if (event_.args_name.empty()) missing("name");
      names_[tid] = event_.args_name;
      return;
    }
    if (event_.ph != "X") return;
    const long tid = track_id();
    const std::string& kind = event_.cat.empty() ? event_.name : event_.cat;
    if (kind.empty()) missing("name");
    if (kind == "call") return;
    if (kind != "busy" && kind != "rollback")
      throw InputError(file_.string() + ": span kind \"" + kind +
                       "\" (expected busy, rollback or call)");
    const double ts = finite(event_.ts, "ts"), dur = finite(event_.dur, "dur");
    if (dur < 0) throw InputError(file_.string() + ": span with negative duration");
    if (event_.name == "event" && (!first_event_s_ || ts * 1e-6 < *first_event_s_))
      first_event_s_ = ts * 1e-6;
    const HeldSpan span{tid, ts, dur,
                        kind == "rollback" ? ActivityKind::rollback : ActivityKind::busy};
    const auto name = names_.find(tid);
    if (held_.empty() && name != names_.end())
      place(name->second, span);
    else
      held_.push_back(span);
  }

  void place(const std::string& track, const HeldSpan& s) const {
    track_named(tracks_, track).spans.push_back({s.ts * 1e-6, (s.ts + s.dur) * 1e-6, s.kind});
  }

  fs::path file_;
  int depth_ = 0;
  bool root_object_ = false, saw_events_ = false, events_array_ = false, in_event_ = false;
  std::string root_key_, key_, args_key_;
  TraceEvent event_;
  std::map<long, std::string> names_;
  std::vector<ComponentTrack>& tracks_;
  std::optional<double>& first_event_s_;
  std::vector<HeldSpan> held_;
};

// trace.json (monitor/record/trace_writer.cpp): thread_name metadata names each tid, "X" events
// are spans with ts and dur in microseconds since the trace's origin.
void read_trace(const fs::path& file, RunView& run) {
  TraceReader reader(file, run.tracks, run.first_event_s);
  reader.read();
  reader.place_held_spans();
}

double csv_number(const std::string& text, const fs::path& file, std::size_t line) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw InputError(file.string() + ":" + std::to_string(line) + ": \"" + text +
                     "\" is not a finite number");
  return v;
}

void check_header(const std::string& header, std::size_t pendulums, const fs::path& file) {
  std::string expected = "t";
  for (std::size_t i = 1; i <= pendulums; ++i)
    expected += ",phi_" + std::to_string(i) + ",omega_" + std::to_string(i);
  if (header != expected)
    throw InputError(file.string() + ":1: header \"" + header.substr(0, 80) + "\", expected \"" +
                     expected.substr(0, 80) + "\" for " + std::to_string(pendulums) +
                     " pendulums (summary.json geometry)");
}

// The rows after the header: t and `values` numbers each.
TrajectoryTable read_rows(std::ifstream& in, std::size_t values, const fs::path& file) {
  std::string line;
  TrajectoryTable table;
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const auto fields = split_csv_line(line);
    if (fields.size() != 1 + values)
      throw InputError(file.string() + ":" + std::to_string(n) + ": " +
                       std::to_string(fields.size()) + " fields, expected " +
                       std::to_string(1 + values));
    table.t.push_back(csv_number(fields[0], file, n));
    auto& row = table.states.emplace_back();
    for (std::size_t k = 1; k < fields.size(); ++k) row.push_back(csv_number(fields[k], file, n));
  }
  return table;
}

TrajectoryTable read_trajectory(const fs::path& file, std::size_t pendulums) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open");
  std::string line;
  if (!std::getline(in, line)) throw InputError(file.string() + ": empty (no header)");
  check_header(line, pendulums, file);
  return read_rows(in, 2 * pendulums, file);
}

// A partitioned run: summary.json's partitions (name, subsystems) become the plots; every
// column of trajectory.csv ("member.state", written by monitor/record/partitioned_recorder) a
// series in its member's partition.
PlotSpec read_plot_spec(const json& summary, const fs::path& file,
                        std::vector<std::vector<std::string>>& members) {
  const auto list = required<json>(summary, "partitions", file);
  if (!list.is_array() || list.empty())
    throw InputError(file.string() + ": \"partitions\" is not a non-empty array");
  PlotSpec spec;
  for (const json& p : list) {
    const std::string where = "partitions[" + std::to_string(spec.plots.size()) + "]";
    if (!p.is_object()) throw InputError(file.string() + ": " + where + " is not an object");
    spec.plots.push_back(required<std::string>(p, "name", file));
    members.push_back(required<std::vector<std::string>>(p, "subsystems", file));
  }
  return spec;
}

TrajectoryTable read_partitioned_trajectory(const fs::path& file, PlotSpec& spec,
                                            const std::vector<std::vector<std::string>>& members) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open");
  std::string line;
  if (!std::getline(in, line)) throw InputError(file.string() + ": empty (no header)");
  const auto names = split_csv_line(line);
  if (names.size() < 2 || names[0] != "t")
    throw InputError(file.string() + ":1: header \"" + line.substr(0, 80) +
                     "\", expected \"t,member.state,...\"");
  for (std::size_t c = 1; c < names.size(); ++c) {
    // The partition of the longest member name that, with a dot, begins the column's name.
    std::optional<std::size_t> plot;
    std::size_t best = 0;
    for (std::size_t p = 0; p < members.size(); ++p)
      for (const auto& m : members[p])
        if (m.size() >= best && names[c].size() > m.size() + 1 && names[c].rfind(m + ".", 0) == 0) {
          plot = p;
          best = m.size();
        }
    if (!plot)
      throw InputError(file.string() + ":1: column \"" + names[c].substr(0, 80) +
                       "\" belongs to no subsystem of summary.json's partitions");
    spec.series.push_back({names[c], *plot});
  }
  return read_rows(in, names.size() - 1, file);
}

std::string run_label(const json& summary, const fs::path& file) {
  std::string label = required<std::string>(summary, "method", file);
  if (summary.contains("guarantee"))
    label.append("/").append(required<std::string>(summary, "guarantee", file));
  return label;
}

}  // namespace

double RunView::timeline_end_s() const {
  double end = wall_s;
  for (const auto& t : tracks)
    for (const auto& s : t.spans) end = std::max(end, s.end_s);
  return end;
}

std::size_t RunView::row_for_step(std::uint64_t step) const {
  if (trajectory.t.empty())
    throw InputError((dir / "trajectory.csv").string() + ": no states to show");
  // Half a step of slack: the times were computed as step * h and printed rounded.
  const double t = static_cast<double>(step) * h + 0.5 * h;
  const auto after = std::upper_bound(trajectory.t.begin(), trajectory.t.end(), t);
  return after == trajectory.t.begin() ? 0
                                       : static_cast<std::size_t>(after - trajectory.t.begin()) - 1;
}

std::vector<PlotMark> RunView::marks_until(double t) const {
  std::vector<PlotMark> until;
  for (const PlotMark& m : marks)
    if (m.t <= t) until.push_back(m);
  return until;
}

PlotPoints RunView::plot_points(std::size_t last) const {
  PlotPoints p;
  const std::size_t rows = std::min(last + 1, trajectory.t.size());
  p.t.assign(trajectory.t.begin(), trajectory.t.begin() + static_cast<std::ptrdiff_t>(rows));
  p.values.assign(plot.series.size(), {});
  for (std::size_t i = 0; i < plot.series.size(); ++i) {
    p.values[i].reserve(rows);
    for (std::size_t k = 0; k < rows; ++k) p.values[i].push_back(trajectory.states[k][i]);
  }
  return p;
}

namespace {

json read_summary(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir.string() + ": not a directory");
  const json summary = parse_json_file(dir / "summary.json");
  if (!summary.is_object()) throw InputError((dir / "summary.json").string() + ": not an object");
  return summary;
}

RunView from_summary(const json& summary, const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  RunView run;
  run.dir = dir;
  run.label = run_label(summary, file);
  run.scenario = required<std::string>(summary, "scenario", file);
  run.status = required<std::string>(summary, "status", file);
  if (summary.contains("layout")) run.layout = required<std::string>(summary, "layout", file);
  run.wall_s = finite_number(summary, "wall_s", file);
  if (run.wall_s < 0) throw InputError(file.string() + ": \"wall_s\" is negative");
  if (summary.contains("h")) run.h = finite_number(summary, "h", file);
  run.tracks = read_components(summary, file);
  return run;
}

}  // namespace

RunView load_run_summary(const fs::path& dir) {
  return from_summary(read_summary(dir), dir);
}

RunView load_run_activity(const fs::path& dir) {
  RunView run = from_summary(read_summary(dir), dir);
  read_trace(dir / "trace.json", run);
  return run;
}

namespace {

// A hybrid model's bridge.csv (t,event,from,to,value per row) as marks; none without one (the
// first 4096: more would be a solid bar).
std::vector<PlotMark> read_bridge_marks(const fs::path& file) {
  std::vector<PlotMark> marks;
  std::ifstream in(file);
  if (!in) return marks;
  std::string line;
  std::getline(in, line);
  if (line != kBridgeHeader) throw InputError(file.string() + ": not a bridge.csv");
  for (std::size_t row = 2; std::getline(in, line) && marks.size() < 4096; ++row) {
    const auto event = parse_bridge_row(line);
    if (!event)
      throw InputError(file.string() + ":" + std::to_string(row) +
                       ": expected t,event,from,to,value with finite numbers");
    marks.push_back({event->t, bridge_mark_label(event->event, event->to, event->value)});
  }
  return marks;
}

}  // namespace

RunView load_run_dir(const fs::path& dir) {
  const json summary = read_summary(dir);
  RunView run = from_summary(summary, dir);
  const fs::path file = dir / "summary.json";
  if (summary.contains("partitions")) {
    std::vector<std::vector<std::string>> members;
    run.plot = read_plot_spec(summary, file, members);
    read_trace(dir / "trace.json", run);
    run.trajectory = read_partitioned_trajectory(dir / "trajectory.csv", run.plot, members);
    run.marks = read_bridge_marks(dir / "bridge.csv");
    return run;
  }
  if (summary.contains("events"))
    throw InputError(dir.string() +
                     ": a discrete-event run has no states to draw (its trajectory is its "
                     "events' digest); --timeline draws what its event groups did");
  run.geometry = read_geometry(summary, file);
  if (run.geometry.empty()) throw InputError(file.string() + ": \"geometry\" is empty");
  read_trace(dir / "trace.json", run);
  run.trajectory = read_trajectory(dir / "trajectory.csv", run.geometry.size());
  return run;
}

}  // namespace kausal
