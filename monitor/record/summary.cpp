#include "monitor/record/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/errors.hpp"
#include "common/text_table.hpp"
#include "monitor/record/trace_writer.hpp"
#include "monitor/scenario/scenario_limits.hpp"

namespace kausal {
namespace {

// Seconds every component of a run waited, summed.
std::string scientific(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", v);
  return buffer;
}

double total_idle_s(const RunResult& r) {
  double idle = 0;
  for (const auto& c : r.components) idle += c.totals.idle_s;
  return idle;
}

nlohmann::ordered_json cosimulation_json(const CosimulationFigures& c) {
  nlohmann::ordered_json j = {{"exchange", c.exchange},
                              {"macro_steps", c.macro_steps},
                              {"rejected_steps", c.rejected_steps},
                              {"extra_passes", c.extra_passes},
                              {"halvings", c.halvings},
                              {"messages", c.messages},
                              {"input_discontinuities", c.input_discontinuities},
                              {"above_tolerance", c.above_tolerance},
                              {"min_step_s", c.min_step_s},
                              {"max_step_s", c.max_step_s},
                              {"predictions_of_order", c.predictions_of_order}};
  if (c.surrogates > 0) {
    j["surrogates"] = c.surrogates;
    j["surrogate_max_miss"] = c.surrogate_max_miss;
    j["surrogate_misses"] = c.surrogate_misses;
  }
  return j;
}

std::string format_cosimulation(const CosimulationFigures& c, const MethodCounters& k) {
  std::ostringstream o;
  o << "  master        " << c.exchange << ", " << c.macro_steps << " macro steps of "
    << c.min_step_s << "–" << c.max_step_s << " s, " << c.rejected_steps << " rejected, "
    << c.extra_passes << " extra passes, " << c.halvings << " halvings; " << k.rollbacks
    << " partition rollbacks (" << k.rolled_back_steps << " steps)\n";
  o << "  inputs        " << c.input_discontinuities
    << " jumps at communication points; polynomials of order 0/1/2/3 shipped: "
    << c.predictions_of_order[0] << "/" << c.predictions_of_order[1] << "/"
    << c.predictions_of_order[2] << "/" << c.predictions_of_order[3] << "\n";
  if (c.surrogates > 0)
    o << "  surrogates    " << c.surrogates << (c.surrogates == 1 ? " partition" : " partitions")
      << " stood in for while the others iterated; outputs off their surrogate's prediction by "
         "at most "
      << fixed(c.surrogate_max_miss, 1) << "x the tolerance, above it at " << c.surrogate_misses
      << " of the macro steps\n";
  if (c.above_tolerance)
    o << "  warning       " << c.above_tolerance
      << " macro steps kept with the prediction error above the tolerance (at the smallest "
         "step, or a partition cannot repeat a step)\n";
  return o.str();
}

double utilisation(const ActivityTotals& t) {
  const double life = t.busy_s + t.idle_s + t.rollback_s;
  return life > 0 ? t.busy_s / life : 0.0;
}

std::string percent(double share) {
  return fixed(100 * share, 0) + "%";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The median of one figure over the repetitions of a run.
template <typename Figure>
double median_of(const std::vector<const RunResult*>& runs, Figure figure) {
  std::vector<double> values;
  for (const RunResult* r : runs) values.push_back(static_cast<double>(figure(*r)));
  return median(values);
}

std::uint64_t count_median(const std::vector<const RunResult*>& runs,
                           std::uint64_t (*figure)(const RunResult&)) {
  return static_cast<std::uint64_t>(std::llround(median_of(runs, figure)));
}

bool several_layouts(const std::vector<std::vector<RunResult>>& rounds) {
  std::set<Layout> layouts;
  for (const auto& round : rounds)
    for (const auto& r : round)
      if (r.layout) layouts.insert(*r.layout);
  return layouts.size() > 1;
}

// The run `r` is compared with as "vs step" in its round: conservative/step of its layout,
// or for the reference (no layout) the only conservative/step there is.
const RunResult* step_run_for(const RunResult& r, const std::vector<RunResult>& round,
                              bool layouts_differ) {
  if (!r.layout && layouts_differ) return nullptr;
  for (const auto& other : round)
    if (other.method == SyncMethod::conservative && other.guarantee == Guarantee::step &&
        (!r.layout || other.layout == r.layout))
      return &other;
  return nullptr;
}

double ratio(const RunResult* base, const RunResult& r) {
  return base && r.wall_s > 0 ? base->wall_s / r.wall_s : 0.0;
}

// The processors a run could use (Clemens' p in η = σ/p): 1 for a sequential run; else its
// parts that compute side by side (pendulums, blocks, partitions and a hybrid model's
// event groups, event groups), at most `cpus`.
std::size_t processors_of(const RunResult& r, std::size_t cpus) {
  if (r.method == SyncMethod::sequential) return 1;
  std::size_t parts = r.pendulums;
  if (r.layout && in_blocks(*r.layout)) parts = r.blocks;
  if (r.partitioned()) parts = r.partitions.size() + (r.events ? r.events->groups : 0);
  if (r.events && !r.partitioned()) parts = r.events->groups;
  return std::clamp<std::size_t>(parts, 1, std::max<std::size_t>(cpus, 1));
}

// The real-time figures of a row: medians over its paced repetitions (none: not paced).
void add_realtime(ComparisonRow& row, const std::vector<const RunResult*>& runs) {
  std::vector<const RunResult*> paced;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(paced),
               [](const RunResult* r) { return r->realtime.has_value(); });
  if (paced.empty()) return;
  row.paced = true;
  row.overruns = count_median(paced, [](const RunResult& r) { return r.realtime->overruns; });
  row.overruns_machine =
      count_median(paced, [](const RunResult& r) { return r.realtime->machine.overruns_machine; });
  row.lateness_p99_s =
      median_of(paced, [](const RunResult& r) { return r.realtime->lateness_s.p99; });
}

// The cells of the real-time columns: "–" for a row that was not paced.
std::vector<std::string> realtime_cells(const ComparisonRow& row) {
  if (!row.paced) return {"–", "–", "–"};
  return {std::to_string(row.overruns), std::to_string(row.overruns_machine),
          micros(row.lateness_p99_s)};
}

}  // namespace

std::string fixed(double v, int decimals) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(decimals);
  o << v;
  return o.str();
}

