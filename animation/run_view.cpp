#include "animation/run_view.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "system/errors.hpp"

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

// trace.json (monitor/trace_writer.cpp): thread_name metadata names each tid, "X" events
// are spans with ts and dur in microseconds since the trace's origin. "cat" says what the
// time was (busy, rollback, or call: a whole request, waits included, which is no strip's
// business); traces of older versions name the kind instead.
void read_trace(const fs::path& file, std::vector<ComponentTrack>& tracks) {
  const json trace = parse_json_file(file);
  if (!trace.is_object()) throw InputError(file.string() + ": not a trace-event object");
  const auto events = required<json>(trace, "traceEvents", file);
  if (!events.is_array()) throw InputError(file.string() + ": \"traceEvents\" is not an array");
  std::map<long, std::string> names;
  for (const json& e : events)
    if (e.is_object() && e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
      names[required<long>(e, "tid", file)] =
          required<std::string>(required<json>(e, "args", file), "name", file);
  for (const json& e : events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const long tid = required<long>(e, "tid", file);
    const auto name = names.find(tid);
    if (name == names.end())
      throw InputError(file.string() + ": span on track " + std::to_string(tid) +
                       " which has no thread_name");
    const std::string kind = e.contains("cat") ? required<std::string>(e, "cat", file)
                                               : required<std::string>(e, "name", file);
    if (kind == "call") continue;
    if (kind != "busy" && kind != "rollback")
      throw InputError(file.string() + ": span kind \"" + kind +
                       "\" (expected busy, rollback or call)");
    const double ts = finite_number(e, "ts", file), dur = finite_number(e, "dur", file);
    if (dur < 0) throw InputError(file.string() + ": span with negative duration");
    track_named(tracks, name->second)
        .spans.push_back({ts * 1e-6, (ts + dur) * 1e-6,
                          kind == "rollback" ? ActivityKind::rollback : ActivityKind::busy});
  }
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
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

TrajectoryTable read_trajectory(const fs::path& file, std::size_t pendulums) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open");
  std::string line;
  if (!std::getline(in, line)) throw InputError(file.string() + ": empty (no header)");
  check_header(line, pendulums, file);
  TrajectoryTable table;
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const auto fields = split_csv(line);
    if (fields.size() != 1 + 2 * pendulums)
      throw InputError(file.string() + ":" + std::to_string(n) + ": " +
                       std::to_string(fields.size()) + " fields, expected " +
                       std::to_string(1 + 2 * pendulums));
    table.t.push_back(csv_number(fields[0], file, n));
    auto& row = table.states.emplace_back();
    for (std::size_t k = 1; k < fields.size(); ++k) row.push_back(csv_number(fields[k], file, n));
  }
  return table;
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
  read_trace(dir / "trace.json", run.tracks);
  return run;
}

RunView load_run_dir(const fs::path& dir) {
  const json summary = read_summary(dir);
  RunView run = from_summary(summary, dir);
  const fs::path file = dir / "summary.json";
  run.geometry = read_geometry(summary, file);
  if (run.geometry.empty()) throw InputError(file.string() + ": \"geometry\" is empty");
  read_trace(dir / "trace.json", run.tracks);
  run.trajectory = read_trajectory(dir / "trajectory.csv", run.geometry.size());
  return run;
}

}  // namespace kausal
