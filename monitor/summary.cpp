#include "monitor/summary.hpp"

#include "monitor/trace_writer.hpp"

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

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(decimals);
  o << v;
  return o.str();
}

double mean_utilisation(const RunResult& r) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& c : r.components) {
    if (!c.reachable) continue;
    sum += utilisation(c.totals);
    ++n;
  }
  return n ? sum / static_cast<double>(n) : 0.0;
}

double calc_cost_us(const RunResult& r) {
  double wait_s = 0;
  std::uint64_t calls = 0;
  for (const auto& c : r.components) {
    if (c.role == "integrator") {
      wait_s += c.totals.calc_wait_s;
      calls += c.totals.calc_calls;
    } else if (c.role == "sequential") {
      wait_s += c.totals.busy_s;
      calls += c.totals.calc_calls;
    }
  }
  return calls ? 1e6 * wait_s / static_cast<double>(calls) : 0.0;
}

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
  if (!r.partitions.empty()) {
    j["tolerance"] = r.tolerance;
    auto& parts = j["partitions"] = nlohmann::ordered_json::array();
    for (const auto& p : r.partitions)
      parts.push_back({{"name", p.name},
                       {"subsystems", p.members},
                       {"integrator", p.integrator},
                       {"h", p.h},
                       {"steps", p.steps},
                       {"steps_computed", p.stats.steps_computed},
                       {"rollbacks", p.stats.rollbacks},
                       {"rolled_back_steps", p.stats.rolled_back_steps},
                       {"predictions", p.stats.predictions},
                       {"accepted_predictions", p.stats.accepted_predictions},
                       {"max_accepted_error", p.stats.max_accepted_error},
                       {"derivative_calls", p.stats.derivative_calls},
                       {"jacobian_calls", p.stats.jacobian_calls},
                       {"events", p.stats.events}});
  }
  j["placement"] = r.placement;
  j["layout"] = r.layout;
  j["mean_utilisation"] = mean_utilisation(r);
  j["calc_cost_us"] = calc_cost_us(r);
  auto& geometry = j["geometry"] = nlohmann::ordered_json::array();
  for (const auto& p : r.geometry)
    geometry.push_back({{"pivot_x", p.pivot_x}, {"length", p.length}, {"radius", p.radius}});
  j["trajectory_sha256"] = r.trajectory_sha256;
  if (!r.resumed_from.empty()) {
    j["resumed_from_step"] = r.resumed_from.back();
    j["resumes"] = r.resumed_from.size();
    j["resumed_from"] = r.resumed_from;
  }
  j["status"] = r.status;
  j["exit_code"] = static_cast<int>(r.exit_code);
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.deployment.empty()) j["deployment"] = r.deployment;
  j["trace"] = {{"mode", trace_mode_name(r.trace.mode)},
                {"limit", r.trace.limit},
                {"events", r.trace.events},
                {"spans_not_written", r.trace.not_written},
                {"spans_lost", r.trace.lost},
                {"note", describe_trace(r.trace)}};
  auto& list = j["components"] = nlohmann::ordered_json::array();
  for (const auto& c : r.components) {
    list.push_back({{"name", c.name},
                    {"role", c.role},
                    {"host", c.host},
                    {"node", c.node},  // "" when the monitor started it itself
                    {"pid", c.pid},
                    {"reachable", c.reachable},
                    {"busy_s", c.totals.busy_s},
                    {"idle_s", c.totals.idle_s},
                    {"rollback_s", c.totals.rollback_s},
                    {"calc_calls", c.totals.calc_calls},
                    {"requests", c.totals.requests},
                    {"state_list_peak", c.totals.state_list_peak},
                    {"calc_wait_s", c.totals.calc_wait_s},
                    {"cpu", c.cpu},
                    {"trace_spans", c.trace_slices},
                    {"dropped_spans", c.dropped_spans}});
  }
  std::ofstream out(file, std::ios::trunc);
  if (!out) throw InputError(file.string() + ": cannot write summary");
  out << j.dump(2) << '\n';
}