namespace {

nlohmann::ordered_json events_json(const EventFigures& e) {
  auto components = nlohmann::ordered_json::array();
  for (const auto& c : e.per_component)
    components.push_back({{"name", c.name},
                          {"processed", c.processed},
                          {"committed", c.committed},
                          {"rolled_back", c.rolled_back},
                          {"rollbacks", c.rollbacks},
                          {"stragglers", c.stragglers},
                          {"anti_messages", c.anti_messages}});
  // "components" is the per-component array below (docs/events.md); the count has its own
  // key (one initialiser list once had both under one key: the array was never written).
  return {{"model", e.model},
          {"component_count", e.components},
          {"groups", e.groups},
          {"end", e.end},
          {"committed_to", e.committed_to},
          {"resumed_at", e.resumed_at},
          {"committed", e.committed},
          {"processed", e.processed},
          {"efficiency", e.efficiency()},
          {"rolled_back", e.rolled_back},
          {"rollbacks", e.rollbacks},
          {"stragglers", e.stragglers},
          {"anti_messages", e.anti_messages},
          {"messages", e.messages},
          {"null_messages", e.null_messages},
          {"batches", e.batches},
          {"gvt_rounds", e.gvt_rounds},
          {"deadlocks", e.deadlocks},
          {"permits", e.permits},
          {"deferred_errors", e.deferred_errors},
          {"cleared_errors", e.cleared_errors},
          {"window", e.window},
          {"peak_uncommitted", e.peak_uncommitted},
          {"crossings", e.crossings},
          {"to_partitions", e.to_partitions},
          {"components", components}};
}

double committed_per_s(const RunResult& r) {
  return r.events && r.wall_s > 0 ? static_cast<double>(r.events->committed) / r.wall_s : 0.0;
}

// "3.21 M", "850 k", "12"
std::string count_rate(double v) {
  if (v >= 1e6) return fixed(v / 1e6, 2) + " M";
  if (v >= 1e3) return fixed(v / 1e3, 1) + " k";
  return fixed(v, 0);
}

std::string format_events(const RunResult& r) {
  const EventFigures& e = *r.events;
  std::ostringstream o;
  o << "  committed     " << e.committed << " events ";
  if (r.resumed_from.empty())
    o << "below t = " << format_number(e.committed_to);
  else
    o << "from t = " << format_number(e.resumed_at) << " to " << format_number(e.committed_to);
  o << " (" << count_rate(committed_per_s(r)) << "/s)";
  if (!r.resumed_from.empty())
    o << ", resumed after " << r.resumed_from.back() << " (resume " << r.resumed_from.size() << ")";
  o << "\n";
  o << "  processed     " << e.processed << " (efficiency " << percent(e.efficiency()) << ")\n";
  if (r.method == SyncMethod::optimistic)
    o << "  rollbacks     " << e.rollbacks << " (" << e.rolled_back << " events undone, "
      << e.stragglers << " stragglers), " << e.anti_messages << " anti-messages\n"
      << "  GVT           " << e.gvt_rounds << " rounds; window " << format_number(e.window)
      << ", at most " << e.peak_uncommitted << " uncommitted events\n";
  if (e.deferred_errors)
    o << "  model errors  " << e.deferred_errors << " raised on speculative states, "
      << e.cleared_errors << " cleared by rollbacks\n";
  if (r.method == SyncMethod::conservative) {
    o << "  guarantees    " << e.null_messages << " null messages";
    if (e.deadlocks)
      o << "; " << e.deadlocks << " deadlocks, " << e.permits << " events let through";
    o << "\n";
  }
  if (e.groups > 1)
    o << "  messages      " << e.messages << " events between groups, in " << e.batches
      << " batches (" << (r.layout == Layout::process ? "calls" : "hand-overs") << ")\n";
  return o.str();
}

}  // namespace

