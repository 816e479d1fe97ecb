#include "monitor/summary.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "system/errors.hpp"

namespace kausal {
namespace {

std::string significant(double v, int digits) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(decimals);
  o << v;
  return o.str();
}

// Right-aligned in `width` columns; left-aligned for a negative width.
std::string pad(const std::string& text, int width) {
  const std::size_t w = static_cast<std::size_t>(width < 0 ? -width : width);
  if (text.size() >= w) return text;
  const std::string fill(w - text.size(), ' ');
  return width < 0 ? text + fill : fill + text;
}

double utilisation(const ActivityTotals& t) {
  const double life = t.busy_s + t.idle_s + t.rollback_s;
  return life > 0 ? t.busy_s / life : 0.0;
}

}  // namespace

void write_summary_json(const RunResult& r, const std::filesystem::path& file) {
  nlohmann::ordered_json j;
  j["method"] = r.method;
  if (!r.variant.empty()) j["guarantee"] = r.variant;
  j["model"] = r.model;
  j["scenario"] = r.scenario;
  j["integrator"] = r.integrator;
  j["pendulums"] = r.pendulums;
  j["h"] = r.h;
  j["steps"] = r.steps;
  j["planned_steps"] = r.planned_steps;
  j["wall_s"] = r.wall_s;
  j["calc_calls"] = r.calc_calls;
  j["collisions"] = r.collisions;
  const MethodCounters& k = r.counters;
  j["messages"] = k.messages;
  j["bytes"] = k.bytes;
  j["rounds"] = k.rounds;
  j["rollbacks"] = k.rollbacks;
  j["rolled_back_steps"] = k.rolled_back_steps;
  j["wasted_calc_calls"] = k.wasted_calc_calls;
  j["stale_batches"] = k.stale_batches;
  j["state_list_peak"] = r.state_list_peak;
  if (r.method == "optimistic") {
    j["batch_size"] = r.batch_size;
    j["window"] = r.window;
  }
  j["placement"] = r.placement;
  j["layout"] = r.layout;
  auto& geometry = j["geometry"] = nlohmann::ordered_json::array();
  for (const auto& p : r.geometry)
    geometry.push_back({{"pivot_x", p.pivot_x}, {"length", p.length}, {"radius", p.radius}});
  j["trajectory_sha256"] = r.trajectory_sha256;
  j["status"] = r.status;
  j["exit_code"] = static_cast<int>(r.exit_code);
  if (!r.error.empty()) j["error"] = r.error;
  auto& list = j["components"] = nlohmann::ordered_json::array();
  for (const auto& c : r.components) {
    list.push_back({{"name", c.name},
                    {"role", c.role},
                    {"host", c.host},
                    {"pid", c.pid},
                    {"reachable", c.reachable},
                    {"busy_s", c.totals.busy_s},
                    {"idle_s", c.totals.idle_s},
                    {"rollback_s", c.totals.rollback_s},
                    {"calc_calls", c.totals.calc_calls},
                    {"requests", c.totals.requests},
                    {"state_list_peak", c.totals.state_list_peak},
                    {"cpu", c.cpu},
                    {"trace_spans", c.spans.size()},
                    {"dropped_spans", c.dropped_spans}});
  }
  std::ofstream out(file, std::ios::trunc);
  if (!out) throw InputError(file.string() + ": cannot write summary");
  out << j.dump(2) << '\n';
}