std::string format_summary(const RunResult& r) {
  std::ostringstream o;
  if (r.partitions.empty())
    o << "kausal " << r.label() << " · " << r.scenario << " · " << r.pendulums << " pendulums, "
      << r.integrator << ", h = " << r.h << " s\n";
  else
    o << "kausal " << r.label() << " · " << r.scenario << " · " << r.partitions.size()
      << " partitions, " << r.integrator << ", smallest h = " << r.h << " s\n";
  o << "  status        " << r.status;
  if (!r.error.empty()) o << " — " << r.error;
  o << "\n  layout        " << r.layout;
  o << "\n  steps         " << r.steps << " of " << r.planned_steps;
  if (!r.resumed_from.empty())
    o << " (resumed from step " << r.resumed_from.back() << ", resume " << r.resumed_from.size()
      << ")";
  o << "\n";
  o << "  wall time     " << fixed(r.wall_s, 3) << " s";
  // A resumed run's wall time covers the steps since it was resumed.
  const std::uint64_t timed = r.steps - (r.resumed_from.empty() ? 0 : r.resumed_from.back());
  if (timed > 0) o << "  (" << fixed(1e6 * r.wall_s / static_cast<double>(timed), 2) << " µs/step)";
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
  for (const auto& p : r.partitions)
    o << "  partition     " << pad(p.name, -12) << p.integrator << ", h = " << p.h << " s, "
      << p.stats.steps_computed << " steps computed, " << p.stats.rollbacks << " rollbacks ("
      << p.stats.rolled_back_steps << " steps), " << p.stats.predictions << " predictions, "
      << p.stats.accepted_predictions << " kept (largest error " << p.stats.max_accepted_error
      << ", tolerance " << r.tolerance << ")\n";
  o << "  digest        " << r.trajectory_sha256 << "\n";
  o << "  trace         " << describe_trace(r.trace) << "\n";
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

std::vector<ComparisonRow> comparison_rows(const std::vector<RunResult>& results) {
  std::vector<ComparisonRow> rows;
  if (results.empty()) return rows;
  const RunResult& ref = results.front();
  // The thesis' question is conservative against optimistic: ratios against the
  // conservative step protocol too, when it is in the table.
  const RunResult* step = nullptr;
  for (const auto& r : results)
    if (!step && r.label() == "conservative/step") step = &r;  // the first layout's
  auto ratio = [](const RunResult* base, const RunResult& r) {
    return base && r.wall_s > 0 ? base->wall_s / r.wall_s : 0.0;
  };
  // Several layouts in one table: each run's label says which.
  bool layouts_differ = false;
  for (const auto& r : results)
    if (r.method != "sequential" && r.layout != results.back().layout) layouts_differ = true;
  auto label = [&](const RunResult& r) {
    return layouts_differ && r.method != "sequential" ? r.label() + " [" + r.layout + "]"
                                                      : r.label();
  };
  for (const auto& r : results) {
    ComparisonRow row;
    row.label = label(r);
    row.wall_s = r.wall_s;
    row.vs_sequential = ratio(&ref, r);
    row.vs_step = ratio(step, r);
    row.calc_calls = r.calc_calls;
    row.calc_cost_us = calc_cost_us(r);
    row.collisions = r.collisions;
    row.rollbacks = r.counters.rollbacks;
    row.rolled_back_steps = r.counters.rolled_back_steps;
    row.messages = r.counters.messages;
    row.mean_utilisation = mean_utilisation(r);
    row.digest = r.trajectory_sha256;
    row.status = r.status;
    row.digest_equal = r.status == "completed" && r.trajectory_sha256 == ref.trajectory_sha256;
    rows.push_back(row);
  }
  return rows;
}

std::string format_comparison(const std::vector<RunResult>& results) {
  auto times = [](double x) { return x > 0 ? significant(x, 3) + "x" : std::string("-"); };
  std::ostringstream o;
  const auto rows = comparison_rows(results);
  int width = 24;
  for (const auto& row : rows) width = std::max(width, static_cast<int>(row.label.size()) + 2);
  o << pad("method", -width) << pad("wall s", 9) << pad("vs seq", 9) << pad("vs step", 9)
    << pad("Calc calls", 12) << pad("µs/Calc", 10) << pad("collisions", 11) << pad("rollbacks", 10)
    << pad("rolled back", 12) << pad("messages", 10) << pad("util", 6) << "  digest\n";
  for (const auto& row : rows) {
    o << pad(row.label, -width) << pad(fixed(row.wall_s, 3), 9) << pad(times(row.vs_sequential), 9)
      << pad(times(row.vs_step), 9)
      << pad(std::to_string(row.calc_calls), 12)
      // "µ" is two bytes but one column.
      << pad(fixed(row.calc_cost_us, 2), 9) << pad(std::to_string(row.collisions), 11)
      << pad(std::to_string(row.rollbacks), 10) << pad(std::to_string(row.rolled_back_steps), 12)
      << pad(std::to_string(row.messages), 10) << pad(fixed(100 * row.mean_utilisation, 0) + "%", 6)
      << "  " << row.digest.substr(0, 16)
      << (row.status != "completed" ? " (" + row.status + ")"
          : row.digest_equal        ? "  = reference"
                                    : "  DIFFERS")
      << "\n";
  }
  return o.str();
}

}  // namespace kausal