std::string ratio_text(double x) {
  if (!(x > 0) || !std::isfinite(x)) return "–";
  // %.3g switches to exponents from 1000 on: whole numbers read better there.
  const auto number = [](double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, v >= 999.5 ? "%.0f" : "%.3g", v);
    return std::string(buf);
  };
  // A large slow-down reads as a fraction (1/334×, 334 times slower), not as 0.00299×.
  if (x < 0.1) return "1/" + number(1 / x) + "×";
  return number(x) + "×";
}

std::string efficiency_text(const ComparisonRow& row) {
  std::ostringstream o;
  if (row.efficiency >= 0.1 || row.efficiency == 0)
    o << fixed(row.efficiency, 2);
  else
    o << std::setprecision(2) << row.efficiency;  // two significant digits: 0.0014
  o << " (p " << row.processors << ")";
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
    if (c.role == ComponentRole::integrator) {
      wait_s += c.totals.calc_wait_s;
      calls += c.totals.calc_calls;
    } else if (c.role == ComponentRole::sequential || c.role == ComponentRole::block) {
      wait_s += c.totals.busy_s;
      calls += c.totals.calc_calls;
    }
  }
  return calls ? 1e6 * wait_s / static_cast<double>(calls) : 0.0;
}

nlohmann::ordered_json spread_json(const Spread& s) {
  return {{"count", s.count}, {"p50", s.p50}, {"p99", s.p99}, {"max", s.max}};
}

nlohmann::ordered_json realtime_json(const RealtimeFigures& f) {
  nlohmann::ordered_json j{{"clock", f.clock}};
  if (f.clock == ClockSource::wall) j["factor"] = f.factor;
  if (f.clock == ClockSource::external) j["ticks"] = f.ticks;
  j["release"] = f.wait;
  j["rt_priority"] = f.priority;
  j["budget_s"] = f.budget_s;
  j["overruns"] = f.overruns;
  j["start_delay_s"] = spread_json(f.start_delay_s);
  j["lateness_s"] = spread_json(f.lateness_s);
  j["step_s"] = spread_json(f.step_s);
  j["compute_s"] = spread_json(f.compute_s);
  j["communication_s"] = spread_json(f.communication_s);
  j["load"] = spread_json(f.load);
  auto& list = j["components"] = nlohmann::ordered_json::array();
  for (const auto& c : f.components)
    list.push_back(
        {{"name", c.name}, {"step_s", spread_json(c.step_s)}, {"busy_s", spread_json(c.busy_s)}});
  if (const MachineStalls& m = f.machine; m.watched)
    j["machine"] = {{"preempts", m.preempts},       {"cpus", m.cpus},
                    {"threshold_s", m.threshold_s}, {"samples", m.samples},
                    {"stalls", m.stalls},           {"over_1ms", m.over_1ms},
                    {"longest_s", m.longest_s},     {"overruns_machine", m.overruns_machine}};
  return j;
}

std::string micros(double s) {
  return fixed(1e6 * s, 1);
}

std::string realtime_setup(const RealtimeFigures& f) {
  std::ostringstream o;
  if (f.clock == ClockSource::wall)
    o << "factor " << f.factor << " (" << micros(f.budget_s) << " µs per step)";
  else
    o << "external clock, " << f.ticks << " ticks";
  o << ", release by " << name_of(f.wait);
  if (f.priority > 0) o << ", SCHED_FIFO " << f.priority;
  o << ", " << f.overruns << " overruns";
  if (f.machine.watched && f.overruns > 0)
    o << " (" << f.machine.overruns_machine << " of them the machine's)";
  return o.str();
}

std::string machine_stalls_line(const MachineStalls& m) {
  if (!m.watched) return "";
  std::ostringstream o;
  o << "machine: " << m.stalls << " stalls over " << micros(m.threshold_s) << " µs on " << m.cpus
    << (m.cpus == 1 ? " CPU" : " CPUs");
  if (m.stalls > 0)
    o << " (" << m.over_1ms << " over 1 ms, longest " << fixed(1e3 * m.longest_s, 1) << " ms)";
  o << " in " << m.samples << " samples";
  if (!m.preempts)
    o << "; the watch could not preempt the run (no SCHED_FIFO): some may be the run's own";
  return o.str();
}

std::vector<std::vector<std::string>> realtime_rows(const RealtimeFigures& f) {
  std::vector<std::vector<std::string>> table{{"per step", "p50", "p99", "max"}};
  auto row = [&](const std::string& name, const Spread& s, bool ratio = false) {
    if (s.count == 0) return;
    auto text = [&](double v) { return ratio ? fixed(v, 3) : micros(v); };
    table.push_back({name, text(s.p50), text(s.p99), text(s.max)});
  };
  row("start delay µs", f.start_delay_s);
  row("lateness µs", f.lateness_s);
  row("step µs", f.step_s);
  row("compute µs", f.compute_s);
  row("communication µs", f.communication_s);
  row("load", f.load, true);
  for (const auto& c : f.components) row("  " + c.name + " µs", c.step_s);
  return table;
}