std::string format_summary(const RunResult& r) {
  std::ostringstream o;
  o << "kausal " << r.label() << " · " << r.scenario << " · " << r.pendulums << " pendulums, "
    << r.integrator << ", h = " << r.h << " s\n";
  o << "  status        " << r.status;
  if (!r.error.empty()) o << " — " << r.error;
  o << "\n  layout        " << r.layout;
  o << "\n  steps         " << r.steps << " of " << r.planned_steps << "\n";
  o << "  wall time     " << fixed(r.wall_s, 3) << " s";
  if (r.steps > 0)
    o << "  (" << fixed(1e6 * r.wall_s / static_cast<double>(r.steps), 2) << " µs/step)";
  o << "\n  Calc calls    " << r.calc_calls << "\n";
  o << "  collisions    " << r.collisions << "\n";
  const MethodCounters& k = r.counters;
  if (k.messages) o << "  messages      " << k.messages << " (" << k.bytes << " payload bytes)\n";
  if (k.rounds) o << "  guarantees    " << k.rounds << "\n";
  if (r.method == "optimistic")
    o << "  rollbacks     " << k.rollbacks << " (" << k.rolled_back_steps << " steps, "
      << k.wasted_calc_calls << " Calc calls wasted; " << k.stale_batches
      << " stale batches dropped)\n  state list    at most " << r.state_list_peak
      << " entries (window " << r.window << ", batch " << r.batch_size << ")\n";
  o << "  digest        " << r.trajectory_sha256 << "\n";
  o << "  " << pad("component", -16) << pad("busy s", 9) << pad("idle s", 9)
    << pad("rollback s", 11) << pad("util", 6) << pad("Calc", 10) << "\n";
  for (const auto& c : r.components) {
    o << "  " << pad(c.name, -16) << pad(fixed(c.totals.busy_s, 3), 9)
      << pad(fixed(c.totals.idle_s, 3), 9) << pad(fixed(c.totals.rollback_s, 3), 11)
      << pad(fixed(100 * utilisation(c.totals), 0) + "%", 6)
      << pad(std::to_string(c.totals.calc_calls), 10) << (c.reachable ? "" : "  (unreachable)")
      << "\n";
  }
  return o.str();
}

std::string format_comparison(const std::vector<RunResult>& results) {
  if (results.empty()) return "";
  const RunResult& ref = results.front();
  // The thesis' question is conservative against optimistic: ratios against the
  // conservative step protocol too, when it is in the table.
  const RunResult* step = nullptr;
  for (const auto& r : results)
    if (!step && r.label() == "conservative/step") step = &r;  // the first layout's
  auto ratio = [](const RunResult* base, const RunResult& r) {
    return base && r.wall_s > 0 ? significant(base->wall_s / r.wall_s, 3) + "x" : std::string("-");
  };
  // Several layouts in one table: each run's label says which.
  bool layouts_differ = false;
  for (const auto& r : results)
    if (r.method != "sequential" && r.layout != results.back().layout) layouts_differ = true;
  auto label = [&](const RunResult& r) {
    return layouts_differ && r.method != "sequential" ? r.label() + " [" + r.layout + "]"
                                                      : r.label();
  };
  const int width = layouts_differ ? -36 : -24;
  std::ostringstream o;
  o << pad("method", width) << pad("wall s", 9) << pad("vs seq", 10) << pad("vs step", 9)
    << pad("Calc calls", 12) << pad("collisions", 11) << pad("rollbacks", 10)
    << pad("rolled back", 12) << pad("messages", 10) << "  digest\n";
  for (const auto& r : results) {
    const bool same = r.trajectory_sha256 == ref.trajectory_sha256 && r.status == "completed";
    o << pad(label(r), width) << pad(fixed(r.wall_s, 3), 9) << pad(ratio(&ref, r), 10)
      << pad(ratio(step, r), 9) << pad(std::to_string(r.calc_calls), 12)
      << pad(std::to_string(r.collisions), 11) << pad(std::to_string(r.counters.rollbacks), 10)
      << pad(std::to_string(r.counters.rolled_back_steps), 12)
      << pad(std::to_string(r.counters.messages), 10) << "  " << r.trajectory_sha256.substr(0, 16)
      << (r.status != "completed" ? " (" + r.status + ")"
          : same                  ? "  = reference"
                                  : "  DIFFERS")
      << "\n";
  }
  return o.str();
}

}  // namespace kausal
