#include "monitor/trace_writer.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "system/errors.hpp"

namespace kausal {
namespace {

// Microseconds since the run started, with nanosecond resolution (3 decimals): written by
// hand because a json object per span would make large traces slow to write.
std::string micros(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

const char* kind_name(ActivityKind kind) {
  return kind == ActivityKind::rollback ? "rollback" : "busy";
}

}  // namespace

void write_trace_json(const RunResult& r, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::trunc);
  if (!out) throw InputError(file.string() + ": cannot write trace");
  nlohmann::ordered_json meta;
  meta["method"] = r.label();
  meta["scenario"] = r.scenario;
  meta["wall_s"] = r.wall_s;
  meta["status"] = r.status;
  out << "{\"displayTimeUnit\":\"ms\",\"otherData\":" << meta.dump() << ",\"traceEvents\":[\n";
  nlohmann::ordered_json process{{"ph", "M"},
                                 {"name", "process_name"},
                                 {"pid", 1},
                                 {"tid", 0},
                                 {"args", {{"name", "kausal " + r.label()}}}};
  out << process.dump();
  int tid = 0;
  for (const ComponentReport& c : r.components) {
    ++tid;
    const nlohmann::ordered_json name{
        {"ph", "M"},
        {"name", "thread_name"},
        {"pid", 1},
        {"tid", tid},
        {"args", {{"name", c.name}, {"role", c.role}, {"host", c.host}, {"os_pid", c.pid}}}};
    const nlohmann::ordered_json order{{"ph", "M"},
                                       {"name", "thread_sort_index"},
                                       {"pid", 1},
                                       {"tid", tid},
                                       {"args", {{"sort_index", tid}}}};
    out << ",\n" << name.dump() << ",\n" << order.dump();
    for (const ActivitySpan& s : c.spans) {
      const auto begin = static_cast<std::int64_t>(s.begin_ns - r.start_ns);
      const auto dur = static_cast<std::int64_t>(s.end_ns - s.begin_ns);
      out << ",\n{\"ph\":\"X\",\"name\":\"" << kind_name(s.kind) << "\",\"pid\":1,\"tid\":" << tid
          << ",\"ts\":" << micros(begin) << ",\"dur\":" << micros(dur) << "}";
    }
  }
  out << "\n]}\n";
  if (!out.flush()) throw InputError(file.string() + ": cannot write trace");
}

}  // namespace kausal