std::string format_realtime(const RealtimeFigures& f) {
  const auto right = Align::right;
  const std::string machine = machine_stalls_line(f.machine);
  return "  real time     " + realtime_setup(f) + "\n" +
         (machine.empty() ? "" : "                " + machine + "\n") +
         format_table(realtime_rows(f), {Align::left, right, right, right}, "    ");
}

void write_summary_json(const RunResult& r, const std::filesystem::path& file) {
  nlohmann::ordered_json j;
  j["method"] = to_string(r.method);
  if (r.guarantee != Guarantee::none) j["guarantee"] = to_string(r.guarantee);
  j["model"] = r.model;
  j["scenario"] = r.scenario;
  j["integrator"] = r.integrator;
  j["pendulums"] = r.pendulums;
  j["h"] = r.h;
  j["steps"] = r.steps;
  j["planned_steps"] = r.planned_steps;
  j["wall_s"] = r.wall_s;
  j["calc_calls"] = r.calc_calls;
  // Figures of the pendulum chain only: a partitioned model has no collisions, no
  // guarantee rounds and no batches of an old epoch.
  if (r.chain()) j["collisions"] = r.collisions;
  const MethodCounters& k = r.counters;
  j["monitor_calls"] = k.monitor_calls;
  j["bytes"] = k.bytes;
  if (r.partitioned()) {
    j["direct_calls"] = k.direct_calls;
    j["direct_bytes"] = k.direct_bytes;
  }
  if (r.chain()) j["rounds"] = k.rounds;
  j["rollbacks"] = k.rollbacks;
  j["rolled_back_steps"] = k.rolled_back_steps;
  j["wasted_calc_calls"] = k.wasted_calc_calls;
  if (r.chain()) j["stale_batches"] = k.stale_batches;
  j["state_list_peak"] = r.state_list_peak;
  // (A discrete-event run's window is in its events figures; a hybrid model's partitions'
  // window is theirs.)
  if (r.method == SyncMethod::optimistic && !(r.events && r.partitions.empty())) {
    if (r.chain() && !(r.layout && in_blocks(*r.layout))) j["batch_size"] = r.batch_size;
    j["window"] = r.window;
  }
  if (r.cosimulation) j["cosimulation"] = cosimulation_json(*r.cosimulation);
  if (r.events) j["events"] = events_json(*r.events);
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
                       {"wasted_derivative_calls", p.stats.wasted_derivative_calls},
                       {"predictions", p.stats.predictions},
                       {"accepted_predictions", p.stats.accepted_predictions},
                       {"max_accepted_error", p.stats.max_accepted_error},
                       {"derivative_calls", p.stats.derivative_calls},
                       {"jacobian_calls", p.stats.jacobian_calls},
                       {"newton_limit_steps", p.stats.newton_limit_steps},
                       {"events", p.stats.events}});
    for (std::size_t i = 0; i < r.partitions.size(); ++i)
      if (!r.partitions[i].integrator_choice.empty())
        parts[i]["integrator_choice"] = r.partitions[i].integrator_choice;
  }
  j["placement"] = r.placement;
  j["layout"] = layout_label(r.layout);
  if (r.layout && in_blocks(*r.layout)) j["blocks"] = r.blocks;
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
  j["status"] = to_string(r.status);
  j["exit_code"] = static_cast<int>(r.exit_code);
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.deployment.empty()) j["deployment"] = r.deployment;
  j["trace"] = {{"mode", trace_mode_name(r.trace.mode)},
                {"limit", r.trace.limit},
                {"events", r.trace.events},
                {"spans_not_written", r.trace.not_written},
                {"spans_lost", r.trace.lost},
                {"note", describe_trace(r.trace)}};
  if (r.realtime) j["realtime"] = realtime_json(*r.realtime);
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

std::string finish_summary(std::ostringstream& o, const RunResult& r);

std::string format_summary(const RunResult& r) {
  std::ostringstream o;
  const bool events_only = r.events && r.partitions.empty();
  if (events_only)
    o << "kausal " << r.label() << " · " << r.scenario << " · " << r.events->model << ", "
      << r.events->components << " components in " << r.events->groups
      << (r.events->groups == 1 ? " group" : " groups")
      << ", to t = " << format_number(r.events->end) << "\n";
  else if (r.partitions.empty())
    o << "kausal " << r.label() << " · " << r.scenario << " · " << r.pendulums << " pendulums, "
      << r.integrator << ", h = " << r.h << " s\n";
  else
    o << "kausal " << r.label() << " · " << r.scenario << " · "
      << counted(r.partitions.size(), "partition") << ", " << r.integrator
      << ", smallest h = " << r.h << " s\n";
  o << "  status        " << name_of(r.status);
  if (!r.error.empty()) o << " — " << r.error;
  o << "\n  layout        " << layout_label(r.layout);
  if (r.layout && in_blocks(*r.layout)) o << ":" << r.blocks;
  if (events_only) {
    o << "\n  wall time     " << fixed(r.wall_s, 3) << " s\n" << format_events(r);
    return finish_summary(o, r);
  }
  o << "\n  steps         " << r.steps << " of " << r.planned_steps;
  if (!r.resumed_from.empty())
    o << " (resumed from step " << r.resumed_from.back() << ", resume " << r.resumed_from.size()
      << ")";
  o << "\n";
  o << "  wall time     " << fixed(r.wall_s, 3) << " s";
  // A resumed run's wall time covers the steps since it was resumed.
  const std::uint64_t timed = r.steps - (r.resumed_from.empty() ? 0 : r.resumed_from.back());
  if (timed > 0) o << "  (" << fixed(1e6 * r.wall_s / static_cast<double>(timed), 2) << " µs/step)";
  o << "\n  Calc calls    " << r.calc_calls;
  if (const double cost = calc_cost_us(r); cost > 0) o << "  (" << fixed(cost, 2) << " µs each)";
  o << "\n";
  if (r.chain()) o << "  collisions    " << r.collisions << "\n";
  const MethodCounters& k = r.counters;
  if (k.monitor_calls)
    o << "  monitor calls " << k.monitor_calls << " (" << k.bytes << " payload bytes)\n";
  if (k.direct_calls)
    o << "  direct calls  " << k.direct_calls << " (" << k.direct_bytes
      << " payload bytes, Integrator to Integrator)\n";
  if (k.rounds) o << "  guarantees    " << k.rounds << "\n";
  if (r.cosimulation) o << format_cosimulation(*r.cosimulation, k);
  if (r.method == SyncMethod::optimistic) {
    o << "  rollbacks     " << k.rollbacks << " (" << k.rolled_back_steps << " steps, "
      << k.wasted_calc_calls << " Calc calls wasted";
    // Blocks run ahead in this process: they ship no batches.
    const bool batches = r.chain() && !(r.layout && in_blocks(*r.layout));
    if (batches) o << "; " << k.stale_batches << " stale batches dropped";
    o << ")\n  state list    at most " << r.state_list_peak << " entries (window " << r.window;
    if (batches) o << ", batch " << r.batch_size;
    o << ")\n";
  }
  for (const auto& p : r.partitions) {
    o << "  partition     " << p.name << ": " << p.integrator << ", h = " << p.h << " s, "
      << p.stats.steps_computed << " steps computed";
    // A hybrid model's partitions roll back to take events, under every method, and predict
    // nothing; the others' only when optimistic, where they predict their inputs.
    if (r.events)
      o << ", " << p.stats.events << " events taken, " << p.stats.rollbacks << " rollbacks ("
        << p.stats.rolled_back_steps << " steps) to take them";
    else if (r.method == SyncMethod::optimistic)
      o << ", " << p.stats.rollbacks << " rollbacks (" << p.stats.rolled_back_steps << " steps), "
        << p.stats.predictions << " predictions, " << p.stats.accepted_predictions
        << " kept (largest error " << p.stats.max_accepted_error << ", tolerance " << r.tolerance
        << ")";
    o << "\n";
    if (!p.integrator_choice.empty())
      o << "                integrator auto: " << p.integrator_choice << "\n";
    if (p.stats.newton_limit_steps > 0)
      o << "                " << p.stats.newton_limit_steps
        << " steps took Newton's last iterate at its limit (newton_at_limit = \"accept\")\n";
  }
  if (r.events) {
    const EventFigures& e = *r.events;
    o << "  bridge        ";
    // A resumed run's figures are this attempt's, as its partitions' are.
    if (!r.resumed_from.empty()) o << "from t = " << format_number(e.resumed_at) << ": ";
    o << e.crossings << " crossings located and sent to " << e.model << ", " << e.to_partitions
      << " events sent to partitions; " << e.processed << " events processed by " << e.components
      << (e.components == 1 ? " component" : " components");
    if (e.groups > 1)
      o << " in " << e.groups << " event groups (" << e.messages << " events between them, "
        << e.permits << " permitted)";
    o << "\n";
  }
  return finish_summary(o, r);
}

// The digest, the trace and the components: the end of every summary.
std::string finish_summary(std::ostringstream& o, const RunResult& r) {
  // A run that failed before its first step has neither a digest nor components to show.
  if (!r.trajectory_sha256.empty()) o << "  digest        " << r.trajectory_sha256 << "\n";
  o << "  trace         " << describe_trace(r.trace) << "\n";
  if (r.realtime) o << format_realtime(*r.realtime);
  if (r.components.empty()) return o.str();
  std::vector<std::vector<std::string>> table{
      {"component", "busy s", "idle s", "rollback s", "util", "Calc"}};
  for (const auto& c : r.components)
    table.push_back({c.name, fixed(c.totals.busy_s, 3), fixed(c.totals.idle_s, 3),
                     fixed(c.totals.rollback_s, 3), percent(utilisation(c.totals)),
                     std::to_string(c.totals.calc_calls) + (c.reachable ? "" : "  (unreachable)")});
  const auto right = Align::right;
  o << format_table(table, {Align::left, right, right, right, right, right}, "  ");
  return o.str();
}

std::string comparison_label(const RunResult& r, bool layouts_differ) {
  return layouts_differ && r.layout ? r.label() + " [" + to_string(*r.layout) + "]" : r.label();
}

std::vector<ComparisonRow> comparison_rows(const std::vector<std::vector<RunResult>>& rounds,
                                           std::size_t cpus) {
  std::vector<ComparisonRow> rows;
  if (rounds.empty() || rounds.front().empty()) return rows;
  const RunResult& reference = rounds.front().front();
  const bool layouts_differ = several_layouts(rounds);
  for (std::size_t i = 0; i < rounds.front().size(); ++i) {
    std::vector<const RunResult*> runs;
    std::vector<double> vs_sequential, vs_step;
    for (const auto& round : rounds) {
      if (i >= round.size()) continue;  // a round cut short by a failure
      const RunResult& r = round[i];
      runs.push_back(&r);
      vs_sequential.push_back(ratio(&round.front(), r));
      vs_step.push_back(ratio(step_run_for(r, round, layouts_differ), r));
    }
    const RunResult& first = *runs.front();
    ComparisonRow row;
    row.label = comparison_label(first, layouts_differ);
    row.layout = first.layout;
    row.chain = first.chain();
    row.hybrid = first.events && !first.partitions.empty();
    if (first.events) {
      row.events = first.events;
      row.events->committed =
          count_median(runs, [](const RunResult& r) { return r.events ? r.events->committed : 0; });
      row.events->processed =
          count_median(runs, [](const RunResult& r) { return r.events ? r.events->processed : 0; });
      row.events->rollbacks =
          count_median(runs, [](const RunResult& r) { return r.events ? r.events->rollbacks : 0; });
      row.events->anti_messages = count_median(
          runs, [](const RunResult& r) { return r.events ? r.events->anti_messages : 0; });
      row.events->null_messages = count_median(
          runs, [](const RunResult& r) { return r.events ? r.events->null_messages : 0; });
      row.committed_per_s = median_of(runs, committed_per_s);
    }
    row.runs = runs.size();
    row.wall_s = median_of(runs, [](const RunResult& r) { return r.wall_s; });
    row.wall_min_s = row.wall_max_s = first.wall_s;
    for (const RunResult* r : runs) {
      row.wall_min_s = std::min(row.wall_min_s, r->wall_s);
      row.wall_max_s = std::max(row.wall_max_s, r->wall_s);
    }
    row.vs_sequential = median(vs_sequential);
    row.processors = processors_of(first, cpus);
    row.efficiency = row.vs_sequential / static_cast<double>(row.processors);
    row.vs_step = median(vs_step);
    row.calc_calls = count_median(runs, [](const RunResult& r) { return r.calc_calls; });
    row.calc_cost_us = median_of(runs, calc_cost_us);
    row.collisions = count_median(runs, [](const RunResult& r) { return r.collisions; });
    row.rollbacks = count_median(runs, [](const RunResult& r) { return r.counters.rollbacks; });
    row.rolled_back_steps =
        count_median(runs, [](const RunResult& r) { return r.counters.rolled_back_steps; });
    row.monitor_calls =
        count_median(runs, [](const RunResult& r) { return r.counters.monitor_calls; });
    row.mean_utilisation = median_of(runs, mean_utilisation);
    row.idle_s = median_of(runs, total_idle_s);
    row.cosimulation = first.cosimulation;
    if (first.global_error)
      row.global_error =
          median_of(runs, [](const RunResult& r) { return r.global_error.value_or(0); });
    add_realtime(row, runs);
    row.digest = first.trajectory_sha256;
    row.status = RunStatus::completed;
    row.digest_equal = true;
    for (const RunResult* r : runs) {
      if (!r->completed() && row.status == RunStatus::completed) row.status = r->status;
      row.digest_equal =
          row.digest_equal && r->completed() && r->trajectory_sha256 == reference.trajectory_sha256;
    }
    rows.push_back(row);
  }
  return rows;
}

bool any_paced(const std::vector<ComparisonRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.paced; });
}

namespace {

// What the ratio columns mean, under a comparison table.
std::string ratio_legend(bool vs_step) {
  return std::string(vs_step ? "vs seq, vs step: how many times as fast as the sequential run, "
                               "and as conservative/step (1/k: k times slower)\n"
                             : "vs seq: how many times as fast as the sequential run (1/k: k "
                               "times slower)\n") +
         "η: vs seq per processor the run could use (η = σ/p: p is 1 for sequential, else its "
         "parts that compute side by side, at most this machine's CPUs)\n";
}

// The legend's lines broken to the table's width (0: as they are).
std::string fitted(const std::string& legend, std::size_t width) {
  if (width == 0) return legend;
  std::string lines = wrap_words(legend, width);
  if (!lines.ends_with('\n')) lines += '\n';
  return lines;
}

// The table of a discrete-event comparison: events instead of steps and Calcs.
std::string format_event_comparison(const std::vector<ComparisonRow>& rows, std::size_t width) {
  const bool repeated = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.runs > 1; });
  // Deadlocks only where some run had one (zero lookahead: the watch lets an event through).
  const bool deadlocks =
      std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.events->deadlocks > 0; });
  std::vector<std::string> header{"method",        repeated ? "median s" : "wall s",
                                  "vs seq",        "η",
                                  "committed",     "committed/s",
                                  "processed",     "efficiency",
                                  "rollbacks",     "anti-messages",
                                  "null messages", "util",
                                  "blocked s",     "digest"};
  if (deadlocks) header.insert(header.end() - 3, "deadlocks");
  std::vector<std::vector<std::string>> table{header};
  for (const auto& row : rows) {
    const EventFigures& e = *row.events;
    table.push_back(
        {row.label, fixed(row.wall_s, 3), ratio_text(row.vs_sequential), efficiency_text(row),
         std::to_string(e.committed), count_rate(row.committed_per_s), std::to_string(e.processed),
         percent(e.efficiency()), std::to_string(e.rollbacks), std::to_string(e.anti_messages),
         std::to_string(e.null_messages), percent(row.mean_utilisation), fixed(row.idle_s, 3),
         row.digest.substr(0, 16) + (row.status != RunStatus::completed
                                         ? " (" + to_string(row.status) + ")"
                                     : row.digest_equal ? " = reference"
                                                        : " DIFFERS")});
    if (deadlocks) table.back().insert(table.back().end() - 3, std::to_string(e.deadlocks));
  }
  std::vector<Align> align(header.size(), Align::right);
  align.front() = align.back() = Align::left;
  std::string out = format_table(table, align, "", width);
  std::string legend;
  if (repeated)
    legend += "(each method run " + std::to_string(rows.front().runs) + " times: medians)\n";
  legend += ratio_legend(false);
  if (deadlocks)
    legend +=
        "deadlocks: times the groups' guarantees went round in a cycle and the watch let the "
        "earliest event through (deadlock = \"recover\"; docs/events.md)\n";
  legend +=
      "util: the groups' mean share of their time busy; blocked s: their time waiting for "
      "other groups, summed\n";
  return out + fitted(legend, width);
}

}  // namespace

std::string format_comparison(const std::vector<ComparisonRow>& rows, std::size_t width) {
  if (!rows.empty() &&
      std::all_of(rows.begin(), rows.end(), [](auto& r) { return r.events && !r.hybrid; }))
    return format_event_comparison(rows, width);
  const bool collisions = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.chain; });
  const bool repeated = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.runs > 1; });
  const bool paced = any_paced(rows);
  std::vector<std::string> header{"method", repeated ? "median s" : "wall s"};
  if (repeated) header.push_back("min–max s");
  for (const char* h : {"vs seq", "vs step", "η", "Calc calls", "µs/Calc"}) header.push_back(h);
  if (collisions) header.push_back("collisions");
  for (const char* h : {"rollbacks", "rolled back", "monitor calls", "util", "idle s"})
    header.push_back(h);
  const bool master = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.cosimulation; });
  if (master)
    header.insert(header.end(), {"macro steps", "rejected", "extra passes", "input jumps"});
  const bool errors = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.global_error; });
  if (errors) header.push_back("global error");
  if (paced) header.insert(header.end(), {"overruns", "machine's", "p99 lateness µs"});
  header.push_back("digest");
  std::vector<std::vector<std::string>> table{header};
  for (const auto& row : rows) {
    std::vector<std::string> cells{row.label, fixed(row.wall_s, 3)};
    if (repeated) cells.push_back(fixed(row.wall_min_s, 3) + "–" + fixed(row.wall_max_s, 3));
    cells.insert(cells.end(),
                 {ratio_text(row.vs_sequential), ratio_text(row.vs_step), efficiency_text(row),
                  std::to_string(row.calc_calls), fixed(row.calc_cost_us, 2)});
    if (collisions) cells.push_back(row.chain ? std::to_string(row.collisions) : "–");
    cells.insert(cells.end(), {std::to_string(row.rollbacks), std::to_string(row.rolled_back_steps),
                               std::to_string(row.monitor_calls), percent(row.mean_utilisation),
                               fixed(row.idle_s, 3)});
    if (master) {
      const auto& c = row.cosimulation;
      for (std::uint64_t v : {c ? c->macro_steps : 0, c ? c->rejected_steps : 0,
                              c ? c->extra_passes : 0, c ? c->input_discontinuities : 0})
        cells.push_back(c ? std::to_string(v) : "–");
    }
    if (errors) cells.push_back(row.global_error ? scientific(*row.global_error) : "–");
    if (paced) {
      const auto rt = realtime_cells(row);
      cells.insert(cells.end(), rt.begin(), rt.end());
    }
    cells.push_back(row.digest.substr(0, 16) + (row.status != RunStatus::completed
                                                    ? " (" + to_string(row.status) + ")"
                                                : row.digest_equal ? " = reference"
                                                                   : " DIFFERS"));
    table.push_back(std::move(cells));
  }
  std::vector<Align> align(header.size(), Align::right);
  align.front() = align.back() = Align::left;
  std::string out = format_table(table, align, "", width);
  std::string legend;
  if (repeated)
    legend += "(each method run " + std::to_string(rows.front().runs) +
              " times: medians, and the range of the wall times)\n";
  legend += ratio_legend(true);
  legend +=
      "util: the components' mean share of their time busy; idle s: their time waiting for "
      "other components (a call's answer, a grant, the clock), summed over the components\n";
  return out + fitted(legend, width);
}

std::string format_finished_run(const RunResult& r, bool layouts_differ, const RunResult& reference,
                                std::size_t done, std::size_t total) {
  std::ostringstream o;
  o << "[" << done << "/" << total << "] " << comparison_label(r, layouts_differ) << "  "
    << fixed(r.wall_s, 3) << " s  ";
  if (!r.completed())
    o << name_of(r.status) << (r.error.empty() ? "" : ": " + r.error.substr(0, r.error.find('\n')));
  else if (&r == &reference)
    o << "digest " << r.trajectory_sha256.substr(0, 16) << " (the reference)";
  else if (r.trajectory_sha256 == reference.trajectory_sha256)
    o << "digest = " << reference.label();
  else
    o << "digest " << r.trajectory_sha256.substr(0, 16) << " differs from " << reference.label();
  return o.str();
}

std::string format_state_errors(const std::vector<StateErrorRow>& rows) {
  if (rows.empty()) return {};
  std::vector<std::vector<std::string>> table = {{"state", "alone", "coupled"}};
  for (const StateErrorRow& r : rows)
    table.push_back(
        {r.state, std::isnan(r.alone) ? "–" : scientific(r.alone), scientific(r.coupled)});
  return "\nerror by state: each partition alone (its own method and step, its inputs the "
         "reference's) against the coupled sequential run; the difference is the coupling's\n" +
         format_table(table, {Align::left, Align::right, Align::right});
}

void write_comparison_json(const std::vector<ComparisonRow>& rows,
                           const std::filesystem::path& file,
                           const std::vector<StateErrorRow>& by_state) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& row : rows) {
    nlohmann::ordered_json j;
    j["label"] = row.label;
    j["layout"] = layout_label(row.layout);
    j["runs"] = row.runs;
    j["wall_s"] = row.wall_s;
    j["wall_min_s"] = row.wall_min_s;
    j["wall_max_s"] = row.wall_max_s;
    j["vs_sequential"] = row.vs_sequential;
    j["vs_step"] = row.vs_step;
    j["processors"] = row.processors;
    j["efficiency"] = row.efficiency;
    j["calc_calls"] = row.calc_calls;
    j["calc_cost_us"] = row.calc_cost_us;
    if (row.chain) j["collisions"] = row.collisions;
    j["rollbacks"] = row.rollbacks;
    j["rolled_back_steps"] = row.rolled_back_steps;
    j["monitor_calls"] = row.monitor_calls;
    j["mean_utilisation"] = row.mean_utilisation;
    j["idle_s"] = row.idle_s;
    if (row.global_error) j["global_error"] = *row.global_error;
    if (row.cosimulation) j["cosimulation"] = cosimulation_json(*row.cosimulation);
    if (row.events) {
      j["events"] = events_json(*row.events);
      j["committed_per_s"] = row.committed_per_s;
    }
    if (row.paced) {
      j["overruns"] = row.overruns;
      j["overruns_machine"] = row.overruns_machine;
      j["lateness_p99_s"] = row.lateness_p99_s;
    }
    j["trajectory_sha256"] = row.digest;
    j["status"] = to_string(row.status);
    j["digest_equal"] = row.digest_equal;
    list.push_back(std::move(j));
  }
  nlohmann::ordered_json whole{{"rows", list}};
  if (!by_state.empty()) {
    auto states = nlohmann::ordered_json::array();
    for (const StateErrorRow& r : by_state)
      states.push_back({{"state", r.state},
                        {"alone", std::isnan(r.alone) ? nlohmann::ordered_json()
                                                      : nlohmann::ordered_json(r.alone)},
                        {"coupled", r.coupled}});
    whole["error_by_state"] = std::move(states);
  }
  std::ofstream out(file, std::ios::trunc);
  out << whole.dump(2) << '\n';
  if (!out.flush()) throw InputError(file.string() + ": cannot write the comparison");
}

}  // namespace kausal
